"""JAX programs `from_jax` writes as loops (scatter, sort, Cholesky, triangular solve):
their gradients in gradir against JAX `jit(grad)`, PyTorch eager and torch.compile, on
one thread and on all threads.

    python bench/jax_loops.py [--repeats N] [--quick]

`from_jax` turns `stablehlo.scatter`, `stablehlo.sort` and LAPACK's `potrf`/`trsm` into
the loops their specifications describe (gradir/jax_scatter.py, jax_sort.py,
jax_linalg.py), and gradir differentiates those loops like any other. This measures what
that costs: the reverse of a loop caches what it reads, and two rewrites keep that
cheap (a gradient summed into one element inside the scatter's bounds check,
`AccumulateIntoBranches`; a state written element by element rebuilt from the elements
it overwrote, `loop_undo`). Each case is exported from the JAX function, its gradient
checked against JAX's and PyTorch's before timing; the PyTorch versions use the library
calls (`index_add_`, `scatter_reduce`, `torch.sort`, `torch.linalg.cholesky`,
`solve_triangular`). Each thread setting runs in a child process (thread pools are sized
at import: OMP/MKL/OPENBLAS/GRADIR_NUM_THREADS, and XLA's
`--xla_cpu_multi_thread_eigen=false` for one thread). Times: minimum over `--repeats`
rounds after a warm-up, the tools alternating. Writes bench/results/jax_loops.json and
jax_loops.md, with jax_loops_analysis.md (hand-written) appended (`--quick`: small sizes,
nothing written).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import platform
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from timing import minimum_seconds, run_worker  # bench/timing.py, beside this script

ROOT = pathlib.Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
ANALYSIS = RESULTS / "jax_loops_analysis.md"
"""Hand-written: earlier runs' tables and what the figures mean; appended to jax_loops.md."""
TOOLS = ("gradir", "jax", "torch_eager", "torch_compile")
TOOL_NAMES = {
    "gradir": "gradir",
    "jax": "JAX jit(grad)",
    "torch_eager": "PyTorch eager",
    "torch_compile": "torch.compile",
}


def cases(quick: bool) -> list[dict]:
    """name, JAX loss, PyTorch loss (same math), inputs (f32), indices of the differentiated ones."""
    rng = np.random.default_rng(0)
    edges, features, nodes = (200, 8, 50) if quick else (2000, 16, 500)
    ids = np.concatenate([np.arange(nodes), rng.integers(0, nodes, edges - nodes)]).astype(np.int32)
    x = rng.uniform(-1, 1, (edges, 8)).astype(np.float32)
    w = rng.uniform(-0.5, 0.5, (8, features)).astype(np.float32)
    n_sort = 64 if quick else 256
    values = rng.permutation(n_sort).astype(np.float32) / n_sort  # distinct: no ties to break
    n_gp = 32 if quick else 128
    a = (rng.standard_normal((n_gp, n_gp)) / np.sqrt(n_gp)).astype(np.float32)
    y = rng.standard_normal(n_gp).astype(np.float32)

    def segment_sum_jax(jax, jnp):
        return lambda x, w: jnp.sum(jax.ops.segment_sum(x @ w, jnp.asarray(ids), nodes) ** 2)

    def segment_sum_torch(torch):
        index = torch.tensor(ids, dtype=torch.int64)
        return lambda x, w: torch.sum(torch.zeros(nodes, features).index_add_(0, index, x @ w) ** 2)

    def segment_max_jax(jax, jnp):
        return lambda x, w: jnp.sum(jnp.tanh(jax.ops.segment_max(x @ w, jnp.asarray(ids), nodes)))

    def segment_max_torch(torch):
        index = torch.tensor(ids, dtype=torch.int64)[:, None].expand(edges, features)
        return lambda x, w: torch.sum(torch.tanh(
            torch.zeros(nodes, features).scatter_reduce(0, index, x @ w, "amax", include_self=False)))  # fmt: skip

    def sort_jax(jax, jnp):
        weights = jnp.arange(n_sort, dtype=jnp.float32)
        return lambda v: jnp.sum(jnp.sort(jnp.sin(v)) * weights)

    def sort_torch(torch):
        weights = torch.arange(n_sort, dtype=torch.float32)
        return lambda v: torch.sum(torch.sort(torch.sin(v)).values * weights)

    def gp_jax(jax, jnp):
        def loss(a, y):
            k = a @ a.T + jnp.eye(n_gp, dtype=jnp.float32)
            chol = jnp.linalg.cholesky(k)
            z = jax.scipy.linalg.solve_triangular(chol, y, lower=True)
            return 0.5 * jnp.sum(z**2) + jnp.sum(jnp.log(jnp.diag(chol)))

        return loss

    def gp_torch(torch):
        def loss(a, y):
            chol = torch.linalg.cholesky(a @ a.T + torch.eye(n_gp))
            z = torch.linalg.solve_triangular(chol, y[:, None], upper=False)
            return 0.5 * torch.sum(z**2) + torch.sum(torch.log(torch.diagonal(chol)))

        return loss

    return [
        {"name": f"segment_sum, {edges}x{features} updates into {nodes} rows", "jax": segment_sum_jax,
         "torch": segment_sum_torch, "inputs": [x, w]},
        {"name": f"segment_max, {edges}x{features} updates into {nodes} rows", "jax": segment_max_jax,
         "torch": segment_max_torch, "inputs": [x, w]},
        {"name": f"sort of {n_sort}", "jax": sort_jax, "torch": sort_torch, "inputs": [values]},
        {"name": f"GP marginal likelihood, Cholesky + triangular solve, n = {n_gp}", "jax": gp_jax,
         "torch": gp_torch, "inputs": [a, y]},
    ]  # fmt: skip


def gradient_wrapper(text: str, count: int) -> str:
    """`text` (one exported function `@loss`) with `@grad_loss` of all its arguments."""
    import re

    signature = re.search(r"^func\.func @loss\((.*)\) -> (.*) \{$", text, re.MULTILINE)
    types = [part.split(": ", 1)[1] for part in signature.group(1).split(", ")]
    arguments = ", ".join(f"%a{k}: {t}" for k, t in enumerate(types))
    names = ", ".join(f"%a{k}" for k in range(count))
    results = ", ".join(types)
    wrt = ", ".join(map(str, range(count)))
    return text + (
        f"func.func @grad_loss({arguments}) -> ({results}) {{\n"
        f"  %g:{count} = autodiff.grad @loss({names}) {{wrt = array<i64: {wrt}>}} : ({results}) -> ({results})\n"
        f"  return {', '.join(f'%g#{k}' for k in range(count))} : {results}\n}}\n"
    )


def row(case: dict, repeats: int) -> dict:
    import jax
    import jax.numpy as jnp
    import torch

    import gradir

    inputs = case["inputs"]
    count = len(inputs)
    jax_loss = case["jax"](jax, jnp)
    start = time.perf_counter()
    text = gradir.from_jax(jax_loss, *inputs, name="loss")
    executable = gradir.compile(gradient_wrapper(text, count))
    compile_s = time.perf_counter() - start

    jax_gradient = jax.jit(jax.grad(jax_loss, argnums=tuple(range(count))))
    jax_inputs = [jnp.asarray(a) for a in inputs]
    tensors = [torch.tensor(a, requires_grad=True) for a in inputs]
    torch_loss = case["torch"](torch)
    compiled_loss = torch.compile(torch_loss)

    def torch_step(loss):
        return lambda: [g.numpy() for g in torch.autograd.grad(loss(*tensors), tensors)]

    calls = {
        "gradir": lambda: executable.grad_loss(*inputs) if count > 1 else [executable.grad_loss(*inputs)],
        "jax": lambda: [np.asarray(g) for g in jax.block_until_ready(jax_gradient(*jax_inputs))],
        "torch_eager": torch_step(torch_loss),
        "torch_compile": torch_step(compiled_loss),
    }
    expected = calls["jax"]()
    for tool, call in calls.items():
        for ours, theirs in zip(call(), expected, strict=True):
            scale = float(np.abs(theirs).max()) or 1.0
            np.testing.assert_allclose(ours, theirs, rtol=2e-3, atol=2e-4 * scale, err_msg=f"{case['name']}: {tool}")
    best = minimum_seconds(calls, repeats)
    return {
        "benchmark": case["name"],
        **{f"{tool}_ms": best[tool] * 1e3 for tool in TOOLS},
        "gradir_compile_s": compile_s,
    }


def worker(threads: int, repeats: int, quick: bool) -> dict:
    import torch

    torch.set_num_threads(threads)
    return {"threads": threads, "rows": [row(case, repeats) for case in cases(quick)]}


def table(results: list[dict]) -> str:
    lines = [
        "| benchmark | threads | " + " | ".join(f"{TOOL_NAMES[t]} ms" for t in TOOLS)
        + " | gradir/JAX | gradir/eager | gradir/compile | gradir compile s |",
        "| --- | ---: | " + " | ".join("---:" for _ in TOOLS) + " | ---: | ---: | ---: | ---: |",
    ]  # fmt: skip
    for result in results:
        for r in result["rows"]:
            g = r["gradir_ms"]
            lines.append(
                f"| {r['benchmark']} | {result['threads']} | " + " | ".join(f"{r[f'{t}_ms']:.3f}" for t in TOOLS)
                + f" | {g / r['jax_ms']:.2f} | {g / r['torch_eager_ms']:.2f} | {g / r['torch_compile_ms']:.2f} "
                f"| {r['gradir_compile_s']:.1f} |"
            )  # fmt: skip
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10, help="timed calls per tool (minimum kept)")
    parser.add_argument("--quick", action="store_true", help="small sizes, nothing written")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        print("RESULT " + json.dumps(worker(args.worker, args.repeats, args.quick)))
        return
    results = [run_worker(__file__, threads, args.repeats, args.quick) for threads in sorted({1, os.cpu_count() or 1})]
    text = table(results)
    print(text)
    if args.quick:
        return
    meta = {"machine": platform.machine(), "cpu_count": os.cpu_count(), "python": platform.python_version(),
            "date": time.strftime("%Y-%m-%d %H:%M"), "repeats": args.repeats,
            "load_average_1_5_15_min": [round(load, 1) for load in os.getloadavg()]}  # fmt: skip
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "jax_loops.json").write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")
    (RESULTS / "jax_loops.md").write_text(
        "# Gradients of JAX programs that `from_jax` writes as loops\n\n"
        "`python bench/jax_loops.py`: scatter (segment_sum, segment_max), sort and LAPACK's Cholesky and "
        "triangular solve, exported from JAX and differentiated by gradir, against JAX jit(grad), PyTorch "
        "eager and torch.compile (library calls). f32, milliseconds per gradient (minimum); ratios are "
        "gradir's time over the other tool's (below 1: gradir is faster). Shared, noisy machine: read "
        f"the ratios. Measured {meta['date']}, {meta['cpu_count']} cores, load {meta['load_average_1_5_15_min']}.\n\n"
        + text
        + "\n"
        + (("\n" + ANALYSIS.read_text()) if ANALYSIS.exists() else "")
    )


if __name__ == "__main__":
    main()
