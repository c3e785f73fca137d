"""CPU benchmark: gradir's compiled gradients against PyTorch eager, torch.compile
and JAX `jit(grad)` on the same inputs, with one thread and with all threads; the
MLP gradient's scaling with batch and width, and the three matmuls of a linear
layer's gradient at 8192 x 2048 x 784, against the measured 1-thread matmul peak.

    python bench/cpu.py [--repeats N] [--quick]

Each thread setting runs in a child process of its own (`--worker THREADS`):
thread pools are sized at import, from OMP_NUM_THREADS, OPENBLAS_NUM_THREADS,
MKL_NUM_THREADS and gradir's GRADIR_NUM_THREADS (all set to THREADS), XLA's
`--xla_cpu_multi_thread_eigen=false` for one thread, and `torch.set_num_threads`.
The peak is numpy's f32 matmul (8192 x 784 @ 784 x 2048) on one thread, measured
in the same child. Times are the minimum over `--repeats` calls after a warm-up,
the tools' calls alternating; every gradient is checked against PyTorch before it
is timed. Writes bench/results/cpu.json, cpu.md and cpu_scaling.png, and its section
of bench/RESULTS.md (with bench/results/cpu_analysis.md as its analysis);
`--quick`: fewer sizes, nothing written; `--republish`: the files again from cpu.json.
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
from timing import minimum_seconds, run_worker, write_section  # bench/timing.py, beside this script

RESULTS = pathlib.Path(__file__).resolve().parent / "results"
PAGE = RESULTS.parent / "RESULTS.md"
SECTION = ("<!-- section: bench/cpu.py -->", "<!-- end section: bench/cpu.py -->")
"""Markers of this script's section of bench/RESULTS.md (which bench/plot_gmm.py carries over)."""
N = 1 << 20

ELEMENTWISE = f"""
func.func @f(%x: tensor<{N}xf32>, %y: tensor<{N}xf32>) -> tensor<f32> {{
  %s = autodiff.sin %x : tensor<{N}xf32>
  %e = autodiff.exp %y : tensor<{N}xf32>
  %p = autodiff.mul %s, %e : (tensor<{N}xf32>, tensor<{N}xf32>) -> tensor<{N}xf32>
  %xy = autodiff.mul %x, %y : (tensor<{N}xf32>, tensor<{N}xf32>) -> tensor<{N}xf32>
  %t = autodiff.tanh %xy : tensor<{N}xf32>
  %a = autodiff.add %p, %t : (tensor<{N}xf32>, tensor<{N}xf32>) -> tensor<{N}xf32>
  %r = autodiff.sum %a : tensor<{N}xf32> -> tensor<f32>
  return %r : tensor<f32>
}}
func.func @df(%x: tensor<{N}xf32>, %y: tensor<{N}xf32>) -> (tensor<{N}xf32>, tensor<{N}xf32>) {{
  %gx, %gy = autodiff.grad @f(%x, %y) : (tensor<{N}xf32>, tensor<{N}xf32>) -> (tensor<{N}xf32>, tensor<{N}xf32>)
  return %gx, %gy : tensor<{N}xf32>, tensor<{N}xf32>
}}
"""

def mlp_source(B: int, H: int, I: int = 784, O: int = 10) -> str:
    """The MLP I-H-O classifier's loss and its gradient (`@df`) for batch B, as MLIR."""
    return f"""
func.func @loss(%x: tensor<{B}x{I}xf32>, %labels: tensor<{B}x{O}xf32>, %w1: tensor<{I}x{H}xf32>,
                %b1: tensor<{H}xf32>, %w2: tensor<{H}x{O}xf32>, %b2: tensor<{O}xf32>) -> tensor<f32> {{
  %h = autodiff.matmul %x, %w1 : (tensor<{B}x{I}xf32>, tensor<{I}x{H}xf32>) -> tensor<{B}x{H}xf32>
  %z = autodiff.add %h, %b1 : (tensor<{B}x{H}xf32>, tensor<{H}xf32>) -> tensor<{B}x{H}xf32>
  %a = autodiff.relu %z : tensor<{B}x{H}xf32>
  %o = autodiff.matmul %a, %w2 : (tensor<{B}x{H}xf32>, tensor<{H}x{O}xf32>) -> tensor<{B}x{O}xf32>
  %logits = autodiff.add %o, %b2 : (tensor<{B}x{O}xf32>, tensor<{O}xf32>) -> tensor<{B}x{O}xf32>
  %logp = autodiff.log_softmax %logits {{dim = 1 : i64}} : tensor<{B}x{O}xf32>
  %picked = autodiff.mul %logp, %labels : (tensor<{B}x{O}xf32>, tensor<{B}x{O}xf32>) -> tensor<{B}x{O}xf32>
  %total = autodiff.sum %picked : tensor<{B}x{O}xf32> -> tensor<f32>
  %loss = autodiff.neg %total : tensor<f32>
  return %loss : tensor<f32>
}}
func.func @df(%x: tensor<{B}x{I}xf32>, %labels: tensor<{B}x{O}xf32>, %w1: tensor<{I}x{H}xf32>,
              %b1: tensor<{H}xf32>, %w2: tensor<{H}x{O}xf32>, %b2: tensor<{O}xf32>)
    -> (tensor<{I}x{H}xf32>, tensor<{H}xf32>, tensor<{H}x{O}xf32>, tensor<{O}xf32>) {{
  %g:4 = autodiff.grad @loss(%x, %labels, %w1, %b1, %w2, %b2) {{wrt = array<i64: 2, 3, 4, 5>}}
      : (tensor<{B}x{I}xf32>, tensor<{B}x{O}xf32>, tensor<{I}x{H}xf32>, tensor<{H}xf32>, tensor<{H}x{O}xf32>, tensor<{O}xf32>)
      -> (tensor<{I}x{H}xf32>, tensor<{H}xf32>, tensor<{H}x{O}xf32>, tensor<{O}xf32>)
  return %g#0, %g#1, %g#2, %g#3 : tensor<{I}x{H}xf32>, tensor<{H}xf32>, tensor<{H}x{O}xf32>, tensor<{O}xf32>
}}
"""


MLP_SIZES = [(64, 256), (64, 2048), (1024, 256), (1024, 2048), (8192, 256), (8192, 2048)]
"""(batch, hidden) of the MLP 784-hidden-10 gradient."""
QUICK_MLP_SIZES = [(64, 256), (1024, 2048)]
PEAK_SHAPE = (8192, 784, 2048)
"""numpy's f32 `(M x K) @ (K x N)` whose 1-thread speed is the peak."""
TOOLS = ("gradir", "torch_eager", "torch_compile", "jax")
TOOL_NAMES = {"gradir": "gradir", "torch_eager": "PyTorch eager", "torch_compile": "torch.compile", "jax": "JAX jit(grad)"}

# A linear layer's three products at batch 8192, 784 inputs, 2048 outputs, written
# as reverse mode writes them (a transpose feeding a matmul).
# name: (M, K, N, A stored transposed, B stored transposed)
MATMULS = {
    "forward x W (8192x784 @ 784x2048)": (8192, 784, 2048, False, False),
    "weight gradient x^T dz (784x8192 @ 8192x2048)": (784, 8192, 2048, True, False),
    "input gradient dz W^T (8192x2048 @ 2048x784)": (8192, 2048, 784, False, True),
}


def mlp_flops(batch: int, hidden: int, inputs: int = 784, outputs: int = 10) -> int:
    """Floating-point operations of the MLP gradient's matmuls: x W1 and x^T dz (784 x hidden each),
    a W2, a^T dlogits and dlogits W2^T (hidden x 10 each)."""
    return 2 * batch * hidden * (2 * inputs + 3 * outputs)


def matmul_source(m: int, k: int, n: int, a_transposed: bool, b_transposed: bool) -> str:
    """`@f(a, b)`: `op(a) @ op(b)`, each transposed operand through `autodiff.transpose`."""
    a_type = f"tensor<{k}x{m}xf32>" if a_transposed else f"tensor<{m}x{k}xf32>"
    b_type = f"tensor<{n}x{k}xf32>" if b_transposed else f"tensor<{k}x{n}xf32>"
    lines, left, right = [], "%a", "%b"
    if a_transposed:
        lines.append(f"%at = autodiff.transpose %a {{permutation = array<i64: 1, 0>}} : {a_type} -> tensor<{m}x{k}xf32>")
        left = "%at"
    if b_transposed:
        lines.append(f"%bt = autodiff.transpose %b {{permutation = array<i64: 1, 0>}} : {b_type} -> tensor<{k}x{n}xf32>")
        right = "%bt"
    body = "".join(f"  {line}\n" for line in lines)
    return (
        f"func.func @f(%a: {a_type}, %b: {b_type}) -> tensor<{m}x{n}xf32> {{\n{body}"
        f"  %c = autodiff.matmul {left}, {right} : (tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32>\n"
        f"  return %c : tensor<{m}x{n}xf32>\n}}\n"
    )


def peak_call():
    """numpy's f32 matmul at PEAK_SHAPE (on however many threads its BLAS was given), and its flops.

    Timed in the same rounds as the tools it is compared with, so that the fraction
    of the peak is a ratio measured in one run on this shared, noisy machine."""
    m, k, n = PEAK_SHAPE
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((m, k), dtype=np.float32), rng.standard_normal((k, n), dtype=np.float32)
    return (lambda: a @ b), 2 * m * k * n


# The same gradients in PyTorch (eager and torch.compile) and JAX.

def elementwise_torch(torch, x, y):
    return torch.sum(torch.sin(x) * torch.exp(y) + torch.tanh(x * y))


def mlp_torch(torch, x, labels, w1, b1, w2, b2):
    logits = torch.relu(x @ w1 + b1) @ w2 + b2
    return -(torch.log_softmax(logits, dim=1) * labels).sum()


def elementwise_jax(jnp, x, y):
    return jnp.sum(jnp.sin(x) * jnp.exp(y) + jnp.tanh(x * y))


def mlp_jax(jnp, jax, x, labels, w1, b1, w2, b2):
    logits = jax.nn.relu(x @ w1 + b1) @ w2 + b2
    return -jnp.sum(jax.nn.log_softmax(logits, axis=1) * labels)


def gradient_callables(source: str, torch_loss, jax_loss, inputs: list, wrt: list[int]) -> tuple[dict, dict]:
    """({tool: call computing the gradient as numpy arrays}, {tool: compile seconds})."""
    import gradir
    import jax
    import torch

    compile_seconds = {}
    start = time.perf_counter()
    executable = gradir.compile(source)
    compile_seconds["gradir"] = time.perf_counter() - start

    tensors = [torch.tensor(a, requires_grad=i in wrt) for i, a in enumerate(inputs)]
    wrt_tensors = [tensors[i] for i in wrt]

    def torch_step(loss):
        return lambda: [g.numpy() for g in torch.autograd.grad(loss(torch, *tensors), wrt_tensors)]

    compiled_loss = torch.compile(lambda *args: torch_loss(torch, *args))
    start = time.perf_counter()
    torch_step(lambda _, *args: compiled_loss(*args))()
    compile_seconds["torch_compile"] = time.perf_counter() - start

    jax_gradient = jax.jit(jax.grad(jax_loss, argnums=tuple(wrt)))
    jax_inputs = [jax.numpy.asarray(a) for a in inputs]
    start = time.perf_counter()
    jax.block_until_ready(jax_gradient(*jax_inputs))
    compile_seconds["jax"] = time.perf_counter() - start

    calls = {
        "gradir": lambda: executable.df(*inputs),
        "torch_eager": torch_step(torch_loss),
        "torch_compile": torch_step(lambda _, *args: compiled_loss(*args)),
        "jax": lambda: [np.asarray(g) for g in jax.block_until_ready(jax_gradient(*jax_inputs))],
    }
    return calls, compile_seconds


def check_gradients(calls: dict) -> None:
    """Every tool's gradient equals PyTorch eager's up to f32 rounding and relu ties.

    A pre-activation within rounding of 0 may be positive for one tool and not for
    another (each sums the forward matmul in its own order): that example then adds
    its whole row to one column of dW1 for one tool only (a 784-element column,
    0.04% of dW1 at hidden 2048). So all but 0.1% of the elements must agree to
    2e-3 relative, and the whole gradient to 1e-2 in norm; a wrong gradient misses both."""
    expected = calls["torch_eager"]()
    for tool, call in calls.items():
        for ours, theirs in zip(call(), expected, strict=True):
            ours, theirs = np.asarray(ours, dtype=np.float64), np.asarray(theirs, dtype=np.float64)
            scale = float(np.abs(theirs).max()) or 1.0
            close = np.isclose(ours, theirs, rtol=2e-3, atol=1e-4 * scale)
            error = float(np.linalg.norm(ours - theirs) / (np.linalg.norm(theirs) or 1.0))
            assert ours.shape == theirs.shape and close.mean() >= 0.999 and error <= 1e-2, (
                f"{tool}: {np.count_nonzero(~close)} of {close.size} elements differ from PyTorch eager's, "
                f"relative error {error:.2e}"
            )


def gradient_row(name: str, source: str, torch_loss, jax_loss, inputs: list, wrt: list[int],
                 flops: int | None, repeats: int) -> dict:
    calls, compile_seconds = gradient_callables(source, torch_loss, jax_loss, inputs, wrt)
    check_gradients(calls)
    peak, peak_flops = peak_call()
    best = minimum_seconds({**calls, "peak": peak}, repeats)
    row = {"benchmark": name, **{f"{tool}_ms": best[tool] * 1e3 for tool in TOOLS}}
    row["peak_gflops"] = peak_flops / best["peak"] / 1e9
    row.update({f"{tool}_compile_s": seconds for tool, seconds in compile_seconds.items()})
    if flops is not None:
        row.update({f"{tool}_gflops": flops / best[tool] / 1e9 for tool in TOOLS})
    return row


def mlp_inputs(batch: int, hidden: int, inputs: int = 784, outputs: int = 10) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    shapes = [(batch, inputs), (batch, outputs), (inputs, hidden), (hidden,), (hidden, outputs), (outputs,)]
    arrays = [(rng.standard_normal(s) * 0.1).astype(np.float32) for s in shapes]
    arrays[1] = np.eye(outputs, dtype=np.float32)[rng.integers(0, outputs, batch)]
    return arrays


def matmul_row(name: str, m: int, k: int, n: int, a_transposed: bool, b_transposed: bool, repeats: int) -> dict:
    import gradir

    rng = np.random.default_rng(1)
    a = rng.standard_normal((k, m) if a_transposed else (m, k), dtype=np.float32)
    b = rng.standard_normal((n, k) if b_transposed else (k, n), dtype=np.float32)
    executable = gradir.compile(matmul_source(m, k, n, a_transposed, b_transposed))
    # numpy is given the operands as the product reads them (its BLAS packs transposed views itself).
    left, right = (a.T if a_transposed else a), (b.T if b_transposed else b)
    expected = left @ right
    np.testing.assert_allclose(executable.f(a, b), expected, rtol=1e-3, atol=1e-3 * float(np.abs(expected).max()))
    peak, peak_flops = peak_call()
    best = minimum_seconds({"gradir": lambda: executable.f(a, b), "numpy": lambda: left @ right, "peak": peak}, repeats)
    flops = 2 * m * k * n
    return {"matmul": name, "m": m, "k": k, "n": n, "peak_gflops": peak_flops / best["peak"] / 1e9,
            "gradir_gflops": flops / best["gradir"] / 1e9, "numpy_gflops": flops / best["numpy"] / 1e9}  # fmt: skip


def worker(threads: int, repeats: int, quick: bool) -> dict:
    """One thread setting's measurements (run in a child whose environment sets the threads)."""
    import torch

    torch.set_num_threads(threads)
    rng = np.random.default_rng(0)
    rows = []
    x = rng.uniform(-1, 1, N).astype(np.float32)
    y = rng.uniform(-1, 1, N).astype(np.float32)
    import jax.numpy as jnp
    import jax

    rows.append(gradient_row("elementwise grad, 2 x 1M f32", ELEMENTWISE, elementwise_torch,
                             lambda x, y: elementwise_jax(jnp, x, y), [x, y], [0, 1], None, repeats))  # fmt: skip
    for batch, hidden in QUICK_MLP_SIZES if quick else MLP_SIZES:
        row = gradient_row(
            f"MLP 784-{hidden}-10 grad, batch {batch} f32", mlp_source(batch, hidden), mlp_torch,
            lambda *args: mlp_jax(jnp, jax, *args), mlp_inputs(batch, hidden), [2, 3, 4, 5],
            mlp_flops(batch, hidden), repeats,
        )
        rows.append({**row, "batch": batch, "hidden": hidden})
    matmuls = [] if quick else [matmul_row(name, *shape, repeats) for name, shape in MATMULS.items()]
    return {"threads": threads, "torch_threads": torch.get_num_threads(), "rows": rows, "matmuls": matmuls}


def tables(results: list[dict]) -> str:
    """The three Markdown tables: tools side by side, MLP scaling, the three matmuls."""
    shape = "x".join(map(str, PEAK_SHAPE))
    out = ["## Gradients: gradir against PyTorch eager, torch.compile and JAX jit(grad)\n",
           "Milliseconds per gradient (minimum); ratios are gradir's time over the other tool's "
           "(below 1: gradir is faster).\n",
           "| benchmark | threads | gradir ms | PyTorch eager ms | torch.compile ms | JAX jit(grad) ms "
           "| gradir/eager | gradir/compile | gradir/JAX | compile s: gradir, torch.compile, JAX |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]  # fmt: skip
    for result in results:
        for r in result["rows"]:
            g = r["gradir_ms"]
            out.append(
                f"| {r['benchmark']} | {result['threads']} | {g:.2f} | {r['torch_eager_ms']:.2f} | "
                f"{r['torch_compile_ms']:.2f} | {r['jax_ms']:.2f} | {g / r['torch_eager_ms']:.2f} | "
                f"{g / r['torch_compile_ms']:.2f} | {g / r['jax_ms']:.2f} | "
                f"{r['gradir_compile_s']:.2f}, {r['torch_compile_compile_s']:.2f}, {r['jax_compile_s']:.2f} |"
            )
    out += ["", "## MLP gradient scaling\n",
            "GFLOP/s of the gradient's matmuls (`mlp_flops`), and gradir's as a fraction of the peak: "
            f"numpy's f32 matmul {shape} on as many threads, timed in the same rounds as the row "
            "(with 1 thread, the 1-thread peak).\n",
            "| batch | hidden | threads | gradir ms | gradir GFLOP/s | peak GFLOP/s | gradir / peak "
            "| PyTorch eager GFLOP/s | torch.compile GFLOP/s | JAX GFLOP/s |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]  # fmt: skip
    for result in results:
        for r in result["rows"]:
            if "batch" not in r:
                continue
            out.append(
                f"| {r['batch']} | {r['hidden']} | {result['threads']} | {r['gradir_ms']:.2f} | "
                f"{r['gradir_gflops']:.1f} | {r['peak_gflops']:.1f} | {r['gradir_gflops'] / r['peak_gflops']:.0%} | "
                f"{r['torch_eager_gflops']:.1f} | {r['torch_compile_gflops']:.1f} | {r['jax_gflops']:.1f} |"
            )
    if any(result["matmuls"] for result in results):
        out += ["", "## The three matmuls of a linear layer's gradient (f32, 8192 x 2048 x 784)\n",
                f"Target: gradir at >= 85% of the 1-thread peak (numpy {shape}, timed in the same rounds) on one "
                "thread. numpy is given the transposed operands as views (its BLAS packs them itself).\n",
                "| matmul | threads | gradir GFLOP/s | numpy GFLOP/s | peak GFLOP/s | gradir / peak | gradir / numpy |",
                "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]  # fmt: skip
        for result in results:
            for r in result["matmuls"]:
                out.append(
                    f"| {r['matmul']} | {result['threads']} | {r['gradir_gflops']:.1f} | {r['numpy_gflops']:.1f} | "
                    f"{r['peak_gflops']:.1f} | {r['gradir_gflops'] / r['peak_gflops']:.0%} | "
                    f"{r['gradir_gflops'] / r['numpy_gflops']:.2f} |"
                )
    return "\n".join(out) + "\n"


def plot(results: list[dict], path: pathlib.Path) -> None:
    """GFLOP/s of each tool's MLP gradient against the batch, per thread setting."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(results), figsize=(5.5 * len(results), 4.2), squeeze=False)
    colors = {"gradir": "C0", "torch_eager": "C1", "torch_compile": "C2", "jax": "C3"}
    for axis, result in zip(axes[0], results):
        rows = [r for r in result["rows"] if "batch" in r]
        for hidden, style in zip(sorted({r["hidden"] for r in rows}), ("-", "--")):
            line = sorted((r["batch"], r) for r in rows if r["hidden"] == hidden)
            for tool in TOOLS:
                axis.plot([b for b, _ in line], [r[f"{tool}_gflops"] for _, r in line], style, marker="o",
                          color=colors[tool], label=f"{TOOL_NAMES[tool]}, hidden {hidden}")  # fmt: skip
        peak = max(r["peak_gflops"] for r in rows)
        axis.axhline(peak, color="grey", linestyle=":", label=f"numpy matmul ({peak:.0f})")
        axis.set_xscale("log", base=2)
        axis.set_xlabel("batch")
        axis.set_ylabel("GFLOP/s (matmul flops / gradient time)")
        axis.set_title(f"MLP 784-hidden-10 gradient, f32, {result['threads']} thread(s)")
        axis.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


def publish(results: list[dict], meta: dict) -> None:
    """cpu.json, cpu.md, the plot and this script's section of bench/RESULTS.md."""
    text = tables(results)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "cpu.json").write_text(json.dumps({"meta": meta, "results": results}, indent=2) + "\n")
    header = (
        f"Generated by `python bench/cpu.py` ({meta}). Minimum of {meta['repeats']} calls per tool after a "
        "warm-up, tools alternating, each thread setting in a child process of its own; every gradient "
        "is checked against PyTorch eager first.\n\n"
    )
    (RESULTS / "cpu.md").write_text("# CPU gradients: gradir against PyTorch eager, torch.compile and JAX\n\n" + header + text)
    plot(results, RESULTS / "cpu_scaling.png")
    notes = RESULTS / "cpu_analysis.md"
    write_section(PAGE, section=SECTION, text=(
        "# CPU gradients: gradir against PyTorch eager, torch.compile and JAX (`bench/cpu.py`)\n\n" + header
        + "![MLP gradient GFLOP/s against the batch](results/cpu_scaling.png)\n\n"
        + text.replace("\n## ", "\n### ")
        + (("\n### Analysis\n\n" + notes.read_text()) if notes.exists() else "")
    ))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed calls per tool (minimum kept)")
    parser.add_argument("--quick", action="store_true", help="two MLP sizes, no matmul rows, nothing written")
    parser.add_argument("--republish", action="store_true",
                        help="rewrite cpu.md, the plot and the RESULTS.md section from cpu.json (after editing cpu_analysis.md)")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        print("RESULT " + json.dumps(worker(args.worker, args.repeats, args.quick)))
        return
    if args.republish:
        recorded = json.loads((RESULTS / "cpu.json").read_text())
        publish(recorded["results"], recorded["meta"])
        return
    settings = sorted({1, os.cpu_count() or 1})
    results = [run_worker(__file__, threads, args.repeats, args.quick) for threads in settings]
    print(tables(results))
    if args.quick:
        return
    import jax
    import torch

    meta = {"machine": platform.machine(), "cpu_count": os.cpu_count(), "python": platform.python_version(),
            "numpy": np.__version__, "torch": torch.__version__, "jax": jax.__version__,
            "repeats": args.repeats, "date": time.strftime("%Y-%m-%d %H:%M"),
            "load_average_1_5_15_min": [round(load, 1) for load in os.getloadavg()]}  # fmt: skip
    publish(results, meta)


if __name__ == "__main__":
    main()
