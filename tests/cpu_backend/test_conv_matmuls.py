"""`conv_matmuls.convolutions_as_matmuls`: convolutions on the CPU as a gather and a matmul.

- every named convolution the rewrite takes (uneven strides and dilations, f32 and f64) is
  rewritten and computes what its maps say (a NumPy evaluation of the op's loops);
- a padded, strided conv2d's gradient: the forward op, the input gradient (the transposed
  window) and the filter gradient (the correlation) are all rewritten, and agree with PyTorch,
  over the whole batch and in chunks of it;
- what stays loops: grouped and depthwise convolutions (a loop every operand reads), the
  batchless ones (no filter loop) and products too small to pay for the gather.
"""
from __future__ import annotations

import numpy as np
import pytest

import gradir
from gradir.compilation import lower_to_linalg
from gradir.cpu_backend import conv_matmuls
from gradir.cpu_backend.conv_matmuls import CONVOLUTIONS, MIN_MACS, convolutions_as_matmuls
from gradir.cpu_backend.cpu_runtime import clear_cache
from gradir.mlir_bridge import generic_text, to_mlir_module
from window_programs import SPECS, case

LARGE = {"n": 2, "c": 3, "f": 16, "oh": 6, "ow": 7, "od": 3, "kh": 3, "kw": 2, "kd": 2}


def _large_case(name: str, element: str):
    rank = len(SPECS[name].windows)
    strides, dilations = (2, 1, 3)[:rank], (1, 2, 1)[:rank]
    extents = {loop: LARGE.get(loop, 2) for loop in SPECS[name].loop_names}
    while np.prod(list(extents.values())) < MIN_MACS:  # 1-d ones: longer rows
        extents["ow"] *= 2
    return case(name, strides=strides, dilations=dilations, element=element, **extents)


def evaluate(window, x, w, init):
    """`init + sum over the reduction loops of x[input map] * w[filter map]`, from the maps."""
    spec = window.spec
    loops = spec.loop_names
    grid = dict(zip(loops, np.indices([window.extents[name] for name in loops])))
    strides, dilations = window.stride_values, window.dilation_values
    index, position = [], 0
    for entry in spec.input_entries:
        if "+" in entry:
            o, k = entry.split("+")
            index.append(grid[o] * strides[position] + grid[k] * dilations[position])
            position += 1
        else:
            index.append(grid[entry])
    products = x[tuple(index)] * w[tuple(grid[name] for name in spec.filter.split())]
    output = spec.output.split()
    reduced = products.sum(axis=tuple(i for i, name in enumerate(loops) if name not in output))
    kept = [name for name in loops if name in output]
    return init + reduced.transpose([kept.index(name) for name in output])


def _rewrites(text: str) -> int:
    return convolutions_as_matmuls(to_mlir_module(text))


@pytest.mark.parametrize("element", ["f32", "f64"])
@pytest.mark.parametrize("name", [op.removeprefix("linalg.") for op in CONVOLUTIONS if "_n" in op])
def test_every_named_convolution_is_rewritten_and_right(name, element):
    window = _large_case(name, element)
    assert _rewrites(window.function(name)) == 1
    dtype = np.float32 if element == "f32" else np.float64
    rng = np.random.default_rng(len(name))
    x, w, init = (rng.standard_normal(s).astype(dtype) for s in window.shapes())
    (result,) = gradir.compile(window.function(name)).call(name, x, w, init)
    tolerance = 1e-5 if element == "f32" else 1e-12
    np.testing.assert_allclose(result, evaluate(window, x, w, init), rtol=tolerance, atol=tolerance)


CONV2D_VJP = """
func.func @conv(%x: tensor<4x3x10x11xf64>, %w: tensor<8x3x3x3xf64>) -> tensor<4x8x5x5xf64> {
  %zero = arith.constant 0.0 : f64
  %xp = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f64
  } : tensor<4x3x10x11xf64> to tensor<4x3x12x13xf64>
  %e = tensor.empty() : tensor<4x8x5x5xf64>
  %init = linalg.fill ins(%zero : f64) outs(%e : tensor<4x8x5x5xf64>) -> tensor<4x8x5x5xf64>
  %y = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<[1, 2]> : tensor<2xi64>}
    ins(%xp, %w : tensor<4x3x12x13xf64>, tensor<8x3x3x3xf64>) outs(%init : tensor<4x8x5x5xf64>) -> tensor<4x8x5x5xf64>
  return %y : tensor<4x8x5x5xf64>
}
func.func @df(%x: tensor<4x3x10x11xf64>, %w: tensor<8x3x3x3xf64>, %ct: tensor<4x8x5x5xf64>) -> (tensor<4x8x5x5xf64>, tensor<4x3x10x11xf64>, tensor<8x3x3x3xf64>) {
  %r:3 = autodiff.vjp @conv(%x, %w, %ct) : (tensor<4x3x10x11xf64>, tensor<8x3x3x3xf64>, tensor<4x8x5x5xf64>) -> (tensor<4x8x5x5xf64>, tensor<4x3x10x11xf64>, tensor<8x3x3x3xf64>)
  return %r#0, %r#1, %r#2 : tensor<4x8x5x5xf64>, tensor<4x3x10x11xf64>, tensor<8x3x3x3xf64>
}
"""


@pytest.mark.parametrize("chunk_bytes", [conv_matmuls.CHUNK_BYTES, 8192], ids=["whole-batch", "chunked"])
def test_a_convolution_and_both_its_adjoints_become_matmuls(monkeypatch, chunk_bytes):
    """Chunked, the batch is an scf.for: of M for the op and the input gradient (chunks
    written into the result), of K for the filter gradient (chunks summed)."""
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(conv_matmuls, "CHUNK_BYTES", chunk_bytes)
    clear_cache()
    module = to_mlir_module(generic_text(lower_to_linalg(CONV2D_VJP)))
    assert convolutions_as_matmuls(module) == 4  # @conv's op, and @df's op and its two adjoints
    assert str(module).count("scf.for") == (0 if chunk_bytes > 8192 else 4)
    rng = np.random.default_rng(0)
    x, w, ct = (rng.standard_normal(s) for s in ([4, 3, 10, 11], [8, 3, 3, 3], [4, 8, 5, 5]))
    leaves = [torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)]
    y = torch.nn.functional.conv2d(leaves[0], leaves[1], stride=2, padding=1, dilation=(1, 2))
    expected = [y, *torch.autograd.grad(y, leaves, torch.tensor(ct))]
    for ours, theirs in zip(gradir.compile(CONV2D_VJP).df(x, w, ct), expected):
        np.testing.assert_allclose(ours, theirs.detach().numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["conv_2d_ngchw_fgchw", "depthwise_conv_2d_nhwc_hwc", "conv_2d", "conv_1d"])
def test_grouped_depthwise_and_batchless_convolutions_stay_loops(name):
    """Grouped and depthwise: a loop every operand reads; batchless: no filter loop."""
    extents = {loop: 3 for loop in SPECS[name].loop_names}
    while np.prod(list(extents.values())) < MIN_MACS:
        extents["ow"] *= 2
    window = case(name, element="f32", **extents)
    assert _rewrites(window.function(name)) == 0
    rng = np.random.default_rng(1)
    x, w, init = (rng.standard_normal(s).astype(np.float32) for s in window.shapes())
    (result,) = gradir.compile(window.function(name)).call(name, x, w, init)
    np.testing.assert_allclose(result, evaluate(window, x, w, init), rtol=1e-5, atol=1e-5)


def test_small_products_stay_loops():
    window = case("conv_2d_nchw_fchw", element="f32")
    assert np.prod(list(window.extents.values())) < MIN_MACS
    assert _rewrites(window.function("conv_2d_nchw_fchw")) == 0
