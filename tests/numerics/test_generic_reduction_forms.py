"""`linalg.generic` reductions in the forms IREE writes them:

* an arg-max as a two-output generic whose float accumulator is read twice,
  by `maximumf` (the max) and by the `cmpf` choosing the integer index: the
  extra read feeds only the integer output, so the max's derivative is that of
  the max reduction alone;
* a loop marked "reduction" that the output's map indexes (an IREE transpose):
  every element is written once along it, so it is no reduction at all.
"""
import numpy as np
import pytest

import gradir

ARGMAX = """
func.func @f(%x: tensor<3x5xf64>) -> (tensor<3xf64>, tensor<3xi32>) {
  %ninf = arith.constant {init} : f64
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<3xf64>
  %ei = tensor.empty() : tensor<3xi32>
  %iv = linalg.fill ins(%ninf : f64) outs(%e : tensor<3xf64>) -> tensor<3xf64>
  %ii = linalg.fill ins(%c0 : i32) outs(%ei : tensor<3xi32>) -> tensor<3xi32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x5xf64>) outs(%iv, %ii : tensor<3xf64>, tensor<3xi32>) {
  ^bb0(%in: f64, %val: f64, %idx: i32):
    %i = linalg.index 1 : index
    %ic = arith.index_cast %i : index to i32
    %m = arith.{combine} %in, %val : f64
    %c = arith.cmpf {predicate}, %in, %val : f64
    %s = arith.select %c, %ic, %idx : i32
    linalg.yield %m, %s : f64, i32
  } -> (tensor<3xf64>, tensor<3xi32>)
  %sq = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
      iterator_types = ["parallel"]} ins(%r#0 : tensor<3xf64>) outs(%e : tensor<3xf64>) {
  ^bb0(%a: f64, %o: f64):
    %p = arith.mulf %a, %a : f64
    linalg.yield %p : f64
  } -> tensor<3xf64>
  return %sq, %r#1 : tensor<3xf64>, tensor<3xi32>
}
"""

# IREE's tests/e2e/linalg/argmax.mlir: 1-d, into 0-d tensors, f32 there.
ARGMAX_1D = """
func.func @f(%input: tensor<6xf64>) -> (tensor<f64>, tensor<i32>) {
  %neg_inf = arith.constant 0xFFF0000000000000 : f64
  %c0_i32 = arith.constant 0 : i32
  %init_val_buf = tensor.empty() : tensor<f64>
  %init_idx_buf = tensor.empty() : tensor<i32>
  %init_val = linalg.fill ins(%neg_inf : f64) outs(%init_val_buf : tensor<f64>) -> tensor<f64>
  %init_idx = linalg.fill ins(%c0_i32 : i32) outs(%init_idx_buf : tensor<i32>) -> tensor<i32>
  %result:2 = linalg.generic {
      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>],
      iterator_types = ["reduction"]
    } ins(%input : tensor<6xf64>) outs(%init_val, %init_idx : tensor<f64>, tensor<i32>) {
    ^bb0(%in: f64, %val: f64, %idx: i32):
      %i = linalg.index 0 : index
      %i_cast = arith.index_cast %i : index to i32
      %maxval = arith.maximumf %in, %val : f64
      %cmp = arith.cmpf ogt, %in, %val : f64
      %sel_idx = arith.select %cmp, %i_cast, %idx : i32
      linalg.yield %maxval, %sel_idx : f64, i32
  } -> (tensor<f64>, tensor<i32>)
  return %result#0, %result#1 : tensor<f64>, tensor<i32>
}
"""


def _distinct(shape, seed=0):
    """Values without ties (a permutation, jittered), both signs."""
    rng = np.random.default_rng(seed)
    size = int(np.prod(shape))
    return (rng.permutation(size) - size / 2 + rng.uniform(0.05, 0.4, size)).reshape(shape).astype(np.float64)


@pytest.mark.parametrize(
    "combine, predicate, pick",
    [("maximumf", "ogt", np.argmax), ("maxnumf", "ogt", np.argmax), ("minimumf", "olt", np.argmin), ("minnumf", "olt", np.argmin)],
)
def test_arg_extremum_with_a_separate_comparison(combine, predicate, pick):
    init = "0xFFF0000000000000" if pick is np.argmax else "0x7FF0000000000000"  # -inf, +inf
    text = ARGMAX.replace("{combine}", combine).replace("{predicate}", predicate).replace("{init}", init)
    x = _distinct((3, 5))
    result = gradir.gradcheck(text, "f", inputs=[x])
    assert result.ok, result.report()
    values, indices = gradir.compile(text).f(x)
    extremum = x.max(axis=1) if pick is np.argmax else x.min(axis=1)
    np.testing.assert_allclose(values, extremum**2)
    np.testing.assert_array_equal(indices, pick(x, axis=1).astype(np.int32))


def test_iree_argmax_1d():
    x = _distinct((6,), seed=3)
    result = gradir.gradcheck(ARGMAX_1D, "f", inputs=[x])
    assert result.ok, result.report()
    value, index = gradir.compile(ARGMAX_1D).f(x)
    assert float(value) == x.max()
    assert int(index) == int(np.argmax(x))


def test_argmax_gradient_goes_to_the_maximum_only():
    max_only = ARGMAX_1D.replace("-> (tensor<f64>, tensor<i32>) {\n  %neg", "-> tensor<f64> {\n  %neg").replace(
        "return %result#0, %result#1 : tensor<f64>, tensor<i32>", "return %result#0 : tensor<f64>")
    source = max_only + """
func.func @df(%x: tensor<6xf64>, %g: tensor<f64>) -> tensor<6xf64> {
  %r:2 = autodiff.vjp @f(%x, %g) {wrt = array<i64: 0>} : (tensor<6xf64>, tensor<f64>) -> (tensor<f64>, tensor<6xf64>)
  return %r#1 : tensor<6xf64>
}
"""
    x = _distinct((6,), seed=5)
    dx = gradir.compile(source).df(x, np.array(2.5))
    expected = np.zeros(6)
    expected[np.argmax(x)] = 2.5
    np.testing.assert_array_equal(dx, expected)


TRANSPOSE_2D = """
func.func @f(%x: tensor<3x4xf64>) -> tensor<{out}xf64> {
  %e = tensor.empty() : tensor<{out}xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ({out_map})>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x4xf64>) outs(%e : tensor<{out}xf64>) {
  ^bb0(%in: f64, %o: f64):
    {body}
  } -> tensor<{out}xf64>
  return %r : tensor<{out}xf64>
}
"""


@pytest.mark.parametrize(
    "out, out_map, body",
    [
        ("3x4", "d0, d1", "linalg.yield %in : f64"),
        ("4x3", "d1, d0", "linalg.yield %in : f64"),
        ("4x3", "d1, d0", "%s = math.sin %in : f64\n    %p = arith.mulf %s, %in : f64\n    linalg.yield %p : f64"),
    ],
)
def test_reduction_loop_indexed_by_the_output_is_elementwise(out, out_map, body):
    text = TRANSPOSE_2D.replace("{out}", out).replace("{out_map}", out_map).replace("{body}", body)
    x = np.random.default_rng(1).normal(size=(3, 4))
    result = gradir.gradcheck(text, "f", inputs=[x])
    assert result.ok, result.report()
    y = gradir.compile(text).f(x)
    expected = x if out_map == "d0, d1" else x.T
    if "sin" in body:
        expected = np.sin(expected) * expected
    np.testing.assert_allclose(y, expected)


# IREE DispatchCreation/test/collapse_linalg_generic_on_tensors.mlir, @collapse4 (sizes reduced).
TRANSPOSE_8D = """
func.func @f(%input : tensor<1x2x2x1x2x3x1x2xf64>) -> tensor<1x2x2x1x3x2x1x2xf64> {
  %output = tensor.empty() : tensor<1x2x2x1x3x2x1x2xf64>
  %result = linalg.generic { indexing_maps = [
          affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4, d5, d6, d7)>,
          affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d5, d4, d6, d7)>],
          iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "parallel", "parallel", "parallel"]}
  ins(%input : tensor<1x2x2x1x2x3x1x2xf64>) outs(%output : tensor<1x2x2x1x3x2x1x2xf64>) {
  ^bb0(%arg1: f64, %arg2: f64):
    linalg.yield %arg1 : f64
  } -> tensor<1x2x2x1x3x2x1x2xf64>
  return %result : tensor<1x2x2x1x3x2x1x2xf64>
}
"""


def test_iree_8d_transpose_with_a_reduction_iterator():
    x = np.random.default_rng(2).normal(size=(1, 2, 2, 1, 2, 3, 1, 2))
    result = gradir.gradcheck(TRANSPOSE_8D, "f", inputs=[x])
    assert result.ok, result.report()
    np.testing.assert_allclose(gradir.compile(TRANSPOSE_8D).f(x), x.transpose(0, 1, 2, 3, 5, 4, 6, 7))


# Both loops marked "reduction", the output indexing d0: a reduction over d1 only.
PARTLY_INDEXED = """
func.func @f(%x: tensor<3x4xf64>) -> tensor<3xf64> {
  %one = arith.constant {init} : f64
  %e = tensor.empty() : tensor<3xf64>
  %i = linalg.fill ins(%one : f64) outs(%e : tensor<3xf64>) -> tensor<3xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
      iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<3x4xf64>) outs(%i : tensor<3xf64>) {
  ^bb0(%in: f64, %acc: f64):
    %c = arith.{combine} %in, %acc : f64
    linalg.yield %c : f64
  } -> tensor<3xf64>
  return %r : tensor<3xf64>
}
"""


@pytest.mark.parametrize("combine, init", [("mulf", "1.0"), ("maximumf", "0xFFF0000000000000"), ("addf", "0.0")])
def test_reduction_loop_indexed_by_the_output_is_not_reduced_over(combine, init):
    text = PARTLY_INDEXED.replace("{combine}", combine).replace("{init}", init)
    x = _distinct((3, 4), seed=4) / 6.0
    result = gradir.gradcheck(text, "f", inputs=[x])
    assert result.ok, result.report()


MIXED = """
func.func @f(%x: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3xf64>) {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<3x4xf64>
  %e1 = tensor.empty() : tensor<3xf64>
  %s0 = linalg.fill ins(%z : f64) outs(%e1 : tensor<3xf64>) -> tensor<3xf64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x4xf64>) outs(%e, %s0 : tensor<3x4xf64>, tensor<3xf64>) {
  ^bb0(%in: f64, %o: f64, %acc: f64):
    %s = arith.addf %in, %acc : f64
    linalg.yield %in, %s : f64, f64
  } -> (tensor<3x4xf64>, tensor<3xf64>)
  return %r#0, %r#1 : tensor<3x4xf64>, tensor<3xf64>
}
"""

# The comparison reading the max's accumulator feeds a float output: refused.
VALUE_AT_ARGMAX = """
func.func @f(%x: tensor<5xf64>, %y: tensor<5xf64>) -> (tensor<f64>, tensor<f64>) {
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %e = tensor.empty() : tensor<f64>
  %iv = linalg.fill ins(%ninf : f64) outs(%e : tensor<f64>) -> tensor<f64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>],
      iterator_types = ["reduction"]}
      ins(%x, %y : tensor<5xf64>, tensor<5xf64>) outs(%iv, %iv : tensor<f64>, tensor<f64>) {
  ^bb0(%in: f64, %w: f64, %val: f64, %at: f64):
    %m = arith.maximumf %in, %val : f64
    %c = arith.cmpf ogt, %in, %val : f64
    %s = arith.select %c, %w, %at : f64
    linalg.yield %m, %s : f64, f64
  } -> (tensor<f64>, tensor<f64>)
  return %r#0, %r#1 : tensor<f64>, tensor<f64>
}
"""

SQUARED_ACCUMULATOR = """
func.func @f(%x: tensor<5xf64>) -> (tensor<f64>, tensor<i32>) {
  %one = arith.constant 1.0 : f64
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<f64>
  %ei = tensor.empty() : tensor<i32>
  %iv = linalg.fill ins(%one : f64) outs(%e : tensor<f64>) -> tensor<f64>
  %ii = linalg.fill ins(%c0 : i32) outs(%ei : tensor<i32>) -> tensor<i32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>],
      iterator_types = ["reduction"]}
      ins(%x : tensor<5xf64>) outs(%iv, %ii : tensor<f64>, tensor<i32>) {
  ^bb0(%in: f64, %val: f64, %idx: i32):
    %sq = arith.mulf %val, %val : f64
    %m = arith.addf %in, %sq : f64
    %c = arith.cmpf ogt, %in, %val : f64
    %s = arith.select %c, %idx, %idx : i32
    linalg.yield %m, %s : f64, i32
  } -> (tensor<f64>, tensor<i32>)
  return %r#0, %r#1 : tensor<f64>, tensor<i32>
}
"""


@pytest.mark.parametrize(
    "text, inputs",
    [(MIXED, [(3, 4)]), (VALUE_AT_ARGMAX, [(5,), (5,)]), (SQUARED_ACCUMULATOR, [(5,)])],
    ids=["mixed", "value_at_argmax", "squared_accumulator"],
)
def test_other_reductions_are_folds(text, inputs):
    """Refused until the sequential fold (tests/numerics/test_generic_fold.py): an output
    elementwise beside a reducing one, a value chosen by another output's comparison, an
    accumulator read twice."""
    arrays = [_distinct(shape, seed) / 4 for seed, shape in enumerate(inputs)]
    result = gradir.gradcheck(text, "f", inputs=arrays)
    assert result.ok, result.report()


CAPTURED_SUMMAND = """
func.func @f(%x: tensor<4xf64>, %s: tensor<2xf64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %v = tensor.extract %s[%c0] : tensor<2xf64>
  %e = tensor.empty() : tensor<f64>
  %z = arith.constant 0.5 : f64
  %i = linalg.fill ins(%z : f64) outs(%e : tensor<f64>) -> tensor<f64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>, affine_map<(d0) -> ()>],
      iterator_types = ["reduction"]} ins(%x : tensor<4xf64>) outs(%i, %i : tensor<f64>, tensor<f64>) {
  ^bb0(%in: f64, %a: f64, %b: f64):
    %p = arith.subf %a, %in : f64
    %q = arith.addf %v, %b : f64
    linalg.yield %p, %q : f64, f64
  } -> (tensor<f64>, tensor<f64>)
  %m = arith.mulf %r#0, %r#1 : tensor<f64>
  return %m : tensor<f64>
}
"""
"""A sum whose summand is a scalar captured from outside the op (property seed 74 with gathers in
branches): telling whether the summand reads an accumulator walked up from its definition
outside the body and failed an assertion."""


def test_a_captured_scalar_summed_into_an_accumulator():
    x, s = np.array([0.5, -1.0, 2.0, 0.25]), np.array([1.5, -2.0])
    result = gradir.gradcheck(CAPTURED_SUMMAND, "f", inputs=[x, s])
    assert result.ok, result.report()
    np.testing.assert_allclose(gradir.compile(CAPTURED_SUMMAND).f(x, s), (0.5 - x.sum()) * (0.5 + 4 * s[0]))
