"""Op-by-op gradchecks whose functions take operands with no derivative by construction
(a `linalg` op's `outs` it overwrites, a pooling window, a select's condition values):
their checks compare zero with zero, which `gradcheck` calls vacuous. These suites allow
that, and require instead that each function is exercised: in each mode some check is
not vacuous, unless the op's derivative is zero everywhere (floor, round...)."""
from __future__ import annotations

from gradir.gradient_check import GradcheckResult


def assert_exercised(result: GradcheckResult, zero_derivative: bool = False) -> None:
    assert result.ok, result.report()
    if zero_derivative:
        return
    for mode in {check.mode for check in result.checks}:
        checks = [check for check in result.checks if check.mode == mode]
        assert any(not check.vacuous for check in checks), (
            f"every {mode} check of @{result.function} is vacuous:\n{result.report()}"
        )
