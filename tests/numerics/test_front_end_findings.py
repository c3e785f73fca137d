"""Programs from other front ends that gradir refused, cut down to what each needed
(corpus additions of 2026-11-29: torch-mlir's FX importer, StableHLO's and tpp-mlir's
linalg). Values against NumPy, derivatives by `gradcheck` (f64 central differences, vjp
and jvp, through the CPU pipeline)."""
import numpy as np
import pytest

import gradir

RESHAPE = """
func.func @f(%x: tensor<?x6xf64>, %shape: tensor<{R}x{T}>) -> tensor<{RESULT}xf64> {
  %r = tensor.reshape %x(%shape) : (tensor<?x6xf64>, tensor<{R}x{T}>) -> tensor<{RESULT}xf64>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %r, %c0 : tensor<{RESULT}xf64>
  %e = tensor.empty(%n) : tensor<{RESULT}xf64>
  %s = linalg.generic {indexing_maps = [{MAP}, {MAP}], iterator_types = [{ITERATORS}]}
      ins(%r : tensor<{RESULT}xf64>) outs(%e : tensor<{RESULT}xf64>) {
  ^bb0(%a: f64, %o: f64):
    %y = math.sin %a : f64
    linalg.yield %y : f64
  } -> tensor<{RESULT}xf64>
  return %s : tensor<{RESULT}xf64>
}
"""
"""torch-mlir's `view` of a tensor of dynamic batch: `tensor.reshape` by a shape tensor
(xDSL 0.74's verifier refused `?x6` to `?x3`; the rule refused dynamic shapes)."""


@pytest.mark.parametrize(
    "result, element, new_shape",
    [("?x3", "i64", (4, 3)), ("?x3", "index", (4, 3)), ("?x2x3", "i64", (2, 2, 3))],
    ids=["i64", "index", "rank-3"],
)
def test_reshape_of_dynamic_shape(result, element, new_shape):
    rank = result.count("x") + 1
    dims = ", ".join(f"d{i}" for i in range(rank))
    text = (
        RESHAPE.replace("{RESULT}", result).replace("{R}", str(rank)).replace("{T}", element)
        .replace("{MAP}", f"affine_map<({dims}) -> ({dims})>").replace("{ITERATORS}", ", ".join(['"parallel"'] * rank))
    )  # fmt: skip
    x = np.random.default_rng(rank).normal(size=(2, 6))
    shape = np.array(new_shape, dtype=np.int64)
    result_ = gradir.gradcheck(text, "f", inputs=[x, shape], wrt=[0])
    assert result_.ok, result_.report()
    np.testing.assert_allclose(gradir.compile(text).f(x, shape), np.sin(x.reshape(new_shape)), rtol=1e-12)


REVERSED = """
func.func @f(%a: tensor<?xf64>) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c0 : tensor<?xf64>
  %e = tensor.empty(%n) : tensor<?xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<?xf64>) {
  ^bb0(%out: f64):
    %i = linalg.index 0 : index
    %m = tensor.dim %a, %c0 : tensor<?xf64>
    %k = arith.subi %m, %i : index
    %j = arith.subi %k, %c1 : index
    %v = tensor.extract %a[%j] : tensor<?xf64>
    %s = arith.mulf %v, %v : f64
    linalg.yield %s : f64
  } -> tensor<?xf64>
  return %r : tensor<?xf64>
}
"""
"""StableHLO's concatenate (primitive ops off) reads a captured tensor's `tensor.dim` inside
the generic body: a size, no derivative (refused as an unsupported read until then)."""


def test_tensor_dim_of_a_captured_tensor_in_a_body():
    x = np.array([0.5, -1.0, 2.0, 3.0])
    result = gradir.gradcheck(REVERSED, "f", inputs=[x])
    assert result.ok, result.report()
    np.testing.assert_allclose(gradir.compile(REVERSED).f(x), x[::-1] ** 2)


MATERIALIZE = """
func.func @f(%x: tensor<4xf64>, %d: tensor<4xf64>) -> tensor<4xf64> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf64>) outs(%d : tensor<4xf64>) {
  ^bb0(%in: f64, %out: f64):
    %1 = arith.mulf %in, %out : f64
    linalg.yield %1 : f64
  } -> tensor<4xf64>
  %r = bufferization.materialize_in_destination %0 in %d : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  return %r : tensor<4xf64>
}
"""
"""tpp-mlir's MLP benchmarks end by materializing the result in an argument, which the CPU
runtime keeps read-only ("would write to read-only buffer" from bufferization)."""


def test_materialize_in_an_argument_returns_the_value_and_leaves_the_argument():
    x, d = np.array([0.5, -1.0, 2.0, 3.0]), np.array([1.5, 2.0, -0.5, 0.25])
    kept = d.copy()
    np.testing.assert_allclose(gradir.compile(MATERIALIZE).f(x, d), x * d)
    np.testing.assert_array_equal(d, kept)  # the caller's array is not written
    result = gradir.gradcheck(MATERIALIZE, "f", inputs=[x, d])
    assert result.ok, result.report()


SCALAR_EXPANDED = """
func.func @f(%x: tensor<f64>, %y: tensor<3xf64>) -> tensor<1xf64> {
  %e = tensor.expand_shape %x [] output_shape [1] : tensor<f64> into tensor<1xf64>
  %s = tensor.extract_slice %y[1] [1] [1] : tensor<3xf64> to tensor<1xf64>
  %m = arith.mulf %e, %s : tensor<1xf64>
  %c = tensor.collapse_shape %m [] : tensor<1xf64> into tensor<f64>
  %b = tensor.expand_shape %c [] output_shape [1] : tensor<f64> into tensor<1xf64>
  %r = arith.mulf %b, %e : tensor<1xf64>
  return %r : tensor<1xf64>
}
"""
"""torch-mlir's log_softmax along dim 0 of a vector expands its 0-d max back to 1-d with no
reassociation groups, as MLIR allows for sizes 1; xDSL 0.74's verifier refused it."""


def test_a_scalar_expanded_to_size_one_and_back():
    x, y = np.array(1.5), np.array([0.5, -2.0, 3.0])
    result = gradir.gradcheck(SCALAR_EXPANDED, "f", inputs=[x, y])
    assert result.ok, result.report()
    np.testing.assert_allclose(gradir.compile(SCALAR_EXPANDED).f(x, y), [x * x * y[1]])
