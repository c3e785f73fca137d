"""Verification that reports the failing op's `file:line:col` in one line."""
from __future__ import annotations

import re

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, Operation, OpResult
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
        except Exception as error:  # noqa: BLE001 -- a verifier that crashes on bad input
            # (xDSL 0.74's linalg.transpose indexes with an out-of-range permutation)
            message = f"'{op.name}' op does not verify ({type(error).__name__} in its verifier: {error})"
            if context:
                message = f"{context}: {message}"
            raise SourceError(message, location_of(op)) from error
    check_dominance(module)


def check_dominance(module: ModuleOp) -> None:
    """Every operand is defined before its use in the same block, or in an enclosing
    block (xDSL 0.74 does not check this; a pass would then move the use away from
    its definition and fail without a location)."""
    for op in module.walk():
        for region in op.regions:
            if isinstance(op, ModuleOp):
                continue  # a graph region: symbols, not SSA values
            for block in region.blocks:
                _check_block_order(block)


def _check_block_order(block: Block) -> None:
    seen: set[Operation] = set()
    for op in block.ops:
        for index, operand in enumerate(op.operands):
            if isinstance(operand, OpResult) and operand.op.parent is block and operand.op not in seen:
                name = f"%{operand.name_hint}" if operand.name_hint else f"#{index}"
                raise SourceError(
                    f"'{op.name}' op operand {name} is used before it is defined", location_of(op)
                )
        seen.add(op)


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
