"""Verification that reports the failing op's `file:line:col` in one line."""
from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from gradir.errors import SourceError, location_of


def _root_message(error: BaseException) -> str:
    """The innermost verifier message (xDSL wraps it with the printed op)."""
    while isinstance(error.__cause__, (VerifyException, DiagnosticException)):
        error = error.__cause__
    if error.args and isinstance(error.args[0], str):
        message = error.args[0]
    else:
        message = str(error)
    prefix = "Operation does not verify: "
    if message.startswith(prefix):
        message = message[len(prefix):]
    return " ".join(message.strip().splitlines()[0].split()) if message.strip() else "invalid IR"


def verify_module(module: ModuleOp, context: str = "") -> None:
    """Verify every op; raise `SourceError` at the first op that fails."""
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except (VerifyException, DiagnosticException) as error:
            detail = _root_message(error).removeprefix(f"'{op.name}' ")
            message = f"'{op.name}' op {detail}"
            if context:
                message = f"{context}: {message}"
            raise SourceError(message, location_of(op)) from error
