"""Gathers inside the branches of a generic body (`autodiff_pass/hoist_branch_gathers.py`):
StableHLO's concatenate lowering and a table read under a condition, differentiated in both
modes (gradcheck: f64 central differences, vjp and jvp, through the CPU pipeline), and what
stays refused."""
import numpy as np
import pytest

import gradir
from gradir.source import load_module

CONCATENATE = """
func.func @f(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>, %c: tensor<?x?xf64>) -> tensor<?x?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = tensor.dim %a, %c0 : tensor<?x?xf64>
  %na = tensor.dim %a, %c1 : tensor<?x?xf64>
  %nb = tensor.dim %b, %c1 : tensor<?x?xf64>
  %nc = tensor.dim %c, %c1 : tensor<?x?xf64>
  %ab = arith.addi %na, %nb : index
  %n = arith.addi %ab, %nc : index
  %e = tensor.empty(%rows, %n) : tensor<?x?xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x?xf64>) {
  ^bb0(%out: f64):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %wa = tensor.dim %a, %c1 : tensor<?x?xf64>
    %in_a = arith.cmpi ult, %j, %wa : index
    %v = scf.if %in_a -> (f64) {
      %x = tensor.extract %a[%i, %j] : tensor<?x?xf64>
      scf.yield %x : f64
    } else {
      %wb = tensor.dim %b, %c1 : tensor<?x?xf64>
      %end_b = arith.addi %wa, %wb : index
      %in_b = arith.cmpi ult, %j, %end_b : index
      %w = scf.if %in_b -> (f64) {
        %jb = arith.subi %j, %wa : index
        %x = tensor.extract %b[%i, %jb] : tensor<?x?xf64>
        scf.yield %x : f64
      } else {
        %jc = arith.subi %j, %end_b : index
        %x = tensor.extract %c[%i, %jc] : tensor<?x?xf64>
        %s = math.sin %x : f64
        scf.yield %s : f64
      }
      scf.yield %w : f64
    }
    %sq = arith.mulf %v, %v : f64
    linalg.yield %sq : f64
  } -> tensor<?x?xf64>
  return %r : tensor<?x?xf64>
}
"""
"""StableHLO's concatenate (primitive ops off): nested `scf.if`s pick the input, the index is
shifted inside the branch; the third input goes through a sine, so each part differs."""


@pytest.mark.parametrize("widths", [(2, 1, 3), (1, 4, 1)])
def test_a_concatenate_written_with_branches(widths):
    rng = np.random.default_rng(sum(widths))
    a, b, c = (rng.normal(size=(2, w)) for w in widths)
    result = gradir.gradcheck(CONCATENATE, "f", inputs=[a, b, c])
    assert result.ok, result.report()
    expected = np.concatenate([a, b, np.sin(c)], axis=1) ** 2
    np.testing.assert_allclose(gradir.compile(CONCATENATE).f(a, b, c), expected, rtol=1e-12)


def test_the_users_function_keeps_its_branches():
    """Only the derivative function's copy of the primal is rewritten."""
    module = load_module(CONCATENATE.replace("func.func @f", "func.func @f") + """
func.func @df(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>, %c: tensor<?x?xf64>, %g: tensor<?x?xf64>)
    -> (tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>) {
  %r:4 = autodiff.vjp @f(%a, %b, %c, %g) : (tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>)
      -> (tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>
}
""")
    gradir.differentiate(module, "f")
    f = next(op for op in module.ops if getattr(op, "sym_name", None) and op.sym_name.data == "f")
    extracts = [op for op in f.walk() if op.name == "tensor.extract"]
    assert len(extracts) == 3 and all(op.parent_op().name == "scf.if" for op in extracts)


def test_an_empty_input_is_a_run_time_error_of_the_derivative():
    """The hoisted read takes element 0 where its branch is not taken; of an empty input that
    is out of bounds, which the CPU's index checks report (the primal still runs)."""
    text = CONCATENATE + """
func.func @df(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>, %c: tensor<?x?xf64>, %g: tensor<?x?xf64>)
    -> (tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>) {
  %r:4 = autodiff.vjp @f(%a, %b, %c, %g) : (tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>)
      -> (tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>, tensor<?x?xf64>
}
"""
    exe = gradir.compile(text)
    a, b, c = np.ones((2, 2)), np.ones((2, 0)), np.ones((2, 3))
    assert exe.f(a, b, c).shape == (2, 5)
    with pytest.raises(gradir.RunTimeCheckError, match="an index out of bounds"):
        exe.df(a, b, c, np.ones((2, 5)))


DIVIDED_INDEX = """
func.func @f(%x: tensor<4xf64>, %t: tensor<4xf64>) -> tensor<4xf64> {
  %e = tensor.empty() : tensor<4xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%a: f64, %o: f64):
    %i = linalg.index 0 : index
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %n = tensor.dim %t, %c0 : tensor<4xf64>
    %k = arith.subi %n, %c2 : index
    %even = arith.cmpi ult, %i, %c2 : index
    %v = scf.if %even -> (f64) {
      %h = arith.divui %i, %k : index
      %s = tensor.extract %t[%h] : tensor<4xf64>
      %m = arith.mulf %a, %s : f64
      scf.yield %m : f64
    } else {
      scf.yield %a : f64
    }
    linalg.yield %v : f64
  } -> tensor<4xf64>
  return %r : tensor<4xf64>
}
"""


def test_an_index_that_needs_a_division_by_a_value_stays_refused():
    """A division by a value in a branch could trap if run unconditionally: the extract stays
    where it is and the rule names it."""
    with pytest.raises(gradir.DifferentiationError, match="only tensor.extract directly in the body is supported"):
        gradir.gradcheck(DIVIDED_INDEX, "f", inputs=[np.ones(4), np.ones(4)])


ROLLED = DIVIDED_INDEX.replace("%n = tensor.dim %t, %c0 : tensor<4xf64>\n    %k = arith.subi %n, %c2 : index\n", "").replace(
    "%h = arith.divui %i, %k : index", "%c1 = arith.constant 1 : index\n      %s1 = arith.addi %i, %c1 : index\n      %c4 = arith.constant 4 : index\n      %h = arith.remui %s1, %c4 : index"
)


def test_an_index_modulo_a_constant_is_hoisted():
    """`(i + 1) mod 4` (a roll) cannot trap: recomputed at the top."""
    assert "arith.remui %s1, %c4" in ROLLED
    x, t = np.array([0.5, -1.5, 2.0, 0.75]), np.array([1.5, -0.5, 2.5, 0.25])
    result = gradir.gradcheck(ROLLED, "f", inputs=[x, t])
    assert result.ok, result.report()
    expected = np.where(np.arange(4) < 2, x * t[(np.arange(4) + 1) % 4], x)
    np.testing.assert_allclose(gradir.compile(ROLLED).f(x, t), expected, rtol=1e-12)
