"""Every forward op's reverse (vjp) and forward (jvp) derivative against central
finite differences in float64, through the real CPU pipeline, on shapes with
broadcasting, keepdim, batched matmul and 0-d tensors."""
import numpy as np
import pytest

import gradir
from gradir.tools.gradcheck import GradChecker
from op_cases import all_cases, combined_module

CASES = all_cases()


@pytest.fixture(scope="module")
def checker():
    """All cases compiled once (one JIT module instead of one per case)."""
    return GradChecker(combined_module(CASES), [(c.function, c.wrt) for c in CASES])


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_gradcheck(checker, case):
    result = checker.check(case.function, case.inputs)
    assert result.ok, result.report()
    assert {c.mode for c in result.checks} == {"vjp", "jvp"}


def test_every_forward_op_is_covered():
    from gradir.dialects.autodiff import FORWARD_OPS

    covered = {case.id.split("-")[0] for case in CASES}
    assert {op.name.removeprefix("autodiff.") for op in FORWARD_OPS} <= covered


def test_gradcheck_catches_a_wrong_derivative(monkeypatch):
    """gradcheck itself must fail on a wrong rule, or every test above proves nothing."""
    from gradir.autodiff_pass import registry

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


def test_zero_dim_boolean_argument_is_a_clear_error():
    """Known limitation of the CPU pipeline: in the derivative of a select with a
    0-d i1 condition, the condition must be stored in memory, which MLIR 22's
    memref-to-LLVM lowering cannot do; gradir says so instead of crashing."""
    source = """
    func.func @f(%c: tensor<i1>, %x: tensor<2xf64>, %y: tensor<f64>) -> tensor<2xf64> {
      %r = autodiff.select %c, %x, %y : (tensor<i1>, tensor<2xf64>, tensor<f64>) -> tensor<2xf64>
      func.return %r : tensor<2xf64>
    }
    """
    with pytest.raises(gradir.PipelineError, match="boolean .i1. tensor would be stored in memory"):
        gradir.gradcheck(source, "f", wrt=[1, 2])
