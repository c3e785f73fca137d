"""Reductions whose combiner has no parallel adjoint, differentiated as sequential folds
(`autodiff_pass/rules/generic_fold.py`): values against NumPy loops written from MLIR's
semantics (the body applied in lexicographic order), derivatives by `gradcheck` (f64 central
differences, vjp and jvp, through the CPU pipeline) on random shapes.

The folds here are order-dependent (`acc * acc / 2 + x`), so a backward pass visiting the
points in another order than the exact reverse gives other numbers."""
import numpy as np
import pytest

import gradir
from gradir.autodiff_pass.rules.generic_reductions import seeded_in_parallel
from gradir.source import load_module

LOG_ADD_EXP = """
func.func @f(%x: tensor<{M}x{N}xf64>, %init: tensor<{M}xf64>) -> tensor<{M}xf64> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
      iterator_types = ["parallel", "reduction"]} ins(%x : tensor<{M}x{N}xf64>) outs(%init : tensor<{M}xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %m = arith.maximumf %acc, %a : f64
    %d = arith.subf %acc, %a : f64
    %ab = math.absf %d : f64
    %n = arith.negf %ab : f64
    %e = math.exp %n : f64
    %l = math.log1p %e : f64
    %s = arith.addf %m, %l : f64
    linalg.yield %s : f64
  } -> tensor<{M}xf64>
  return %r : tensor<{M}xf64>
}
"""

HALF_SQUARE = """
func.func @f(%x: tensor<{M}x{N}xf64>, %init: tensor<{N}xf64>) -> tensor<{N}xf64> {
  %half = arith.constant 0.5 : f64
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
      iterator_types = ["reduction", "parallel"]} ins(%x : tensor<{M}x{N}xf64>) outs(%init : tensor<{N}xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %sq = arith.mulf %acc, %acc : f64
    %h = arith.mulf %sq, %half : f64
    %s = arith.addf %h, %a : f64
    linalg.yield %s : f64
  } -> tensor<{N}xf64>
  return %r : tensor<{N}xf64>
}
"""
"""`acc' = acc^2 / 2 + x` down each column (the reduction loop first): order-dependent."""

# A cumulative log-add-exp over a window of 3, as JAX lowers lax.cumlogsumexp: the input
# padded with -inf in front, read at d1 + d2, the window's extent from a shape operand,
# the init -inf, and JAX's guard for -inf - -inf (a NaN: then the plain sum).
CUMULATIVE = """
func.func @f(%x: tensor<{M}x{N}xf64>) -> tensor<{M}x{N}xf64> {
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %p = tensor.pad %x low[0, 2] high[0, 0] {
  ^bb0(%i: index, %j: index):
    tensor.yield %ninf : f64
  } : tensor<{M}x{N}xf64> to tensor<{M}x{P}xf64>
  %window = tensor.empty() : tensor<3xf64>
  %e = tensor.empty() : tensor<{M}x{N}xf64>
  %init = linalg.fill ins(%ninf : f64) outs(%e : tensor<{M}x{N}xf64>) -> tensor<{M}x{N}xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1 + d2)>, affine_map<(d0, d1, d2) -> (d2)>,
                                        affine_map<(d0, d1, d2) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%p, %window : tensor<{M}x{P}xf64>, tensor<3xf64>) outs(%init : tensor<{M}x{N}xf64>) {
  ^bb0(%in: f64, %w: f64, %out: f64):
    %m = arith.maximumf %out, %in : f64
    %d = arith.subf %out, %in : f64
    %nan = arith.cmpf une, %d, %d : f64
    %plain = arith.addf %out, %in : f64
    %ab = math.absf %d : f64
    %n = arith.negf %ab : f64
    %ex = math.exp %n : f64
    %l = math.log1p %ex : f64
    %s = arith.addf %m, %l : f64
    %y = arith.select %nan, %plain, %s : f64
    linalg.yield %y : f64
  } -> tensor<{M}x{N}xf64>
  return %r : tensor<{M}x{N}xf64>
}
"""

# A fold reading a captured scalar (the first element of %s), its position (linalg.index)
# and a captured tensor at that position (a gather): each gets its gradient.
CAPTURED = """
func.func @f(%x: tensor<{M}x{N}xf64>, %s: tensor<2xf64>, %w: tensor<{N}xf64>) -> tensor<{M}xf64> {
  %c0 = arith.constant 0 : index
  %scale = tensor.extract %s[%c0] : tensor<2xf64>
  %start = arith.constant 0.75 : f64
  %e = tensor.empty() : tensor<{M}xf64>
  %init = linalg.fill ins(%start : f64) outs(%e : tensor<{M}xf64>) -> tensor<{M}xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
      iterator_types = ["parallel", "reduction"]} ins(%x : tensor<{M}x{N}xf64>) outs(%init : tensor<{M}xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %j = linalg.index 1 : index
    %wj = tensor.extract %w[%j] : tensor<{N}xf64>
    %ji = arith.index_cast %j : index to i64
    %jf = arith.sitofp %ji : i64 to f64
    %sq = arith.mulf %acc, %acc : f64
    %t = arith.mulf %sq, %scale : f64
    %xa = arith.mulf %a, %wj : f64
    %u = arith.addf %t, %xa : f64
    %v = arith.addf %u, %jf : f64
    %k = arith.constant 0.5 : f64
    %y = arith.mulf %v, %k : f64
    linalg.yield %y : f64
  } -> tensor<{M}xf64>
  return %r : tensor<{M}xf64>
}
"""

REDUCE_DIVIDE = """
func.func @f(%x: tensor<{M}x{N}xf64>, %init: tensor<{M}xf64>) -> tensor<{M}xf64> {
  %r = linalg.reduce ins(%x : tensor<{M}x{N}xf64>) outs(%init : tensor<{M}xf64>) dimensions = [1]
    (%in: f64, %acc: f64) {
      %q = arith.divf %acc, %in : f64
      linalg.yield %q : f64
    }
  return %r : tensor<{M}xf64>
}
"""
"""A `linalg.reduce` dividing its accumulator by each element (through the generic view)."""

SHAPES = [(3, 5), (1, 7), (4, 1), (2, 3)]


def _program(template: str, m, n, **extra) -> str:
    text = template.replace("{M}", str(m)).replace("{N}", str(n))
    for key, value in extra.items():
        text = text.replace("{" + key + "}", str(value))
    return text


def _check(text: str, inputs: list[np.ndarray]):
    result = gradir.gradcheck(text, "f", inputs=inputs)
    assert result.ok, result.report()
    assert not any(check.vacuous for check in result.checks), result.report()
    return gradir.compile(text).f(*inputs)


@pytest.mark.parametrize("shape", SHAPES)
def test_log_add_exp(shape):
    rng = np.random.default_rng(sum(shape))
    x, init = rng.normal(size=shape), rng.normal(size=shape[:1])
    value = _check(_program(LOG_ADD_EXP, *shape), [x, init])
    np.testing.assert_allclose(value, np.logaddexp.reduce(np.concatenate([init[:, None], x], axis=1), axis=1), rtol=1e-12)


def test_log_add_exp_of_dynamic_shape():
    rng = np.random.default_rng(3)
    x, init = rng.normal(size=(3, 4)), rng.normal(size=3)
    value = _check(_program(LOG_ADD_EXP, "?", "?"), [x, init])
    np.testing.assert_allclose(value, np.logaddexp.reduce(np.concatenate([init[:, None], x], axis=1), axis=1), rtol=1e-12)


@pytest.mark.parametrize("shape", SHAPES)
def test_order_dependent_fold(shape):
    rng = np.random.default_rng(len(shape) + shape[0])
    x, init = rng.uniform(-0.5, 0.5, size=shape), rng.uniform(-0.5, 0.5, size=shape[1:])
    value = _check(_program(HALF_SQUARE, *shape), [x, init])
    expected = init.copy()
    for row in x:
        expected = expected * expected / 2 + row
    np.testing.assert_allclose(value, expected, rtol=1e-12)


@pytest.mark.parametrize("shape", SHAPES[:2])
def test_linalg_reduce_dividing(shape):
    rng = np.random.default_rng(shape[1])
    x, init = rng.uniform(0.5, 2.0, size=shape), rng.uniform(0.5, 2.0, size=shape[:1])
    value = _check(_program(REDUCE_DIVIDE, *shape), [x, init])
    np.testing.assert_allclose(value, init / x.prod(axis=1), rtol=1e-12)


@pytest.mark.parametrize("shape", [(2, 5), (3, 1), (1, 4)])
def test_cumulative_log_add_exp_over_a_window(shape):
    m, n = shape
    rng = np.random.default_rng(n)
    x = rng.normal(size=shape)
    value = _check(_program(CUMULATIVE, m, n, P=n + 2), [x])
    expected = np.array([[np.logaddexp.reduce(row[max(0, t - 2) : t + 1]) for t in range(n)] for row in x])
    np.testing.assert_allclose(value, expected, rtol=1e-12)


@pytest.mark.parametrize("shape", [(3, 4), (1, 2)])
def test_captured_scalar_gather_and_index(shape):
    m, n = shape
    rng = np.random.default_rng(m * n)
    x, s, w = rng.normal(size=shape), rng.uniform(0.5, 1.5, size=2), rng.normal(size=n)
    value = _check(_program(CAPTURED, m, n), [x, s, w])
    expected = np.full(m, 0.75)
    for j in range(n):
        expected = (expected * expected * s[0] + x[:, j] * w[j] + j) * 0.5
    np.testing.assert_allclose(value, expected, rtol=1e-12)


def test_known_combiners_keep_the_parallel_adjoint():
    """Sums, products, max and min are not folds: their adjoints are parallel generics."""
    sum_ = LOG_ADD_EXP.replace("{M}", "3").replace("{N}", "4")
    body = sum_[sum_.index("^bb0") : sum_.index("} -> tensor<3xf64>")]
    for combine in ("addf", "mulf", "maximumf", "minimumf"):
        text = sum_.replace(body, f"^bb0(%a: f64, %acc: f64):\n    %s = arith.{combine} %acc, %a : f64\n    linalg.yield %s : f64\n  ")
        (generic,) = [op for op in load_module(text).walk() if op.name == "linalg.generic"]
        assert seeded_in_parallel(generic), combine
        module = load_module(text)
        gradir.differentiate(module, "f")  # adds the derivative functions to the module
        assert "scf.for" not in str(module), combine
    (generic,) = [op for op in load_module(sum_).walk() if op.name == "linalg.generic"]
    assert not seeded_in_parallel(generic)
    module = load_module(sum_)
    gradir.differentiate(module, "f")
    assert str(module).count("scf.for") == 4  # the fold's two nests of two loops
