"""Every forward op's reverse (vjp) and forward (jvp) derivative against central
finite differences in float64, through the real CPU pipeline, on shapes with
broadcasting, keepdim, batched matmul and 0-d tensors."""
import numpy as np
import pytest

import gradir
from gradir.gradient_check import GradChecker
from exercised import assert_exercised
from op_cases import all_cases, combined_module

CASES = all_cases()


@pytest.fixture(scope="module")
def checker():
    """All cases compiled once (one JIT module instead of one per case)."""
    return GradChecker(combined_module(CASES), [(c.function, c.wrt) for c in CASES])


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_gradcheck(checker, case):
    result = checker.check(case.function, case.inputs, allow_vacuous=True)
    assert_exercised(result)
    assert {c.mode for c in result.checks} == {"vjp", "jvp"}


CHECKED_ELSEWHERE = {
    "stop_gradient": "tests/numerics/test_stop_gradient.py, against PyTorch's detach: finite "
    "differences see the identity, where the derivative is zero by definition",
}


def test_every_forward_op_is_covered():
    from gradir.dialects.autodiff import FORWARD_OPS

    covered = {case.id.split("-")[0] for case in CASES}
    assert {op.name.removeprefix("autodiff.") for op in FORWARD_OPS} - set(CHECKED_ELSEWHERE) <= covered
    assert not set(CHECKED_ELSEWHERE) & covered


def test_gradcheck_catches_a_wrong_derivative(monkeypatch):
    """gradcheck itself must fail on a wrong rule, or every test above proves nothing."""
    from gradir.autodiff_pass.rules import registry

    rule = registry.get_rule("autodiff.sin")
    cos_rule = registry.get_rule("autodiff.cos")
    # Differentiate sin with cos's rule: d/dx sin = cos, not -sin.
    monkeypatch.setattr(rule, "emit_vjp", cos_rule.emit_vjp)
    source = """
    func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
      %r = autodiff.sin %x : tensor<3xf64>
      func.return %r : tensor<3xf64>
    }
    """
    result = gradir.gradcheck(source, "f", modes=("vjp",))
    assert not result.ok
    assert "MISMATCH" in result.report()


@pytest.mark.parametrize("condition", [True, False])
def test_zero_dim_and_broadcast_boolean_conditions(condition):
    """Booleans are stored as bytes wherever they reach memory: a 0-d i1
    condition (an argument read by several generics in the derivative) and a
    broadcast condition whose gradient is reduced once made MLIR 22 abort."""
    source = """
    func.func @f(%c: tensor<i1>, %x: tensor<2xf64>, %y: tensor<f64>) -> tensor<2xf64> {
      %r = autodiff.select %c, %x, %y : (tensor<i1>, tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
      func.return %r : tensor<2xf64>
    }
    func.func @g(%c: tensor<3x1xi1>, %x: tensor<3x4xf64>, %y: tensor<4xf64>) -> tensor<f64> {
      %r = autodiff.select %c, %x, %y : (tensor<3x1xi1>, tensor<3x4xf64>, tensor<4xf64>) -> tensor<3x4xf64>
      %t = autodiff.tanh %r : tensor<3x4xf64>
      %s = autodiff.sum %t : tensor<3x4xf64> -> tensor<f64>
      func.return %s : tensor<f64>
    }
    """
    rng = np.random.default_rng(0)
    checker = GradChecker(source, [("f", [1, 2]), ("g", [1, 2])])
    zero_d = [np.array(condition), rng.standard_normal(2), rng.standard_normal(())]
    result = checker.check("f", zero_d, allow_vacuous=True)  # the branch not taken: zero
    assert_exercised(result)
    rows = np.array([[condition], [not condition], [True]])
    result = checker.check("g", [rows, rng.standard_normal((3, 4)), rng.standard_normal(4)], allow_vacuous=True)
    assert_exercised(result)
