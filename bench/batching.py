"""CPU benchmark of batched derivatives: gradir's `jacobian` and `vmap` of `grad` against
`torch.func` and JAX, on one thread, in one run.

    python bench/batching.py [--repeats 30] [--no-write]

Two problems (float32):
* the Jacobian of a 256->256 tanh MLP (two layers, input `[1,256]`), with respect to the
  input: gradir `jacobian(mode="rev")`, `torch.func.jacrev`, JAX `jit(jacrev)`;
* per-example gradients of the MLP 784-256-10 (tanh, log-softmax cross-entropy) at batch
  64: gradir `vmap` of a function holding `autodiff.grad`, `torch.func.vmap(grad)`, JAX
  `jit(vmap(grad))`.

The process pins itself to one core and sets every runtime's thread count to 1 before
importing any tool (XLA reads its flags once per process). Each tool's result is first
checked against torch.func's; then calls alternate between the tools so all see the same
background load, and each time is the minimum over the repetitions (the median is
recorded too). Compile times are reported apart. Writes bench/results/batching.json and
batching.md. JAX is optional: a tool that is missing or fails is reported and skipped.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"


def limit_threads() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:1])
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "GRADIR_NUM_THREADS"):
        os.environ[variable] = "1"
    flags = "--xla_cpu_multi_thread_eigen=false"
    os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {flags}".strip()


import numpy as np  # noqa: E402  (only for checks; the tools import their runtimes after limit_threads)

JACOBIAN_SOURCE = """
func.func @mlp(%w1: tensor<256x256xf32>, %b1: tensor<256xf32>, %w2: tensor<256x256xf32>, %b2: tensor<256xf32>, %x: tensor<1x256xf32>) -> tensor<1x256xf32> {
  %h = autodiff.matmul %x, %w1 : (tensor<1x256xf32>, tensor<256x256xf32>) -> tensor<1x256xf32>
  %hb = autodiff.add %h, %b1 : (tensor<1x256xf32>, tensor<256xf32>) -> tensor<1x256xf32>
  %a = autodiff.tanh %hb : tensor<1x256xf32>
  %o = autodiff.matmul %a, %w2 : (tensor<1x256xf32>, tensor<256x256xf32>) -> tensor<1x256xf32>
  %ob = autodiff.add %o, %b2 : (tensor<1x256xf32>, tensor<256xf32>) -> tensor<1x256xf32>
  %t = autodiff.tanh %ob : tensor<1x256xf32>
  return %t : tensor<1x256xf32>
}
"""

PER_EXAMPLE_SOURCE = """
func.func @loss(%w1: tensor<784x256xf32>, %b1: tensor<256xf32>, %w2: tensor<256x10xf32>, %b2: tensor<10xf32>, %x: tensor<1x784xf32>, %y: tensor<1x10xf32>) -> tensor<f32> {
  %h = autodiff.matmul %x, %w1 : (tensor<1x784xf32>, tensor<784x256xf32>) -> tensor<1x256xf32>
  %hb = autodiff.add %h, %b1 : (tensor<1x256xf32>, tensor<256xf32>) -> tensor<1x256xf32>
  %a = autodiff.tanh %hb : tensor<1x256xf32>
  %o = autodiff.matmul %a, %w2 : (tensor<1x256xf32>, tensor<256x10xf32>) -> tensor<1x10xf32>
  %ob = autodiff.add %o, %b2 : (tensor<1x10xf32>, tensor<10xf32>) -> tensor<1x10xf32>
  %lp = autodiff.log_softmax %ob {dim = 1 : i64} : tensor<1x10xf32>
  %p = autodiff.mul %lp, %y : (tensor<1x10xf32>, tensor<1x10xf32>) -> tensor<1x10xf32>
  %s = autodiff.sum %p : tensor<1x10xf32> -> tensor<f32>
  %l = autodiff.neg %s : tensor<f32>
  return %l : tensor<f32>
}
func.func @grads(%w1: tensor<784x256xf32>, %b1: tensor<256xf32>, %w2: tensor<256x10xf32>, %b2: tensor<10xf32>, %x: tensor<1x784xf32>, %y: tensor<1x10xf32>) -> (tensor<784x256xf32>, tensor<256xf32>, tensor<256x10xf32>, tensor<10xf32>) {
  %g:4 = autodiff.grad @loss(%w1, %b1, %w2, %b2, %x, %y) {wrt = array<i64: 0, 1, 2, 3>} : (tensor<784x256xf32>, tensor<256xf32>, tensor<256x10xf32>, tensor<10xf32>, tensor<1x784xf32>, tensor<1x10xf32>) -> (tensor<784x256xf32>, tensor<256xf32>, tensor<256x10xf32>, tensor<10xf32>)
  return %g#0, %g#1, %g#2, %g#3 : tensor<784x256xf32>, tensor<256xf32>, tensor<256x10xf32>, tensor<10xf32>
}
"""

BATCH = 64
RTOL = 1e-3
"""Max |ours - torch.func| relative to max |torch.func| (float32)."""


def layer(rng, fan_in: int, fan_out: int):
    bound = 1.0 / np.sqrt(fan_in)
    return (rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32),
            rng.uniform(-bound, bound, (fan_out,)).astype(np.float32))


def problems(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    w1, b1 = layer(rng, 256, 256)
    w2, b2 = layer(rng, 256, 256)
    jacobian = [w1, b1, w2, b2, rng.standard_normal((1, 256)).astype(np.float32)]
    v1, c1 = layer(rng, 784, 256)
    v2, c2 = layer(rng, 256, 10)
    xs = rng.standard_normal((BATCH, 1, 784)).astype(np.float32)
    ys = np.eye(10, dtype=np.float32)[rng.integers(0, 10, BATCH)][:, None, :]
    return {"jacobian": jacobian, "per_example": [v1, c1, v2, c2, xs, ys]}


# -- the tools: each returns (compile seconds, function of no arguments) -----------------


def gradir_jacobian(args):
    import gradir

    start = time.perf_counter()
    jacobian = gradir.jacobian(JACOBIAN_SOURCE, "mlp", wrt=[4], mode="rev")
    jacobian(*args)
    return time.perf_counter() - start, lambda: jacobian(*args)


def gradir_per_example(args):
    import gradir

    start = time.perf_counter()
    per_example = gradir.vmap(PER_EXAMPLE_SOURCE, "grads", in_axes=(None, None, None, None, 0, 0))
    per_example(*args)
    return time.perf_counter() - start, lambda: per_example(*args)


def torch_mlp(torch, w1, b1, w2, b2, x):
    return torch.tanh(torch.tanh(x @ w1 + b1) @ w2 + b2)


def torch_loss(torch, w1, b1, w2, b2, x, y):
    return -(torch.log_softmax(torch.tanh(x @ w1 + b1) @ w2 + b2, 1) * y).sum()


def torch_jacobian(args):
    import torch

    torch.set_num_threads(1)
    tensors = [torch.from_numpy(a) for a in args]
    jacobian = torch.func.jacrev(lambda *a: torch_mlp(torch, *a), argnums=4)
    return 0.0, lambda: jacobian(*tensors).numpy()


def torch_per_example(args):
    import torch

    torch.set_num_threads(1)
    tensors = [torch.from_numpy(a) for a in args]
    grads = torch.func.vmap(
        torch.func.grad(lambda *a: torch_loss(torch, *a), argnums=(0, 1, 2, 3)),
        in_dims=(None, None, None, None, 0, 0),
    )
    return 0.0, lambda: [g.numpy() for g in grads(*tensors)]


def jax_jacobian(args):
    import jax
    import jax.numpy as jnp

    mlp = lambda w1, b1, w2, b2, x: jnp.tanh(jnp.tanh(x @ w1 + b1) @ w2 + b2)
    jacobian = jax.jit(jax.jacrev(mlp, argnums=4))
    arrays = [jnp.asarray(a) for a in args]
    start = time.perf_counter()
    jax.block_until_ready(jacobian(*arrays))
    return time.perf_counter() - start, lambda: np.asarray(jax.block_until_ready(jacobian(*arrays)))


def jax_per_example(args):
    import jax
    import jax.numpy as jnp

    def loss(w1, b1, w2, b2, x, y):
        return -(jax.nn.log_softmax(jnp.tanh(x @ w1 + b1) @ w2 + b2, axis=1) * y).sum()

    grads = jax.jit(jax.vmap(jax.grad(loss, argnums=(0, 1, 2, 3)), in_axes=(None,) * 4 + (0, 0)))
    arrays = [jnp.asarray(a) for a in args]
    start = time.perf_counter()
    jax.block_until_ready(grads(*arrays))
    return time.perf_counter() - start, lambda: [np.asarray(g) for g in jax.block_until_ready(grads(*arrays))]


CASES = {
    "jacobian": ("Jacobian of a 256->256 tanh MLP (wrt the input)",
                 {"gradir": gradir_jacobian, "torch.func": torch_jacobian, "JAX": jax_jacobian}),
    "per_example": (f"per-example gradients, MLP 784-256-10, batch {BATCH}",
                    {"gradir": gradir_per_example, "torch.func": torch_per_example, "JAX": jax_per_example}),
}
TOOL_NAMES = {"gradir": "gradir", "torch.func": "torch.func (jacrev / vmap(grad))",
              "JAX": "JAX jit(jacrev) / jit(vmap(grad))"}


def relative_error(ours, reference) -> float:
    ours = ours if isinstance(ours, (list, tuple)) else [ours]
    reference = reference if isinstance(reference, (list, tuple)) else [reference]
    worst = 0.0
    for a, b in zip(ours, reference):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        if a.shape != b.shape:
            raise AssertionError(f"shape {a.shape}, expected {b.shape}")
        worst = max(worst, float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-30)))
    return worst


def run_case(args, tools: dict, repeats: int) -> dict:
    functions, results = {}, {}
    for name, make in tools.items():
        try:
            compile_s, function = make(args)
        except Exception as error:  # noqa: BLE001 - a missing tool is reported, not fatal
            results[name] = {"skipped": f"{type(error).__name__}: {str(error).splitlines()[0][:120]}"}
            continue
        functions[name], results[name] = function, {"compile_s": compile_s}
    if "torch.func" not in functions:
        raise SystemExit(f"torch.func is needed as the reference: {results['torch.func']['skipped']}")
    reference = functions["torch.func"]()
    for name, function in functions.items():
        error = relative_error(function(), reference)
        results[name]["relative_error"] = error
        if error > RTOL:
            raise SystemExit(f"{name}: result differs from torch.func's by {error:.2e} (relative)")
    times: dict[str, list[float]] = {name: [] for name in functions}
    for _ in range(repeats):
        for name, function in functions.items():
            start = time.perf_counter()
            function()
            times[name].append(time.perf_counter() - start)
    for name, samples in times.items():
        results[name]["min_s"] = min(samples)
        results[name]["median_s"] = float(np.median(samples))
    return results


def markdown(report: dict) -> str:
    lines = [
        "# Batched derivatives on the CPU (one thread)",
        "",
        f"`python bench/batching.py`; {report['machine']}; float32; minimum over "
        f"{report['repeats']} alternating calls (median in brackets); compile time apart. "
        "Ratio: the tool's time over gradir's (above 1: gradir is faster).",
        "",
    ]
    for case, (title, _) in CASES.items():
        results = report["cases"][case]
        base = results.get("gradir", {}).get("min_s")
        lines += [f"## {title}", "", "| tool | time (ms) | vs gradir | compile (s) | rel. error |",
                  "| --- | --- | --- | --- | --- |"]
        for name, result in results.items():
            if "skipped" in result:
                lines.append(f"| {TOOL_NAMES[name]} | skipped: {result['skipped']} | | | |")
                continue
            ratio = f"{result['min_s'] / base:.2f}x" if base else ""
            lines.append(
                f"| {TOOL_NAMES[name]} | {result['min_s'] * 1e3:.3f} ({result['median_s'] * 1e3:.3f}) "
                f"| {ratio} | {result['compile_s']:.2f} | {result['relative_error']:.1e} |"
            )
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--no-write", action="store_true")
    options = parser.parse_args()
    data = problems()
    report = {
        "machine": f"{platform.processor() or platform.machine()}, {platform.python_version()}",
        "repeats": options.repeats,
        "cases": {case: run_case(data[case], tools, options.repeats) for case, (_, tools) in CASES.items()},
    }
    text = markdown(report)
    print(text)
    if not options.no_write:
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "batching.json").write_text(json.dumps(report, indent=2) + "\n")
        (RESULTS / "batching.md").write_text(text + "\n")


if __name__ == "__main__":
    limit_threads()  # before any tool imports its runtime; not when a test imports this file
    sys.exit(main())
