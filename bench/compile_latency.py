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

gradir also runs twice more per repetition with the cache off (`GRADIR_CACHE=0`: no lookup, no
entry stored): once as the others, with `functions="mlp_grad"` (only the function called is
compiled for itself, not `mlp_loss` nor the derived `mlp_loss_vjp_*` and `mlp_loss_grad_*`), and
once under `gradir.timing()`: that row is the compile alone, and its stages (the
minimum of each over the repetitions) say where a cold compile goes; "outside the stages" is
the imports and whatever no stage covers. The load average is read before and after: on a
shared machine it says how far the absolute times are from an idle one's. The table, the
stages and bench/results/compile_latency_analysis.md (hand-written) make this script's section
of bench/RESULTS.md.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from timing import write_section  # bench/timing.py, beside this script

ROOT = pathlib.Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
PAGE = RESULTS.parent / "RESULTS.md"
SECTION = ("<!-- section: bench/compile_latency.py -->", "<!-- end section: bench/compile_latency.py -->")
"""Markers of this script's section of bench/RESULTS.md (which bench/plot_gmm.py carries over)."""
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

CACHE_OFF = "gradir cold, cache off"
"""The row of gradir's compile alone (`GRADIR_CACHE=0`), timed as the others and watched by
`gradir.timing()`, whose top-level stages it prints after the time."""

CACHE_OFF_CALLED = "gradir cold, cache off, functions=mlp_grad"
"""The compile alone of the function called only: `gradir.compile(..., functions="mlp_grad")`."""

CALLED_PROGRAM = f"""
import gradir
exe = gradir.compile({str(MLP)!r}, functions="mlp_grad")
results = exe.mlp_grad(*arguments)
"""

STAGES_PROGRAM = f"""
import gradir
with gradir.timing() as report:
    exe = gradir.compile({str(MLP)!r})
    results = exe.mlp_grad(*arguments)
"""

STAGES_EPILOGUE = """
import json
stages = {}
for entry in report.stages():
    if entry.depth == 0:
        stages[entry.name] = stages.get(entry.name, 0.0) + entry.seconds
print(json.dumps(stages))
"""


def environment(system: str, cache: pathlib.Path) -> dict[str, str]:
    env = dict(os.environ, OMP_NUM_THREADS="1", GRADIR_NUM_THREADS="1", JAX_PLATFORMS="cpu")
    env.pop("GRADIR_CACHE", None)
    if system in (CACHE_OFF, CACHE_OFF_CALLED):
        env["GRADIR_CACHE"] = "0"
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


def first_call(
    system: str, cache: pathlib.Path, work: pathlib.Path, stages: dict[str, float] | None = None
) -> tuple[float, list[np.ndarray]]:
    """Seconds to the first call's results in a fresh process, and the results; for `CACHE_OFF`,
    each top-level stage's seconds go into `stages`."""
    script = work / f"first_call_{system.replace('.', '_').replace(',', '').replace(' ', '_')}.py"  # not gradir.py
    if system == CACHE_OFF:
        script.write_text(PROLOGUE + STAGES_PROGRAM + EPILOGUE + STAGES_EPILOGUE)
    elif system == CACHE_OFF_CALLED:
        script.write_text(PROLOGUE + CALLED_PROGRAM + EPILOGUE)
    else:
        script.write_text(PROLOGUE + PROGRAMS[system] + EPILOGUE)
    output = work / f"{system}-out.npz"
    done = subprocess.run(
        [sys.executable, str(script), str(work / "inputs.npz"), str(output), str(cache)],
        capture_output=True, text=True, env=environment(system, cache), cwd=work,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"{system} failed:\n{done.stderr[-3000:]}")
    results = np.load(output)
    lines = done.stdout.strip().splitlines()
    if system == CACHE_OFF:
        stages.update(json.loads(lines.pop()))
    return float(lines[-1]), [results[f"arr_{i}"] for i in range(6)]


def stage_table(stages: list[dict[str, float]], cold_off: float) -> str:
    """Each top-level stage of the cache-off compiles: its minimum over the repetitions and its
    share of the cache-off row's minimum."""
    names = list(dict.fromkeys(name for run in stages for name in run))
    best = {name: min(run.get(name, 0.0) for run in stages) for name in names}
    lines = ["| stage (gradir cold, cache off) | min (s) | share |", "| --- | ---: | ---: |"]
    for name, seconds in sorted(best.items(), key=lambda item: -item[1]):
        if seconds >= 0.005:
            lines.append(f"| `{name}` | {seconds:.3f} | {seconds / cold_off:.0%} |")
    small = sum(seconds for seconds in best.values() if seconds < 0.005)
    lines.append(f"| the {sum(s < 0.005 for s in best.values())} stages under 5 ms | {small:.3f} | {small / cold_off:.0%} |")
    outside = cold_off - sum(best.values())
    lines.append(f"| outside the stages (imports, context, the call) | {outside:.3f} | {outside / cold_off:.0%} |")
    return "\n".join(lines)


def measure(repeats: int) -> dict:
    """Every system cold and warm (and gradir with the cache off), `repeats` rounds, alternating:
    what compile_latency.json holds."""
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(shape).astype(np.float32) * 0.5 for shape in SHAPES]
    arrays[1] = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 8)]
    columns = [f"{system} {kind}" for system in PROGRAMS for kind in ("cold", "warm")]
    columns[1:1] = [CACHE_OFF, CACHE_OFF_CALLED]
    times: dict[str, list[float]] = {column: [] for column in columns}
    stages: list[dict[str, float]] = []
    reference = None
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="gradir-latency-") as scratch:
        work = pathlib.Path(scratch)
        np.savez(work / "inputs.npz", **{f"a{i}": array for i, array in enumerate(arrays)})
        for system in PROGRAMS:  # warm-up, not timed: bytecode compiled, files in the OS's cache
            warm_up = work / f"cache-{system}-warm-up"
            warm_up.mkdir()
            first_call(system, warm_up, work)
        for repeat in range(repeats):
            for system in PROGRAMS:
                cache = work / f"cache-{system}-{repeat}"
                cache.mkdir()
                kinds = [(system, "cold"), (system, "warm")]
                if system == "gradir":
                    kinds[1:1] = [(CACHE_OFF, ""), (CACHE_OFF_CALLED, "")]
                for runner, kind in kinds:
                    found_stages: dict[str, float] = {}
                    seconds, results = first_call(runner, cache, work, found_stages)
                    column = runner if runner in (CACHE_OFF, CACHE_OFF_CALLED) else f"{system} {kind}"
                    times[column].append(seconds)
                    if found_stages:
                        stages.append(found_stages)
                    if reference is None:
                        reference = results
                    for found, expected in zip(results, reference):
                        np.testing.assert_allclose(found, expected, rtol=1e-4, atol=1e-6)
                    print(f"  repeat {repeat + 1}/{repeats} {column}: {seconds:.3f} s", flush=True)
    load_after = os.getloadavg()
    jax_cold = min(times["jax cold"])
    rows = [
        {"case": column, "min_s": min(values), "median_s": statistics.median(values),
         "vs_jax_cold": min(values) / jax_cold, "runs_s": values}
        for column, values in times.items()
    ]  # fmt: skip
    return {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "repeats": repeats,
        "load_average_1_5_15_min_before_after": [round(value, 1) for value in (*load_before, *load_after)],
        "rows": rows,
        "cache_off_stages_s": stages,
    }


def publish(data: dict) -> None:
    """compile_latency.md and this script's section of bench/RESULTS.md, from `data` (the json)."""
    rows = data["rows"]
    header = "| import + compile + first call | min (s) | median (s) | min / JAX cold |"
    lines = [header, "| --- | ---: | ---: | ---: |"]
    lines += [f"| {r['case']} | {r['min_s']:.3f} | {r['median_s']:.3f} | {r['vs_jax_cold']:.2f}x |" for r in rows]
    table = "\n".join(lines)
    cache_off = next(r["min_s"] for r in rows if r["case"] == CACHE_OFF)
    stage_lines = stage_table(data["cache_off_stages_s"], cache_off)
    print(table + "\n\n" + stage_lines)
    load = data["load_average_1_5_15_min_before_after"]
    conditions = (
        f"Fresh process per measurement, {data['repeats']} repetitions, {data['machine']}, {data['date']}; "
        f"load average (1, 5, 15 min) {load[:3]} before and {load[3:]} after; "
        "`python bench/compile_latency.py` regenerates this page.\n\n"
    )
    body = conditions + table + "\n\nWhere the cache-off compile goes (`gradir.timing()`):\n\n" + stage_lines + "\n"
    (RESULTS / "compile_latency.md").write_text("# Compile latency: the MLP gradient of examples/mlp.mlir\n\n" + body)
    notes = RESULTS / "compile_latency_analysis.md"
    write_section(PAGE, section=SECTION, text=(
        "# Compile latency: the MLP gradient of examples/mlp.mlir (`bench/compile_latency.py`)\n\n" + body
        + (("\n## Analysis\n\n" + notes.read_text()) if notes.exists() else "")
    ))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="repetitions (minimum and median kept)")
    parser.add_argument("--from-json", action="store_true",
                        help="measure nothing: rewrite compile_latency.md and the RESULTS.md section from "
                        "compile_latency.json (after editing compile_latency_analysis.md)")  # fmt: skip
    args = parser.parse_args()
    if args.from_json:
        data = json.loads((RESULTS / "compile_latency.json").read_text())
    else:
        data = measure(args.repeats)
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / "compile_latency.json").write_text(json.dumps(data, indent=1) + "\n")
    publish(data)


if __name__ == "__main__":
    main()
