"""CPU benchmark: gradir's compiled gradients against PyTorch eager on the same
inputs, same machine, same thread count (1: gradir's CPU code is single-threaded).

    python bench/cpu.py [--repeats N]

Prints a table of median times and ratios (gradir / PyTorch; below 1 means
gradir is faster) and writes bench/results/cpu.json and cpu.md. Compile time is
reported separately. Every gradient is checked against PyTorch before timing.
"""
from __future__ import annotations

import argparse
import json
import pathlib
import platform
import statistics
import time

import numpy as np

import gradir

RESULTS = pathlib.Path(__file__).resolve().parent / "results"
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

B, I, H, O = 64, 784, 256, 10
MLP = f"""
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


def median_seconds(function, repeats: int) -> float:
    function()  # warm up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def torch_elementwise(torch, x, y):
    x, y = torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)

    def step():
        x.grad = y.grad = None
        (torch.sin(x) * torch.exp(y) + torch.tanh(x * y)).sum().backward()
        return x.grad, y.grad

    return step


def torch_mlp(torch, inputs):
    t = [torch.tensor(a, requires_grad=i >= 2) for i, a in enumerate(inputs)]

    def step():
        x, labels, w1, b1, w2, b2 = t
        logits = torch.relu(x @ w1 + b1) @ w2 + b2
        loss = -(torch.log_softmax(logits, dim=1) * labels).sum()
        return torch.autograd.grad(loss, t[2:])

    return step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    rows = []

    x = rng.uniform(-1, 1, N).astype(np.float32)
    y = rng.uniform(-1, 1, N).astype(np.float32)
    mlp_inputs = [rng.standard_normal(s).astype(np.float32) * 0.1 for s in [(B, I), (B, O), (I, H), (H,), (H, O), (O,)]]
    mlp_inputs[1] = np.eye(O, dtype=np.float32)[rng.integers(0, O, B)]

    for name, source, inputs, reference in [
        ("elementwise grad, 2 x 1M f32", ELEMENTWISE, [x, y], torch_elementwise(torch, x, y)),
        ("MLP 784-256-10 grad, batch 64 f32", MLP, mlp_inputs, torch_mlp(torch, mlp_inputs)),
    ]:
        start = time.perf_counter()
        exe = gradir.compile(source)
        compile_seconds = time.perf_counter() - start
        ours = exe.df(*inputs)
        theirs = [t.detach().numpy() for t in reference()]
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a, b, rtol=2e-3, atol=2e-4)
        gradir_s = median_seconds(lambda: exe.df(*inputs), args.repeats)
        torch_s = median_seconds(reference, args.repeats)
        rows.append({"benchmark": name, "gradir_ms": gradir_s * 1e3, "torch_ms": torch_s * 1e3,
                     "ratio": gradir_s / torch_s, "compile_s": compile_seconds})  # fmt: skip

    header = "| benchmark | gradir ms | PyTorch eager ms | ratio gradir/PyTorch | gradir compile s |"
    lines = [header, "| --- | ---: | ---: | ---: | ---: |"] + [
        f"| {r['benchmark']} | {r['gradir_ms']:.2f} | {r['torch_ms']:.2f} | {r['ratio']:.2f} | {r['compile_s']:.2f} |"
        for r in rows
    ]
    table = "\n".join(lines)
    print(table)
    RESULTS.mkdir(exist_ok=True)
    meta = {"machine": platform.machine(), "python": platform.python_version(),
            "torch": torch.__version__, "threads": 1, "repeats": args.repeats}  # fmt: skip
    (RESULTS / "cpu.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2) + "\n")
    (RESULTS / "cpu.md").write_text(
        "# CPU gradients: gradir vs PyTorch eager (1 thread)\n\n"
        f"Generated by `python bench/cpu.py` ({meta}). Median of {args.repeats} runs; "
        "ratios below 1 mean gradir is faster. Targets: elementwise <= 1.0, MLP <= 2.0.\n\n"
        + table + "\n"
    )


if __name__ == "__main__":
    main()
