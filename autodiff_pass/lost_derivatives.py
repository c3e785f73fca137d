"""The global guarantee: a derivative is never silently dropped.

Reverse and forward mode account for an active value only where an op's rule
reads it: as an operand, or, for an op with regions whose rule says so
(`DerivativeRule.captures`, the scf walk rules), as a value its regions read
from outside. Everywhere else an active value could vanish with no trace: a
rule that ignores what its regions capture, bits reinterpreted by
`arith.bitcast` or `tensor.bitcast`, a store to memory that a later load reads back, a tensor
turned into a memref (`bufferization.to_buffer`). Each of
these is a located error instead, raised before any backward code is built.
Ops that merely consume a value without a derivative to pass on (a
comparison, a float-to-integer conversion, a result nobody differentiates)
are fine: their derivative is zero, or not needed.
"""
from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import affine, arith, memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import MemoryEffectKind, get_effects

from gradir.autodiff_pass.activity import Activity, op_inputs
from gradir.autodiff_pass.effects import has_no_effects, is_tensor_linalg_op
from gradir.autodiff_pass.rules.interface import DerivativeRule, Rule
from gradir.dialects.mlir22_ops import BitcastOp as TensorBitcastOp
from gradir.errors import DifferentiationError, error_at, location_of


def refuse_unaccounted_captures(rule: Rule, op: Operation, captured: Sequence[SSAValue]) -> None:
    """An active value read inside `op`'s regions must be accounted for by its
    rule (a local rule declaring `captures`; walk rules handle their regions)."""
    if not captured or (isinstance(rule, DerivativeRule) and rule.captures):
        return
    value = captured[0]
    owner = value.owner if isinstance(value.owner, Operation) else value.owner.parent_op()
    where = location_of(owner)
    defined = f" (defined at {where})" if where else ""
    raise error_at(
        DifferentiationError,
        op,
        f"differentiation of '{op.name}': its region reads the active value "
        f"{_value_name(value)}{defined} from outside, and its derivative rule "
        "does not account for values captured that way",
    )


def refuse_lost_derivatives(block: Block, activity: Activity) -> None:
    """Check every op of `block` (and of the loop and branch bodies activity
    looked into) that reads a varied value: reinterpreting its bits or writing
    it to memory would lose its derivative."""
    for op in block.walk():
        if op is block.parent_op():
            continue
        read = [value for value in op.operands if value in activity.varied]
        if not read:
            continue
        if isinstance(op, arith.BitcastOp | TensorBitcastOp):
            raise error_at(
                DifferentiationError,
                op,
                f"'{op.name}' reinterprets the bits of {_value_name(read[0])}, which carries a "
                "derivative: there is no derivative gradir can compute for that",
            )
        if not op.regions and any(isinstance(r.type, MemRefType) for r in op.results):
            raise error_at(
                DifferentiationError,
                op,
                f"'{op.name}' turns {_value_name(read[0])}, which carries a derivative, into a "
                "memref: gradir differentiates values (tensors and scalars), not memory",
            )
        if not op.regions and _writes_memory(op):
            raise error_at(
                DifferentiationError,
                op,
                f"'{op.name}' writes {_value_name(read[0])}, which carries a derivative, to "
                "memory: gradir differentiates values (tensors and scalars), not memory",
            )


def _writes_memory(op: Operation) -> bool:
    """Whether `op` is known to write memory (an op of unknown effects, e.g.
    unregistered, is differentiated by its rule or refused for having none)."""
    if isinstance(op, (memref.StoreOp, affine.StoreOp)):
        return True  # xDSL 0.74's affine.store declares no effects
    if has_no_effects(op) or is_tensor_linalg_op(op):
        return False
    effects = get_effects(op)
    return effects is not None and any(effect.kind is MemoryEffectKind.WRITE for effect in effects)


def _value_name(value: SSAValue) -> str:
    return f"%{value.name_hint}" if value.name_hint else f"a value of type {value.type}"
