"""linalg.generic in the forms front ends emit: bodies that read values from
outside the op (captured scalars, gathers from captured tensors), maps that
are not projected permutations, reductions of every combiner, scf.if in the
body, and bodies holding constants, integers and bitcasts: each
derivative checked in f64 against central differences through the CPU
pipeline, in reverse and forward mode.

The first case is the one that once gave a wrong gradient with no error
(`s = x[0]; y = generic(x) { a / s }`)."""
from __future__ import annotations

import numpy as np
import pytest

import gradir
from gradir.errors import DifferentiationError

GRAD_OF_F = """
func.func @g(%x: tensor<4xf64>) -> tensor<4xf64> {
  %g = autodiff.grad @f(%x) : (tensor<4xf64>) -> tensor<4xf64>
  return %g : tensor<4xf64>
}"""

PROGRAMS = {
    # s = x[0]; y = x / s; loss = sum(y): the captured scalar
    "captured_scalar_from_extract": """
func.func @f(%x: tensor<4xf64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %s = tensor.extract %x[%c0] : tensor<4xf64>
  %e = tensor.empty() : tensor<4xf64>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%a: f64, %o: f64):
    %d = arith.divf %a, %s : f64
    linalg.yield %d : f64
  } -> tensor<4xf64>
  %z = arith.constant dense<0.0> : tensor<f64>
  %r = linalg.reduce ins(%y : tensor<4xf64>) outs(%z : tensor<f64>) dimensions = [0]
    (%in: f64, %acc: f64) {
      %t = arith.addf %in, %acc : f64
      linalg.yield %t : f64
    }
  return %r : tensor<f64>
}""",
    # a scalar computed before the op from a second argument, read in a reduction body
    "captured_scalar_in_reduction": """
func.func @f(%x: tensor<3x4xf64>, %w: tensor<2xf64>) -> tensor<3xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w0 = tensor.extract %w[%c0] : tensor<2xf64>
  %w1 = tensor.extract %w[%c1] : tensor<2xf64>
  %s = arith.mulf %w0, %w1 : f64
  %z = arith.constant dense<0.0> : tensor<3xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x4xf64>) outs(%z : tensor<3xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %p = arith.mulf %a, %s : f64
    %q = math.sin %p : f64
    %n = arith.addf %q, %acc : f64
    linalg.yield %n : f64
  } -> tensor<3xf64>
  return %r : tensor<3xf64>
}""",
    # a gather at linalg.index positions (an affine read of a captured tensor), reading part of it
    "gather_at_loop_index": """
func.func @f(%x: tensor<3xf64>, %t: tensor<5x2xf64>) -> tensor<3xf64> {
  %e = tensor.empty() : tensor<3xf64>
  %c1 = arith.constant 1 : index
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<3xf64>) outs(%e : tensor<3xf64>) {
  ^bb0(%a: f64, %o: f64):
    %i = linalg.index 0 : index
    %g = tensor.extract %t[%i, %c1] : tensor<5x2xf64>
    %m = arith.mulf %a, %g : f64
    %n = arith.mulf %m, %g : f64
    linalg.yield %n : f64
  } -> tensor<3xf64>
  return %y : tensor<3xf64>
}""",
    # a gather at indices computed from data (an integer tensor), one index repeated
    "gather_at_data_indices": """
func.func @f(%x: tensor<4xf64>, %t: tensor<3xf64>) -> tensor<4xf64> {
  %idx = arith.constant dense<[2, 0, 2, 1]> : tensor<4xi32>
  %e = tensor.empty() : tensor<4xf64>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x, %idx : tensor<4xf64>, tensor<4xi32>) outs(%e : tensor<4xf64>) {
  ^bb0(%a: f64, %k: i32, %o: f64):
    %i = arith.index_cast %k : i32 to index
    %g = tensor.extract %t[%i] : tensor<3xf64>
    %m = arith.mulf %a, %g : f64
    %n = math.exp %m : f64
    linalg.yield %n : f64
  } -> tensor<4xf64>
  return %y : tensor<4xf64>
}""",
    # the size-1 broadcast JAX and torch-mlir emit: (d0, d1) -> (0, d1)
    "constant_index_map": """
func.func @f(%x: tensor<3x4xf64>, %b: tensor<1x4xf64>) -> tensor<3x4xf64> {
  %e = tensor.empty() : tensor<3x4xf64>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<3x4xf64>, tensor<1x4xf64>) outs(%e : tensor<3x4xf64>) {
  ^bb0(%a: f64, %c: f64, %o: f64):
    %m = arith.mulf %a, %c : f64
    %n = math.tanh %m : f64
    linalg.yield %n : f64
  } -> tensor<3x4xf64>
  return %y : tensor<3x4xf64>
}""",
    # a 1-d convolution written as a generic: the input map d0 + d1 is not a projected permutation
    "convolution_window_map": """
func.func @f(%x: tensor<6xf64>, %k: tensor<3xf64>) -> tensor<4xf64> {
  %z = arith.constant dense<0.0> : tensor<4xf64>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 + d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x, %k : tensor<6xf64>, tensor<3xf64>) outs(%z : tensor<4xf64>) {
  ^bb0(%a: f64, %w: f64, %acc: f64):
    %m = arith.mulf %a, %w : f64
    %n = arith.addf %m, %acc : f64
    linalg.yield %n : f64
  } -> tensor<4xf64>
  return %y : tensor<4xf64>
}""",
    # relu written with a branch (LAGrad's style), the branch reading an outer body value
    "branch_in_body": """
func.func @f(%x: tensor<5xf64>) -> tensor<5xf64> {
  %e = tensor.empty() : tensor<5xf64>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<5xf64>) outs(%e : tensor<5xf64>) {
  ^bb0(%a: f64, %o: f64):
    %h = arith.constant 0.7 : f64
    %s = math.sin %a : f64
    %c = arith.cmpf ogt, %a, %h : f64
    %r = scf.if %c -> (f64) {
      %t = arith.mulf %s, %a : f64
      scf.yield %t : f64
    } else {
      %u = math.exp %s : f64
      scf.yield %u : f64
    }
    linalg.yield %r : f64
  } -> tensor<5xf64>
  return %y : tensor<5xf64>
}""",
    # the diagonal: a dimension repeated in one map
    "diagonal_map": """
func.func @f(%x: tensor<4x4xf64>) -> tensor<4xf64> {
  %e = tensor.empty() : tensor<4xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i, i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x : tensor<4x4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%u: f64, %o: f64):
    %s = math.sin %u : f64
    linalg.yield %s : f64
  } -> tensor<4xf64>
  return %r : tensor<4xf64>
}""",
    # constants, an integer input converted with sitofp and linalg.index carry no derivative
    "constants_and_integers_in_body": """
func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {
  %n = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %e = tensor.empty() : tensor<4xf64>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x, %n : tensor<4xf64>, tensor<4xi32>) outs(%e : tensor<4xf64>) {
  ^bb0(%a: f64, %k: i32, %o: f64):
    %two = arith.constant 2.0 : f64
    %kf = arith.sitofp %k : i32 to f64
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %if = arith.sitofp %ii : i64 to f64
    %p = arith.mulf %a, %two : f64
    %q = arith.mulf %p, %kf : f64
    %r = arith.addf %q, %if : f64
    %s = math.sin %r : f64
    linalg.yield %s : f64
  } -> tensor<4xf64>
  return %y : tensor<4xf64>
}""",
}


def reduction(combine: str, x_shape: str = "3x4", out: str = "3") -> str:
    """A row reduction generic whose body is `e = sin(x) * 1.5`, then `combine`."""
    return f"""
func.func @f(%x: tensor<{x_shape}xf64>, %init: tensor<{out}xf64>) -> tensor<{out}xf64> {{
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}}
      ins(%x : tensor<{x_shape}xf64>) outs(%init : tensor<{out}xf64>) {{
  ^bb0(%a: f64, %acc: f64):
    %s = math.sin %a : f64
    %k = arith.constant 1.5 : f64
    %e = arith.mulf %s, %k : f64
{combine}
  }} -> tensor<{out}xf64>
  return %r : tensor<{out}xf64>
}}"""


REDUCTIONS = {
    "if_max": "    %c = arith.cmpf ogt, %e, %acc : f64\n    %m = scf.if %c -> (f64) {\n      scf.yield %e : f64\n"
              "    } else {\n      scf.yield %acc : f64\n    }\n    linalg.yield %m : f64",
    "maximumf": "    %m = arith.maximumf %e, %acc : f64\n    linalg.yield %m : f64",
    "minimumf": "    %m = arith.minimumf %e, %acc : f64\n    linalg.yield %m : f64",
    "select_max": "    %c = arith.cmpf ogt, %e, %acc : f64\n    %m = arith.select %c, %e, %acc : f64\n    linalg.yield %m : f64",
    "select_min": "    %c = arith.cmpf ogt, %acc, %e : f64\n    %m = arith.select %c, %e, %acc : f64\n    linalg.yield %m : f64",
    "product": "    %m = arith.mulf %e, %acc : f64\n    linalg.yield %m : f64",
    "difference": "    %m = arith.subf %acc, %e : f64\n    linalg.yield %m : f64",
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reduction_combiners_match_finite_differences(name):
    result = gradir.gradcheck(reduction(REDUCTIONS[name]), "f", seed=5)
    assert result.ok, result.report()
    assert all(np.max(np.abs(check.analytic)) > 1e-3 for check in result.checks), result.report()


def test_max_reduction_shares_the_gradient_among_ties_and_the_init():
    """PyTorch's amax convention: tied candidates, the init included, share evenly."""
    exe = gradir.compile(reduction(REDUCTIONS["maximumf"], "2x3", "2") + """
func.func @g(%x: tensor<2x3xf64>, %init: tensor<2xf64>, %ct: tensor<2xf64>) -> (tensor<2x3xf64>, tensor<2xf64>) {
  %r:3 = autodiff.vjp @f(%x, %init, %ct) : (tensor<2x3xf64>, tensor<2xf64>, tensor<2xf64>) -> (tensor<2xf64>, tensor<2x3xf64>, tensor<2xf64>)
  return %r#1, %r#2 : tensor<2x3xf64>, tensor<2xf64>
}""")
    top = np.arcsin(1 / 1.5 * 1.2)  # sin(top) * 1.5 == 1.2
    x = np.array([[top, 0.1, top], [0.2, top, 0.3]])
    init = np.array([1.2, 1.2])
    dx, dinit = exe.g(x, init, np.array([6.0, 6.0]))
    np.testing.assert_allclose(dx, [[2 * np.cos(top) * 1.5, 0, 2 * np.cos(top) * 1.5], [0, 3 * np.cos(top) * 1.5, 0]], atol=1e-12)
    np.testing.assert_allclose(dinit, [2.0, 3.0])


def test_product_reduction_with_a_zero_factor():
    """The exclusive product gives the right gradient where one factor is 0 (no division by it)."""
    exe = gradir.compile(reduction(REDUCTIONS["product"], "1x3", "1") + """
func.func @g(%x: tensor<1x3xf64>, %init: tensor<1xf64>) -> tensor<1x3xf64> {
  %ct = arith.constant dense<1.0> : tensor<1xf64>
  %r:3 = autodiff.vjp @f(%x, %init, %ct) : (tensor<1x3xf64>, tensor<1xf64>, tensor<1xf64>) -> (tensor<1xf64>, tensor<1x3xf64>, tensor<1xf64>)
  return %r#1 : tensor<1x3xf64>
}""")
    x = np.array([[0.0, 0.5, 1.0]])
    dx = exe.g(x, np.array([2.0]))
    e = np.sin(x[0]) * 1.5
    expected = [2 * e[1] * e[2] * np.cos(x[0, 0]) * 1.5, 0.0, 0.0]  # e[0] == 0: only its own entry survives
    np.testing.assert_allclose(dx[0], expected, atol=1e-12)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_generic_derivatives_match_finite_differences(name):
    result = gradir.gradcheck(PROGRAMS[name], "f", seed=3)
    assert result.ok, result.report()
    checks = result.checks
    assert {check.mode for check in checks} == {"vjp", "jvp"}
    assert all(np.max(np.abs(check.analytic)) > 1e-3 for check in checks), result.report()


def test_the_silent_wrong_gradient_is_fixed_in_numbers():
    """d/dx sum(x / x[0]): x[0] gets 1/s - sum(x)/s^2, the others 1/s."""
    x = np.array([0.5, 1.0, 2.0, 4.0])
    exe = gradir.compile(PROGRAMS["captured_scalar_from_extract"] + GRAD_OF_F)
    gradient = exe.g(x)
    expected = np.full(4, 1 / x[0])
    expected[0] -= x.sum() / x[0] ** 2
    np.testing.assert_allclose(gradient, expected, rtol=1e-12)


def test_a_rule_that_ignores_captured_values_is_refused(monkeypatch):
    """The global guarantee: with the generic rule's capture handling taken
    away, the same program is a located error, never a zero gradient."""
    from dataclasses import replace

    from gradir.autodiff_pass.rules import registry

    rules = registry._all_rules()
    monkeypatch.setitem(rules, "linalg.generic", replace(rules["linalg.generic"], captures=False))
    source = PROGRAMS["captured_scalar_from_extract"] + GRAD_OF_F
    with pytest.raises(DifferentiationError, match=r"<string>:6:3: error: differentiation of 'linalg.generic': "
                       r"its region reads the active value %s \(defined at <string>:4:3\) from outside"):
        gradir.compile(source)


def test_bitcast_of_a_varied_value_is_refused_in_both_modes():
    source = """
func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {
  %e = tensor.empty() : tensor<4xf64>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%a: f64, %o: f64):
    %b = arith.bitcast %a : f64 to i64
    %c = arith.bitcast %b : i64 to f64
    linalg.yield %c : f64
  } -> tensor<4xf64>
  return %y : tensor<4xf64>
}"""
    for mode in ("vjp", "jvp"):
        with pytest.raises(DifferentiationError, match="bitcasts a value that carries a derivative"):
            gradir.gradcheck(source, "f", modes=(mode,))


ARG_MAX = """
func.func @f(%x: tensor<3x4xf64>, %init: tensor<3xf64>, %index: tensor<3xi64>) -> tensor<3xf64> {
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x4xf64>) outs(%init, %index : tensor<3xf64>, tensor<3xi64>) {
  ^bb0(%a: f64, %acc: f64, %at: i64):
    %e = math.sin %a : f64
    %k = linalg.index 1 : index
    %ki = arith.index_cast %k : index to i64
    %gt = arith.cmpf ogt, %e, %acc : f64
    %m = arith.select %gt, %e, %acc : f64
    %j = arith.select %gt, %ki, %at : i64
    linalg.yield %m, %j : f64, i64
  } -> (tensor<3xf64>, tensor<3xi64>)
  return %r#0 : tensor<3xf64>
}"""


def test_a_max_with_its_integer_arg_max_output_is_differentiated():
    """torch-mlir's max-with-index reduction: the index output has no gradient;
    the max output's is routed to the arg-max (both modes)."""
    rng = np.random.default_rng(11)
    x = rng.permutation(np.linspace(-1.2, 1.2, 12)).reshape(3, 4)  # distinct: no ties
    result = gradir.gradcheck(ARG_MAX, "f", inputs=[x, np.full(3, -2.0), np.zeros(3, np.int64)], wrt=[0])
    assert result.ok, result.report()
    assert all(np.max(np.abs(check.analytic)) > 1e-3 for check in result.checks), result.report()
