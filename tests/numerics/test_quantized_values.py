"""The quantized ops and unsigned poolings through the CPU pipeline: values against
NumPy for the integer uses MLIR has them for (i8 inputs, i32 zero points and
accumulator; i8 read as unsigned by the poolings), and derivatives where integers
meet floats: an i8 quantized matmul accumulating into f32 passes the gradient to its
init only (its integer operands carry none), and an integer quantized op off the
active path needs no rule. Float operands are checked against central differences
in `test_named_linalg.py` (cases `quantized_*`, `*_q`)."""
from __future__ import annotations

import numpy as np
import pytest

import gradir

PROGRAM = """
func.func @qmm(%a: tensor<3x5xi8>, %b: tensor<5x4xi8>, %za: i32, %zb: i32, %c: tensor<3x4xi32>) -> tensor<3x4xi32> {
  %r = linalg.quantized_matmul ins(%a, %b, %za, %zb : tensor<3x5xi8>, tensor<5x4xi8>, i32, i32) outs(%c : tensor<3x4xi32>) -> tensor<3x4xi32>
  return %r : tensor<3x4xi32>
}
func.func @qconv(%x: tensor<1x5x4x2xi8>, %w: tensor<3x2x2x3xi8>, %zx: i32, %zw: i32, %o: tensor<1x3x3x3xi32>) -> tensor<1x3x3x3xi32> {
  %r = linalg.conv_2d_nhwc_hwcf_q ins(%x, %w, %zx, %zw : tensor<1x5x4x2xi8>, tensor<3x2x2x3xi8>, i32, i32) outs(%o : tensor<1x3x3x3xi32>) -> tensor<1x3x3x3xi32>
  return %r : tensor<1x3x3x3xi32>
}
func.func @umax(%x: tensor<1x4x4x2xi8>, %o: tensor<1x3x3x2xi32>) -> tensor<1x3x3x2xi32> {
  %window = tensor.empty() : tensor<2x2xi8>
  %r = linalg.pooling_nhwc_max_unsigned ins(%x, %window : tensor<1x4x4x2xi8>, tensor<2x2xi8>) outs(%o : tensor<1x3x3x2xi32>) -> tensor<1x3x3x2xi32>
  return %r : tensor<1x3x3x2xi32>
}
func.func @into_float(%a: tensor<3x5xi8>, %b: tensor<5x4xi8>, %c: tensor<3x4xf64>, %scale: tensor<3x4xf64>) -> tensor<f64> {
  %za = arith.constant 1 : i32
  %zb = arith.constant -2 : i32
  %q = linalg.quantized_matmul ins(%a, %b, %za, %zb : tensor<3x5xi8>, tensor<5x4xi8>, i32, i32) outs(%c : tensor<3x4xf64>) -> tensor<3x4xf64>
  %e = tensor.empty() : tensor<3x4xi32>
  %ints = linalg.quantized_matmul ins(%a, %b, %za, %zb : tensor<3x5xi8>, tensor<5x4xi8>, i32, i32) outs(%e : tensor<3x4xi32>) -> tensor<3x4xi32>
  %s = math.sin %q : tensor<3x4xf64>
  %p = arith.mulf %s, %scale : tensor<3x4xf64>
  %l = autodiff.sum %p : tensor<3x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
func.func @into_float_grad(%a: tensor<3x5xi8>, %b: tensor<5x4xi8>, %c: tensor<3x4xf64>, %scale: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = autodiff.grad @into_float(%a, %b, %c, %scale) {wrt = array<i64: 2>} : (tensor<3x5xi8>, tensor<5x4xi8>, tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
"""

RNG = np.random.default_rng(11)


@pytest.fixture(scope="module")
def program():
    return gradir.compile(PROGRAM, target="cpu")


def _call(program, name, *arguments) -> np.ndarray:
    (result,) = program.call(name, *arguments)  # a tuple of the results
    return np.asarray(result)


def test_quantized_matmul_of_integers(program):
    a, b = RNG.integers(-128, 128, (3, 5)).astype(np.int8), RNG.integers(-128, 128, (5, 4)).astype(np.int8)
    za, zb, c = np.int32(3), np.int32(-7), RNG.integers(-100, 100, (3, 4)).astype(np.int32)
    expected = c + (a.astype(np.int32) - za) @ (b.astype(np.int32) - zb)
    np.testing.assert_array_equal(_call(program, "qmm", a, b, za, zb, c).reshape(3, 4), expected)


def test_quantized_convolution_of_integers(program):
    x, w = RNG.integers(-128, 128, (1, 5, 4, 2)).astype(np.int8), RNG.integers(-128, 128, (3, 2, 2, 3)).astype(np.int8)
    zx, zw, o = np.int32(-4), np.int32(9), RNG.integers(-100, 100, (1, 3, 3, 3)).astype(np.int32)
    xs, ws = x.astype(np.int64) - zx, w.astype(np.int64) - zw
    expected = o.astype(np.int64).copy()
    for i in range(3):
        for j in range(3):
            expected[0, i, j] += np.einsum("hwc,hwcf->f", xs[0, i : i + 3, j : j + 2], ws)
    np.testing.assert_array_equal(_call(program, "qconv", x, w, zx, zw, o).reshape(1, 3, 3, 3), expected)


def test_unsigned_max_pooling_reads_unsigned(program):
    x = RNG.integers(-128, 128, (1, 4, 4, 2)).astype(np.int8)
    o = np.zeros((1, 3, 3, 2), np.int32)
    unsigned = x.view(np.uint8).astype(np.int32)  # -1 is 255
    expected = np.max([unsigned[:, i : i + 3, j : j + 3] for i in range(2) for j in range(2)], axis=0)
    np.testing.assert_array_equal(_call(program, "umax", x, o).reshape(1, 3, 3, 2), expected)


def test_integer_operands_pass_the_gradient_to_the_float_init_only(program):
    a, b = RNG.integers(-5, 5, (3, 5)).astype(np.int8), RNG.integers(-5, 5, (5, 4)).astype(np.int8)
    c, scale = RNG.uniform(-1, 1, (3, 4)), RNG.uniform(-1, 1, (3, 4))
    q = c + (a.astype(np.float64) - 1) @ (b.astype(np.float64) + 2)
    gradient = _call(program, "into_float_grad", a, b, c, scale).reshape(3, 4)
    np.testing.assert_allclose(gradient, np.cos(q) * scale, rtol=1e-12)
