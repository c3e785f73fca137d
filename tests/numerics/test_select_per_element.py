"""`arith.select` on a tensor of conditions (`: tensor<5xi1>, tensor<5xf64>`) and the
comparisons of whole tensors that make them (`arith.cmpf ogt, %a, %b : tensor<5xf64>`),
which MLIR allows and xDSL 0.74 did not (MLIR's own convert-elementwise-to-linalg test
writes them).

Each element's gradient goes to the operand its condition picked: the conditions are mixed,
so both operands get a non-zero gradient, and a rule that ignored the condition, or took it
per lane instead of per element, would fail. Reverse and forward mode against central
differences in f64, the vmap of the function against a loop, and the whole Jacobian.
"""
from __future__ import annotations

import numpy as np

import gradir

PROGRAM = """
func.func @f(%c: tensor<5xi1>, %a: tensor<5xf64>, %b: tensor<5xf64>) -> tensor<5xf64> {
  %s = math.sin %a : tensor<5xf64>
  %e = math.exp %b : tensor<5xf64>
  %r = arith.select %c, %s, %e : tensor<5xi1>, tensor<5xf64>
  %y = arith.mulf %r, %a : tensor<5xf64>
  return %y : tensor<5xf64>
}
"""

CONDITION = np.array([True, False, True, False, False])
RNG = np.random.default_rng(5)


def _expected(c, a, b):
    return np.where(c, np.sin(a), np.exp(b)) * a


def test_vjp_and_jvp_match_central_differences():
    a, b = RNG.uniform(0.3, 1.2, 5), RNG.uniform(-0.5, 0.5, 5)
    result = gradir.gradcheck(PROGRAM, "f", inputs=[CONDITION, a, b], wrt=[1, 2])
    assert result.ok, result.report()
    assert not any(check.vacuous for check in result.checks)


def test_the_jacobian_is_diagonal_by_the_condition():
    a, b = RNG.uniform(0.3, 1.2, 5), RNG.uniform(-0.5, 0.5, 5)
    ja, jb = gradir.jacobian(PROGRAM, "f", wrt=[1, 2])(CONDITION, a, b)
    np.testing.assert_allclose(np.diag(ja), np.where(CONDITION, np.cos(a) * a + np.sin(a), np.exp(b)), rtol=1e-12)
    np.testing.assert_allclose(np.diag(jb), np.where(CONDITION, 0.0, np.exp(b) * a), rtol=1e-12)
    assert np.count_nonzero(ja - np.diag(np.diag(ja))) == 0


COMPARED = """
func.func @g(%a: tensor<5xf64>, %b: tensor<5xf64>) -> tensor<5xf64> {
  %c = arith.cmpf ogt, %a, %b : tensor<5xf64>
  %s = math.sin %a : tensor<5xf64>
  %r = arith.select %c, %s, %b : tensor<5xi1>, tensor<5xf64>
  return %r : tensor<5xf64>
}
"""

COMPARISONS = """
func.func @h(%a: tensor<4xf64>, %i: tensor<4xi32>, %j: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %nan = arith.cmpf uno, %a, %a : tensor<4xf64>
  %less = arith.cmpi "slt", %i, %j : tensor<4xi32>
  %same = arith.cmpi sle, %i, %i : tensor<4xi32>
  return %nan, %less, %same : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}
"""


def test_comparisons_of_whole_tensors_run_element_by_element():
    """xDSL 0.74 typed every comparison `i1`; its fold of `cmpi sle, %t, %t` built an `i1` true."""
    a = np.array([1.0, np.nan, -2.0, np.nan])
    i, j = np.array([1, 5, -3, 0], np.int32), np.array([2, 5, -4, 7], np.int32)
    nan, less, same = gradir.compile(COMPARISONS).h(a, i, j)
    np.testing.assert_array_equal(nan, np.isnan(a))
    np.testing.assert_array_equal(less, i < j)
    np.testing.assert_array_equal(same, np.ones(4, bool))


def test_vmap_with_one_condition_for_all_examples():
    a, b = RNG.uniform(0.3, 1.2, (3, 5)), RNG.uniform(-0.5, 0.5, (3, 5))
    shared = gradir.vmap(PROGRAM, "f", in_axes=(None, 0, 0))(CONDITION, a, b)
    np.testing.assert_allclose(shared, _expected(CONDITION, a, b), rtol=1e-13)


def test_vmap_with_conditions_per_example_and_its_gradient():
    """The conditions are compared from batched values, so they are batched themselves."""
    a, b = RNG.uniform(-1, 1, (4, 5)), RNG.uniform(-1, 1, (4, 5))
    assert 0 < np.count_nonzero(a > b) < a.size
    batched = gradir.vmap(COMPARED, "g")(a, b)
    np.testing.assert_allclose(batched, np.where(a > b, np.sin(a), b), rtol=1e-13)
    result = gradir.gradcheck(COMPARED, "g", inputs=[a[0], b[0]])
    assert result.ok, result.report()
