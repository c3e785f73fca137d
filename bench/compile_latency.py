"""Compile latency: import + compile + first call of the MLP gradient (examples/mlp.mlir), in a
fresh process each time, for gradir, JAX's `jit(grad)` and `torch.compile`, each with its own
persistent cache empty ("cold") and filled by an earlier process ("warm").

    python bench/compile_latency.py [--repeats N]

Each measurement is a new Python process that times from before its first import to after the
first call's results are in NumPy arrays (interpreter start-up, the same for all, is left out).
The systems alternate within each repetition; the table gives the minimum and the median per
column and the ratios of the minima to JAX's cold first call, measured in the same run. Every
process's gradient is checked against gradir's (f32, rtol 1e-4). Writes
bench/results/compile_latency.json and .md.

One untimed process per system comes first, so that every system's Python files are
compiled to bytecode (under PYTHONPYCACHEPREFIX, in the scratch directory) as in an installed
package: where PYTHONDONTWRITEBYTECODE is set, a checkout's modules would otherwise be
compiled from source in every process.

The caches: gradir's `GRADIR_CACHE_DIR`; JAX's persistent compilation cache
(`jax_compilation_cache_dir`, every compile stored); Inductor's `TORCHINDUCTOR_CACHE_DIR` (its
FX graph cache is on by default). A cold process gets a fresh empty directory; the warm one
reuses the directory the cold one of the same repetition filled.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
MLP = ROOT / "examples" / "mlp.mlir"
SHAPES = [(8, 16), (8, 10), (16, 32), (32,), (32, 24), (24,), (24, 10), (10,)]
"""mlp_grad's arguments: x, labels, w1, b1, w2, b2, w3, b3."""

PROLOGUE = """
import time
start = time.perf_counter()
import sys
import numpy as np
given = np.load(sys.argv[1])
arguments = [given[f"a{i}"] for i in range(8)]
"""

EPILOGUE = """
seconds = time.perf_counter() - start
np.savez(sys.argv[2], *[np.asarray(r) for r in results])
print(seconds)
"""

PROGRAMS = {
    "gradir": f"""
import gradir
exe = gradir.compile({str(MLP)!r})
results = exe.mlp_grad(*arguments)
""",
    "jax": """
import jax
jax.config.update("jax_platforms", "cpu")
cache = sys.argv[3]
jax.config.update("jax_compilation_cache_dir", cache)
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", -1)
import jax.numpy as jnp

def loss(x, labels, w1, b1, w2, b2, w3, b3):
    a1 = jax.nn.relu(x @ w1 + b1)
    a2 = jnp.tanh(a1 @ w2 + b2)
    logp = jax.nn.log_softmax(a2 @ w3 + b3, axis=1)
    return -jnp.mean(jnp.sum(logp * labels, axis=1))

grad = jax.jit(jax.grad(loss, argnums=(2, 3, 4, 5, 6, 7)))
results = [np.asarray(g) for g in jax.block_until_ready(grad(*arguments))]
""",
    "torch.compile": """
import torch
torch.set_num_threads(1)

def loss(x, labels, w1, b1, w2, b2, w3, b3):
    a1 = torch.relu(x @ w1 + b1)
    a2 = torch.tanh(a1 @ w2 + b2)
    logp = torch.log_softmax(a2 @ w3 + b3, dim=1)
    return -torch.mean(torch.sum(logp * labels, dim=1))

def grad(x, labels, *weights):
    value = loss(x, labels, *weights)
    return torch.autograd.grad(value, weights)

compiled = torch.compile(loss)
tensors = [torch.from_numpy(a) for a in arguments]
weights = [t.requires_grad_() for t in tensors[2:]]
value = compiled(tensors[0], tensors[1], *weights)
results = [g.numpy() for g in torch.autograd.grad(value, weights)]
""",
}
"""Each system's first call of the MLP gradient, between PROLOGUE and EPILOGUE."""


def environment(system: str, cache: pathlib.Path) -> dict[str, str]:
    env = dict(os.environ, OMP_NUM_THREADS="1", GRADIR_NUM_THREADS="1", JAX_PLATFORMS="cpu")
    env.pop("GRADIR_CACHE", None)
    # Bytecode as an installed package has it: written once (by the warm-up runs) under a
    # prefix of the scratch directory, so a checkout is left as it was.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(cache.parent / "pycache")
    if system == "gradir":
        env["GRADIR_CACHE_DIR"] = str(cache)
    if system == "torch.compile":
        env["TORCHINDUCTOR_CACHE_DIR"] = str(cache)
        env["TRITON_CACHE_DIR"] = str(cache / "triton")
    return env


def first_call(system: str, cache: pathlib.Path, work: pathlib.Path) -> tuple[float, list[np.ndarray]]:
    script = work / f"first_call_{system.replace('.', '_')}.py"  # not gradir.py: it would shadow gradir
    script.write_text(PROLOGUE + PROGRAMS[system] + EPILOGUE)
    output = work / f"{system}-out.npz"
    done = subprocess.run(
        [sys.executable, str(script), str(work / "inputs.npz"), str(output), str(cache)],
        capture_output=True, text=True, env=environment(system, cache), cwd=work,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"{system} failed:\n{done.stderr[-3000:]}")
    results = np.load(output)
    return float(done.stdout.strip().splitlines()[-1]), [results[f"arr_{i}"] for i in range(6)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(shape).astype(np.float32) * 0.5 for shape in SHAPES]
    arrays[1] = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 8)]
    columns = [f"{system} {kind}" for system in PROGRAMS for kind in ("cold", "warm")]
    times: dict[str, list[float]] = {column: [] for column in columns}
    reference = None
    with tempfile.TemporaryDirectory(prefix="gradir-latency-") as scratch:
        work = pathlib.Path(scratch)
        np.savez(work / "inputs.npz", **{f"a{i}": array for i, array in enumerate(arrays)})
        for system in PROGRAMS:  # warm-up, not timed: bytecode compiled, files in the OS's cache
            warm_up = work / f"cache-{system}-warm-up"
            warm_up.mkdir()
            first_call(system, warm_up, work)
        for repeat in range(args.repeats):
            for system in PROGRAMS:
                cache = work / f"cache-{system}-{repeat}"
                cache.mkdir()
                for kind in ("cold", "warm"):
                    seconds, results = first_call(system, cache, work)
                    times[f"{system} {kind}"].append(seconds)
                    if reference is None:
                        reference = results
                    for found, expected in zip(results, reference):
                        np.testing.assert_allclose(found, expected, rtol=1e-4, atol=1e-6)
                    print(f"  repeat {repeat + 1}/{args.repeats} {system} {kind}: {seconds:.3f} s", flush=True)
    jax_cold = min(times["jax cold"])
    rows = [
        {"case": column, "min_s": min(values), "median_s": statistics.median(values),
         "vs_jax_cold": min(values) / jax_cold, "runs_s": values}
        for column, values in times.items()
    ]  # fmt: skip
    header = "| import + compile + first call | min (s) | median (s) | min / JAX cold |"
    lines = [header, "| --- | ---: | ---: | ---: |"]
    lines += [f"| {r['case']} | {r['min_s']:.3f} | {r['median_s']:.3f} | {r['vs_jax_cold']:.2f}x |" for r in rows]
    table = "\n".join(lines)
    print(table)
    machine = f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "compile_latency.json").write_text(
        json.dumps({"machine": machine, "repeats": args.repeats, "rows": rows}, indent=1) + "\n"
    )
    (RESULTS / "compile_latency.md").write_text(
        "# Compile latency: the MLP gradient of examples/mlp.mlir\n\n"
        f"Fresh process per measurement, {args.repeats} repetitions, {machine}; "
        "`python bench/compile_latency.py` regenerates this page.\n\n" + table + "\n"
    )


if __name__ == "__main__":
    main()
