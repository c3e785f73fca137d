"""Calls inside `linalg.generic` bodies are inlined before differentiation.

LAGrad-style programs call a scalar function from a body (`func.call
@sigmoid(%in) : (f64) -> f64`). The scalar body differentiator works op by
op with the rules of `derivatives.yaml`; a call has none, so the callee's
body is copied in its place first (in the derivative function's copy of the
primal only; the user's functions stay as written). Calls directly in a
function or loop body keep the `func.call` rule: their callee gets its own
derivative function.
"""
from __future__ import annotations

from xdsl.dialects.linalg.ops import GenericOp
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import SymbolTable

from gradir.autodiff_pass.ir_building import clone_op
from gradir.errors import DifferentiationError, error_at

MAX_INLINING_DEPTH = 32
"""Nested inlinings before a chain of calls is taken for recursion."""


def inline_calls_in_generic_bodies(block: Block, module: ModuleOp | None) -> None:
    """Replace each `func.call` inside a `linalg.generic` body of `block` by the callee's body."""
    calls = [op for op in block.walk() if isinstance(op, CallOp) and _in_generic_body(op)]
    for call in calls:
        _inline(call, module, depth=0)


def _in_generic_body(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, FuncOp):
        if isinstance(parent, GenericOp):
            return True
        parent = parent.parent_op()
    return False


def _inline(call: CallOp, module: ModuleOp | None, depth: int) -> None:
    name = call.callee.root_reference.data
    if depth >= MAX_INLINING_DEPTH:
        raise error_at(
            DifferentiationError, call,
            f"cannot inline @{name} into a linalg.generic body: the calls nest more than "
            f"{MAX_INLINING_DEPTH} deep (recursion?)",
        )
    callee = SymbolTable.lookup_symbol(module, name) if module is not None else None
    if not isinstance(callee, FuncOp) or not callee.body.blocks:
        raise error_at(
            DifferentiationError, call,
            f"@{name}, called in a linalg.generic body, has no body in this module: gradir "
            "differentiates such a call by inlining the function",
        )
    if len(callee.body.blocks) != 1:
        raise error_at(
            DifferentiationError, call,
            f"cannot inline @{name} into a linalg.generic body: it branches between blocks; run "
            "lift-control-flow first (every pipeline does)",
        )
    block = call.parent_block()
    assert block is not None
    value_map: dict[SSAValue, SSAValue] = dict(zip(callee.args, call.arguments, strict=True))
    inlined: list[Operation] = []
    returned: list[SSAValue] = []
    for op in callee.body.block.ops:
        if isinstance(op, ReturnOp):
            returned = [value_map.get(v, v) for v in op.arguments]
            break
        copy = clone_op(op, value_map)
        block.insert_op_before(copy, call)
        inlined.append(copy)
    for result, value in zip(call.results, returned, strict=True):
        result.replace_all_uses_with(value)
    block.erase_op(call)
    for op in inlined:
        for nested in op.walk():
            if isinstance(nested, CallOp):
                _inline(nested, module, depth + 1)
