"""Float constants written as their bits, how MLIR prints -inf and NaN
(`0xFF800000 : f32`, `dense<0xFF800000> : tensor<f32>`): what JAX's
`logsumexp`/`softmax` start their max reductions from.

xDSL 0.74 read a hexadecimal element of a float `dense<...>` as the integer's
value (4.29e9, so the max was 4.29e9), and gradcheck's f64 promotion renamed
`f32` to `f64` after the bits, making -inf a denormal (2.1e-314) in the f64 copy.
"""
import math

import numpy as np
import pytest

import gradir
from gradir.gradient_check import GradChecker, promote_to_f64
from gradir.source import load_module

ROW_MAX = """
func.func @row_max(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %minus_inf = arith.constant 0xFF800000 : f32
  %dense_minus_inf = arith.constant dense<0xFF800000> : tensor<f32>
  %e = tensor.empty() : tensor<2xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%dense_minus_inf : tensor<f32>) outs(%e : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x3xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %out, %in : f32
    linalg.yield %0 : f32
  } -> tensor<2xf32>
  %clamped = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%m : tensor<2xf32>) outs(%e : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %in, %minus_inf : f32
    linalg.yield %0 : f32
  } -> tensor<2xf32>
  return %clamped : tensor<2xf32>
}
"""

NEGATIVE = np.array([[-3.0, -1.5, -2.0], [-0.5, -4.0, -0.25]])


def _constants(module):
    return [op.value for op in module.walk() if op.name == "arith.constant"]


@pytest.mark.parametrize(
    "literal, expected",
    [
        ("dense<0xFF800000> : tensor<f32>", [-math.inf]),
        ("dense<[0x7F800000, 0x3F800000]> : tensor<2xf32>", [math.inf, 1.0]),
        ("dense<0xFFF0000000000000> : tensor<f64>", [-math.inf]),
        ("dense<0x3C00> : tensor<f16>", [1.0]),
        ('dense<"0x0000803F0000803F"> : tensor<2xf32>', [1.0, 1.0]),
        ("dense<[0x10, 3]> : tensor<2xi32>", [16, 3]),
    ],
)
def test_hexadecimal_dense_elements_are_bits_of_the_float_type(literal, expected):
    module = load_module(f"func.func @f() {{\n  %c = arith.constant {literal}\n  return\n}}")
    (value,) = _constants(module)
    assert list(value.get_values()) == expected


def test_dense_nan_bits():
    module = load_module("func.func @f() {\n  %c = arith.constant dense<0x7FC00000> : tensor<f32>\n  return\n}")
    (value,) = _constants(module)
    assert math.isnan(next(iter(value.get_values())))


def test_promotion_to_f64_keeps_non_finite_values():
    values = [list(v.get_values()) if hasattr(v, "get_values") else [v.value.data]
              for v in _constants(promote_to_f64(load_module(ROW_MAX)))]  # fmt: skip
    assert values == [[-math.inf], [-math.inf]]
    assert "f32" not in str(promote_to_f64(load_module(ROW_MAX)))


def test_max_from_minus_infinity_runs_and_gradchecks():
    got = gradir.compile(ROW_MAX).row_max(NEGATIVE.astype(np.float32))
    np.testing.assert_array_equal(got, NEGATIVE.max(axis=1).astype(np.float32))
    checker = GradChecker(ROW_MAX, [("row_max", None)])
    report = checker.check("row_max", [NEGATIVE])
    assert report.ok, report.report()
    # The f64 copy gradcheck compiles computes the same maxima (not max(x, 2e-314) = 2e-314).
    (promoted,) = checker.executable.call("row_max", NEGATIVE)
    np.testing.assert_array_equal(promoted, NEGATIVE.max(axis=1))
