"""CPU benchmark of batching linalg named ops: per-example gradients (vmap of grad) of
programs written with linalg named ops, with the shipped rules (rules/batching_linalg.py:
the batch folded into a matmul's rows and a convolution's N) against the generic-view
fallback every named op could take (`structured_generic`: a linalg.generic with a leading
parallel dimension), and against `torch.func.vmap(grad)`, on one thread, in one run.

    python bench/vmap_linalg.py [--repeats 20] [--no-write]

Three problems (float32):
* mlp: the MLP 784-256-10 (linalg.matmul, tanh, softmax cross-entropy) at batch 64;
* cnn: conv_2d_nhwc_hwcf 3x3x1x8 on 28x28 images, ReLU, 2x2 max pooling, a 1352x10
  dense layer, squared error, at batch 32;
* ensemble: one 64x784 by 784x256 linalg.matmul vmapped over 8 weight matrices (the rhs
  alone batched: folded into the columns), also against the rule it replaced (the lhs
  broadcast and a linalg.batch_matmul).

Each result is first checked against torch.func's; calls alternate between the variants
and each time is the minimum over the repetitions. Writes bench/results/vmap_linalg.json
and vmap_linalg.md.
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


import numpy as np  # noqa: E402

MLP = """
func.func @loss(%w1: tensor<784x256xf32>, %w2: tensor<256x10xf32>, %x: tensor<1x784xf32>, %y: tensor<1x10xf32>) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<1x256xf32>
  %c1 = linalg.fill ins(%z : f32) outs(%e1 : tensor<1x256xf32>) -> tensor<1x256xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<1x784xf32>, tensor<784x256xf32>) outs(%c1 : tensor<1x256xf32>) -> tensor<1x256xf32>
  %a = linalg.tanh ins(%h : tensor<1x256xf32>) outs(%e1 : tensor<1x256xf32>) -> tensor<1x256xf32>
  %e2 = tensor.empty() : tensor<1x10xf32>
  %c2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x10xf32>) -> tensor<1x10xf32>
  %o = linalg.matmul ins(%a, %w2 : tensor<1x256xf32>, tensor<256x10xf32>) outs(%c2 : tensor<1x10xf32>) -> tensor<1x10xf32>
  %p = linalg.softmax dimension(1) ins(%o : tensor<1x10xf32>) outs(%e2 : tensor<1x10xf32>) -> tensor<1x10xf32>
  %lp = linalg.log ins(%p : tensor<1x10xf32>) outs(%e2 : tensor<1x10xf32>) -> tensor<1x10xf32>
  %py = linalg.mul ins(%lp, %y : tensor<1x10xf32>, tensor<1x10xf32>) outs(%e2 : tensor<1x10xf32>) -> tensor<1x10xf32>
  %e0 = tensor.empty() : tensor<f32>
  %c0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %s = linalg.reduce { arith.addf } ins(%py : tensor<1x10xf32>) outs(%c0 : tensor<f32>) dimensions = [0, 1]
  %l = linalg.negf ins(%s : tensor<f32>) outs(%e0 : tensor<f32>) -> tensor<f32>
  return %l : tensor<f32>
}
func.func @grads(%w1: tensor<784x256xf32>, %w2: tensor<256x10xf32>, %x: tensor<1x784xf32>, %y: tensor<1x10xf32>) -> (tensor<784x256xf32>, tensor<256x10xf32>) {
  %g:2 = autodiff.grad @loss(%w1, %w2, %x, %y) {wrt = array<i64: 0, 1>} : (tensor<784x256xf32>, tensor<256x10xf32>, tensor<1x784xf32>, tensor<1x10xf32>) -> (tensor<784x256xf32>, tensor<256x10xf32>)
  return %g#0, %g#1 : tensor<784x256xf32>, tensor<256x10xf32>
}
"""

ENSEMBLE = """
func.func @grads(%x: tensor<64x784xf32>, %w: tensor<784x256xf32>) -> tensor<64x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %m = linalg.matmul ins(%x, %w : tensor<64x784xf32>, tensor<784x256xf32>) outs(%c : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %m : tensor<64x256xf32>
}
"""

CNN = """
func.func @loss(%x: tensor<1x28x28x1xf32>, %k: tensor<3x3x1x8xf32>, %w: tensor<1352x10xf32>, %y: tensor<1x10xf32>) -> tensor<f32> {
  %z = arith.constant 0.0 : f32
  %low = arith.constant -1.0e30 : f32
  %ec = tensor.empty() : tensor<1x26x26x8xf32>
  %cc = linalg.fill ins(%z : f32) outs(%ec : tensor<1x26x26x8xf32>) -> tensor<1x26x26x8xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %k : tensor<1x28x28x1xf32>, tensor<3x3x1x8xf32>) outs(%cc : tensor<1x26x26x8xf32>) -> tensor<1x26x26x8xf32>
  %relu = linalg.max ins(%conv, %cc : tensor<1x26x26x8xf32>, tensor<1x26x26x8xf32>) outs(%ec : tensor<1x26x26x8xf32>) -> tensor<1x26x26x8xf32>
  %ep = tensor.empty() : tensor<1x13x13x8xf32>
  %cp = linalg.fill ins(%low : f32) outs(%ep : tensor<1x13x13x8xf32>) -> tensor<1x13x13x8xf32>
  %window = tensor.empty() : tensor<2x2xf32>
  %pool = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%relu, %window : tensor<1x26x26x8xf32>, tensor<2x2xf32>) outs(%cp : tensor<1x13x13x8xf32>) -> tensor<1x13x13x8xf32>
  %flat = tensor.collapse_shape %pool [[0], [1, 2, 3]] : tensor<1x13x13x8xf32> into tensor<1x1352xf32>
  %eo = tensor.empty() : tensor<1x10xf32>
  %co = linalg.fill ins(%z : f32) outs(%eo : tensor<1x10xf32>) -> tensor<1x10xf32>
  %o = linalg.matmul ins(%flat, %w : tensor<1x1352xf32>, tensor<1352x10xf32>) outs(%co : tensor<1x10xf32>) -> tensor<1x10xf32>
  %d = linalg.sub ins(%o, %y : tensor<1x10xf32>, tensor<1x10xf32>) outs(%eo : tensor<1x10xf32>) -> tensor<1x10xf32>
  %sq = linalg.square ins(%d : tensor<1x10xf32>) outs(%eo : tensor<1x10xf32>) -> tensor<1x10xf32>
  %e0 = tensor.empty() : tensor<f32>
  %c0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %s = linalg.reduce { arith.addf } ins(%sq : tensor<1x10xf32>) outs(%c0 : tensor<f32>) dimensions = [0, 1]
  return %s : tensor<f32>
}
func.func @grads(%x: tensor<1x28x28x1xf32>, %k: tensor<3x3x1x8xf32>, %w: tensor<1352x10xf32>, %y: tensor<1x10xf32>) -> (tensor<3x3x1x8xf32>, tensor<1352x10xf32>) {
  %g:2 = autodiff.grad @loss(%x, %k, %w, %y) {wrt = array<i64: 1, 2>} : (tensor<1x28x28x1xf32>, tensor<3x3x1x8xf32>, tensor<1352x10xf32>, tensor<1x10xf32>) -> (tensor<3x3x1x8xf32>, tensor<1352x10xf32>)
  return %g#0, %g#1 : tensor<3x3x1x8xf32>, tensor<1352x10xf32>
}
"""


def problems(rng) -> dict:
    labels = np.eye(10, dtype=np.float32)
    mlp = (
        (rng.standard_normal((784, 256)) / 28).astype(np.float32),
        (rng.standard_normal((256, 10)) / 16).astype(np.float32),
        rng.standard_normal((64, 1, 784)).astype(np.float32),
        labels[rng.integers(0, 10, 64)][:, None, :],
    )
    cnn = (
        rng.standard_normal((32, 1, 28, 28, 1)).astype(np.float32),
        (rng.standard_normal((3, 3, 1, 8)) / 3).astype(np.float32),
        (rng.standard_normal((1352, 10)) / 37).astype(np.float32),
        labels[rng.integers(0, 10, 32)][:, None, :],
    )
    ensemble = (
        rng.standard_normal((64, 784)).astype(np.float32),
        (rng.standard_normal((8, 784, 256)) / 28).astype(np.float32),
    )
    return {"mlp": (MLP, (None, None, 0, 0), mlp), "cnn": (CNN, (0, None, None, 0), cnn),
            "ensemble": (ENSEMBLE, (None, 0), ensemble)}


def torch_reference(name, args):
    import torch

    torch.set_num_threads(1)
    F = torch.nn.functional

    def mlp(w1, w2, x, y):
        return -(torch.log(torch.softmax(torch.tanh(x @ w1) @ w2, 1)) * y).sum()

    def cnn(x, k, w, y):
        conv = F.conv2d(x.permute(0, 3, 1, 2), k.permute(3, 2, 0, 1))
        pool = F.max_pool2d(torch.relu(conv), 2).permute(0, 2, 3, 1).reshape(1, 1352)
        return ((pool @ w - y) ** 2).sum()

    tensors = [torch.tensor(a) for a in args]
    if name == "ensemble":  # one layer, eight weight matrices: vmap of x @ w over w
        function = torch.func.vmap(lambda x, w: (x @ w,), in_dims=(None, 0))
    else:
        loss, argnums = (mlp, (0, 1)) if name == "mlp" else (cnn, (1, 2))
        in_dims = (None, None, 0, 0) if name == "mlp" else (0, None, None, 0)
        function = torch.func.vmap(torch.func.grad(loss, argnums=argnums), in_dims=in_dims)

    def call():
        with torch.no_grad():
            return [g.numpy() for g in function(*tensors)]

    return call


def broadcast_batch_matmul(builder, op, operands, batched):
    """The rule a batched rhs alone had before the columns fold: the lhs broadcast
    and a linalg.batch_matmul (the ensemble's third variant)."""
    from gradir.dialects.linalg_matmul import BatchMatmulOp

    values = [builder.materialize(v, b) for v, b in zip(operands, batched)]
    product = builder.insert(BatchMatmulOp(values[:2], values[2:], [builder.batched_type(op.results[0].type)]))
    return [(product.results[0], True)]


def gradir_variant(source, in_axes, args, generic_view: bool, matmul_rule=None):
    """gradir's per-example gradients; `generic_view`: the matmuls, convolutions, pooling
    and elementwise named ops batched through their generic view (the fallback), by
    replacing their rules for this compile."""
    import gradir
    from gradir.autodiff_pass.rules import batching
    from gradir.autodiff_pass.rules.batching_linalg import LINALG_RULE_KINDS

    saved = dict(batching._all_rules())
    try:
        if matmul_rule is not None:
            batching._all_rules()["linalg.matmul"] = matmul_rule
        if generic_view:
            named = [LINALG_RULE_KINDS[kind] for kind in ("linalg_matmul", "linalg_batch_matmul", "linalg_window", "linalg_elementwise")]
            for name, rule in saved.items():
                if rule in named:
                    batching._all_rules()[name] = LINALG_RULE_KINDS["structured_generic"]
        start = time.perf_counter()
        function = gradir.vmap(source, "grads", in_axes=in_axes)
        function(*args)  # compiles for these shapes
        seconds = time.perf_counter() - start
    finally:
        batching._all_rules().clear()
        batching._all_rules().update(saved)
    return seconds, lambda: function(*args)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--no-write", action="store_true")
    options = parser.parse_args()
    limit_threads()
    os.environ["GRADIR_CACHE"] = "0"  # the two variants differ only in the rule table
    rng = np.random.default_rng(0)
    rows = []
    for name, (source, in_axes, args) in problems(rng).items():
        reference = torch_reference(name, args)
        expected = reference()
        variants = {"torch.func vmap": (0.0, reference)}
        for label, generic in (("gradir, named ops", False), ("gradir, generic view", True)):
            variants[label] = gradir_variant(source, in_axes, args, generic)
        if name == "ensemble":
            variants["gradir, batch_matmul (lhs broadcast)"] = gradir_variant(
                source, in_axes, args, False, broadcast_batch_matmul
            )
        for label in [label for label in variants if label.startswith("gradir")]:
            got = variants[label][1]()
            got = got if isinstance(got, tuple) else (got,)
            for value, want in zip(got, expected):
                error = float(np.max(np.abs(value - want)) / max(1e-30, float(np.max(np.abs(want)))))
                assert error < 1e-3, f"{name} {label}: relative error {error}"
        times = {label: [] for label in variants}
        for _ in range(options.repeats):
            for label, (_, call) in variants.items():
                start = time.perf_counter()
                call()
                times[label].append(time.perf_counter() - start)
        for label, (compile_seconds, _) in variants.items():
            rows.append({"problem": name, "variant": label, "min_ms": 1e3 * min(times[label]),
                         "median_ms": 1e3 * float(np.median(times[label])), "compile_s": compile_seconds})
    table = ["| problem | variant | min ms | median ms | vs named ops | compile s |", "| --- | --- | --- | --- | --- | --- |"]
    for row in rows:
        named = next(r for r in rows if r["problem"] == row["problem"] and r["variant"] == "gradir, named ops")
        table.append(f"| {row['problem']} | {row['variant']} | {row['min_ms']:.3f} | {row['median_ms']:.3f} | "
                     f"{row['min_ms'] / named['min_ms']:.2f}x | {row['compile_s']:.2f} |")
    text = "\n".join(table)
    print(text)
    if not options.no_write:
        RESULTS.mkdir(exist_ok=True)
        machine = f"{platform.machine()}, {platform.processor() or platform.system()}, 1 thread, {options.repeats} repeats"
        (RESULTS / "vmap_linalg.json").write_text(json.dumps({"machine": machine, "rows": rows}, indent=2) + "\n")
        (RESULTS / "vmap_linalg.md").write_text(
            "# Per-example gradients of linalg programs (bench/vmap_linalg.py)\n\n"
            f"{machine}; time of one batched call, minimum over the repeats; the variants alternate.\n\n{text}\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
