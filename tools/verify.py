"""Verification that reports the failing op's `file:line:col` in one line."""
from __future__ import annotations

import re

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
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
            culprit = _redefinition(op, detail) or op
            message = f"'{op.name}' op {detail}"
            if context:
                message = f"{context}: {message}"
            raise SourceError(message, location_of(culprit)) from error


def _redefinition(table: Operation, message: str) -> Operation | None:
    """The second definition of the symbol a symbol table's verifier names as
    redefined: the table itself (a module) has no location of its own."""
    match = re.search(r'Redefinition of symbol "([^"]+)"', message)
    if match is None or not table.regions:
        return None
    seen = False
    for child in table.regions[0].ops:
        name = child.properties.get("sym_name") or child.attributes.get("sym_name")
        if isinstance(name, StringAttr) and name.data == match.group(1):
            if seen:
                return child
            seen = True
    return None
