"""Derivatives of `tensor.concat` and `linalg.softmax` over tensors of dynamic shape, reverse
and forward mode, against central differences in f64 through the CPU pipeline, at several
sizes (both were refused on dynamic shapes before; IREE's test suite has both).

- concat: each operand's gradient is the slice of the result's gradient at its place (the
  offset along the concatenated dimension a running sum of `tensor.dim`s, the sizes the
  operand's own), the tangent the concat of the tangents (a missing one a zero of the
  operand's run-time shape); along a dynamic dimension and along a static dimension of
  tensors of dynamic shape, three operands, one of static shape among them.
- softmax: dx = y * (g - sum(g * y, dim)), dy = y * (dx - sum(y * dx, dim)) as two generics
  sized by the result's `tensor.dim`s; along a dynamic and along a static dimension.
"""
from __future__ import annotations

import numpy as np
import pytest

import gradir
from exercised import assert_exercised

RNG = np.random.default_rng(23)


def _check(text: str, inputs, wrt=None):
    result = gradir.gradcheck(text, "f", inputs=inputs, wrt=wrt)
    assert_exercised(result)
    assert result.checks
    return result


# -- tensor.concat -----------------------------------------------------------------------

CONCAT_DYNAMIC_DIM = """
func.func @f(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>, %c: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %r = tensor.concat dim(1) %a, %b, %c : (tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>) -> tensor<?x?xf64>
  return %r : tensor<?x?xf64>
}"""


@pytest.mark.parametrize("rows, widths", [(2, (1, 3, 2)), (3, (4, 1, 2)), (1, (2, 2, 5))])
def test_concat_of_three_along_a_dynamic_dimension(rows, widths):
    _check(CONCAT_DYNAMIC_DIM, [RNG.standard_normal((rows, w)) for w in widths])


# Along the dynamic rows of operands whose columns are static, one operand of static shape,
# followed by a nonlinear generic over the result (sized by the concat's tensor.dim).
CONCAT_DYNAMIC_ROWS_THEN_SIN = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%a: tensor<?x3xf64>, %b: tensor<2x3xf64>, %c: tensor<?x3xf64>) -> tensor<?x3xf64> {
  %c0 = arith.constant 0 : index
  %r = tensor.concat dim(0) %a, %b, %c : (tensor<?x3xf64>, tensor<2x3xf64>, tensor<?x3xf64>) -> tensor<?x3xf64>
  %n = tensor.dim %r, %c0 : tensor<?x3xf64>
  %e = tensor.empty(%n) : tensor<?x3xf64>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<?x3xf64>) outs(%e : tensor<?x3xf64>) {
  ^bb0(%v: f64, %o: f64):
    %q = math.sin %v : f64
    %p = arith.mulf %q, %v : f64
    linalg.yield %p : f64
  } -> tensor<?x3xf64>
  return %s : tensor<?x3xf64>
}"""


@pytest.mark.parametrize("rows_a, rows_c", [(1, 3), (4, 2), (2, 1)])
def test_concat_of_three_along_dynamic_rows_with_a_static_operand(rows_a, rows_c):
    inputs = [RNG.standard_normal((rows_a, 3)), RNG.standard_normal((2, 3)), RNG.standard_normal((rows_c, 3))]
    _check(CONCAT_DYNAMIC_ROWS_THEN_SIN, inputs)


CONCAT_STATIC_DIM = """
func.func @f(%a: tensor<?x2xf64>, %b: tensor<?x3xf64>, %c: tensor<?x1xf64>) -> tensor<?x6xf64> {
  %r = tensor.concat dim(1) %a, %b, %c : (tensor<?x2xf64>, tensor<?x3xf64>, tensor<?x1xf64>) -> tensor<?x6xf64>
  return %r : tensor<?x6xf64>
}"""


@pytest.mark.parametrize("rows", [1, 3, 5])
def test_concat_of_three_along_a_static_dimension_of_dynamic_tensors(rows):
    _check(CONCAT_STATIC_DIM, [RNG.standard_normal((rows, w)) for w in (2, 3, 1)])


@pytest.mark.parametrize("wrt", [[0, 2], [1]])
@pytest.mark.parametrize("rows, widths", [(2, (1, 3, 2)), (3, (2, 1, 4))])
def test_concat_tangents_missing_for_some_operands(rows, widths, wrt):
    """The operands not differentiated have no tangent: a zero of their run-time shape."""
    _check(CONCAT_DYNAMIC_DIM, [RNG.standard_normal((rows, w)) for w in widths], wrt=wrt)


CONCAT_EXPAND = """
func.func @f(%a: tensor<2x?xf64>, %b: tensor<2x10xf64>, %dim: index) -> tensor<2x5x?xf64> {
  %0 = tensor.concat dim(1) %a, %b : (tensor<2x?xf64>, tensor<2x10xf64>) -> tensor<2x?xf64>
  %1 = tensor.expand_shape %0 [[0], [1, 2]] output_shape [2, 5, %dim] : tensor<2x?xf64> into tensor<2x5x?xf64>
  return %1 : tensor<2x5x?xf64>
}"""


@pytest.mark.parametrize("width", [5, 15])
def test_concat_then_expand_shape_as_in_iree(width):
    """The corpus program `iree_concat_expand_dynamic`, in f64."""
    inputs = [RNG.standard_normal((2, width)), RNG.standard_normal((2, 10)), np.int64((width + 10) // 5)]
    _check(CONCAT_EXPAND, inputs, wrt=[0, 1])


# -- linalg.softmax ----------------------------------------------------------------------

SOFTMAX = """
func.func @f(%x: tensor<{shape}xf64>) -> tensor<{shape}xf64> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<{shape}xf64>
  %m = tensor.dim %x, %c1 : tensor<{shape}xf64>
  %e = tensor.empty({sizes}) : tensor<{shape}xf64>
  %y = linalg.softmax dimension({dim}) ins(%x : tensor<{shape}xf64>) outs(%e : tensor<{shape}xf64>) -> tensor<{shape}xf64>
  return %y : tensor<{shape}xf64>
}}"""


def _softmax(shape: str, sizes: str, dim: int) -> str:
    return SOFTMAX.format(shape=shape, sizes=sizes, dim=dim)


@pytest.mark.parametrize("cols", [2, 4, 7])
def test_softmax_along_a_dynamic_dimension(cols):
    """IREE's `softmax_dynamic_reduction`: a static batch, the reduced dimension dynamic."""
    _check(_softmax("2x?", "%m", 1), [RNG.standard_normal((2, cols)) * 1.5])


@pytest.mark.parametrize("rows, cols", [(2, 3), (4, 1), (3, 5)])
def test_softmax_along_the_dynamic_rows_of_a_fully_dynamic_tensor(rows, cols):
    _check(_softmax("?x?", "%n, %m", 0), [RNG.standard_normal((rows, cols)) * 1.5])


@pytest.mark.parametrize("rows", [1, 3, 5])
def test_softmax_along_a_static_dimension_of_a_dynamic_tensor(rows):
    _check(_softmax("?x4", "%n", 1), [RNG.standard_normal((rows, 4)) * 1.5])


SOFTMAX_3D_THEN_LOG = """
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @f(%x: tensor<2x?x3xf64>, %w: tensor<2x?x3xf64>) -> tensor<2x?x3xf64> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<2x?x3xf64>
  %e = tensor.empty(%n) : tensor<2x?x3xf64>
  %y = linalg.softmax dimension(1) ins(%x : tensor<2x?x3xf64>) outs(%e : tensor<2x?x3xf64>) -> tensor<2x?x3xf64>
  %z = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%y, %w : tensor<2x?x3xf64>, tensor<2x?x3xf64>) outs(%e : tensor<2x?x3xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %l = math.log %a : f64
    %p = arith.mulf %l, %b : f64
    linalg.yield %p : f64
  } -> tensor<2x?x3xf64>
  return %z : tensor<2x?x3xf64>
}"""


@pytest.mark.parametrize("n", [2, 3, 5])
def test_softmax_along_the_middle_dynamic_dimension_then_a_generic(n):
    _check(SOFTMAX_3D_THEN_LOG, [RNG.standard_normal((2, n, 3)), RNG.standard_normal((2, n, 3))])



SOFTMAX_SECOND_ORDER = _softmax("2x?", "%m", 1) + """
func.func @vjp(%x: tensor<2x?xf64>, %ct: tensor<2x?xf64>) -> tensor<2x?xf64> {
  %r:2 = autodiff.vjp @f(%x, %ct) : (tensor<2x?xf64>, tensor<2x?xf64>) -> (tensor<2x?xf64>, tensor<2x?xf64>)
  return %r#1 : tensor<2x?xf64>
}
func.func @jvp(%x: tensor<2x?xf64>, %t: tensor<2x?xf64>) -> tensor<2x?xf64> {
  %r:2 = autodiff.jvp @f(%x, %t) : (tensor<2x?xf64>, tensor<2x?xf64>) -> (tensor<2x?xf64>, tensor<2x?xf64>)
  return %r#1 : tensor<2x?xf64>
}"""


@pytest.mark.parametrize("function", ["vjp", "jvp"])
@pytest.mark.parametrize("cols", [3, 6])
def test_softmax_second_order(function, cols):
    """The derivatives of the generics the dynamic softmax rule builds (reverse and forward)."""
    inputs = [RNG.standard_normal((2, cols)), RNG.standard_normal((2, cols))]
    result = gradir.gradcheck(SOFTMAX_SECOND_ORDER, function, inputs=inputs)
    assert_exercised(result)
