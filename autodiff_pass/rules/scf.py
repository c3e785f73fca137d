"""Rules of `scf.if`, and what the `scf.if` and `scf.for` rules share (walk rules).

Reverse mode: an `scf.if` on the same condition whose branches recompute
their forward branch and reverse it (`ReverseContext.reverse_ops`), yielding
the gradients of the outer values the branches read (`captured_values`);
gradients flow only through the branch taken.

Forward mode: tangents travel with the primal values: the `scf.if` is rebuilt
with one more result per active float result, each branch yielding the
tangents its ops compute (`ForwardContext.differentiate_block`); outer values
read inside keep the tangents the enclosing walk gave them. `scf.for` is
rebuilt the same way with tangent iteration arguments (`scf_for`).
"""
from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import scf
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from gradir.autodiff_pass.activity import carries_derivative, op_inputs
from gradir.autodiff_pass.ir_building import zero_like
from gradir.autodiff_pass.rules.interface import ForwardContext, ReverseContext, WalkRule
from gradir.errors import DifferentiationError, error_at

# ----------------------------------------------------------------------------
# Shared by the scf rules
# ----------------------------------------------------------------------------


def read_inside(op: Operation) -> list[SSAValue]:
    """Values defined outside `op` that the ops of its regions read, once each,
    in order; a value that is also an operand of `op` (a loop's initial value
    read again by its body) counts too."""
    seen: dict[SSAValue, None] = {}
    operand_count = len(op.operands)
    for index, value in enumerate(op_inputs(op)):
        if index >= operand_count:
            seen.setdefault(value, None)
    return list(seen)


def captured_values(op: Operation, walk: ReverseContext) -> list[SSAValue]:
    """Active values (float tensors or scalars) defined outside `op` that its
    regions read, once each."""
    return [
        value
        for value in read_inside(op)
        if carries_derivative(value) and walk.activity.is_active(value)
    ]


def check_yields(op: Operation) -> None:
    """Each region of `op` must end with an `scf.yield` of one value per result
    (xDSL 0.74 does not verify it)."""
    for region in op.regions:
        for block in region.blocks:
            last = block.last_op
            if not isinstance(last, scf.YieldOp) or len(last.operands) != len(op.results):
                raise error_at(
                    DifferentiationError,
                    op,
                    f"'{op.name}' must end each region with scf.yield of its {len(op.results)} "
                    "result(s)",
                )


def zero(builder: Builder, like: SSAValue) -> SSAValue:
    """An `autograd_zero` of `like`'s type (and sizes, where dynamic)."""
    return zero_like(builder, like)


def tangent_positions(walk: ForwardContext, op: Operation) -> list[int]:
    """Results that get a tangent: the active ones (float tensors or scalars)."""
    return walk.activity.active_positions(op)


def outer_tangents(walk: ForwardContext, op: Operation) -> dict[SSAValue, SSAValue]:
    """The tangents of the values `op`'s regions read from outside it."""
    tangents: dict[SSAValue, SSAValue] = {}
    for value in read_inside(op):
        if (tangent := walk.tangent(value)) is not None:
            tangents[value] = tangent
    return tangents


def yielded_tangents(
    walk: ForwardContext, block: Block, seeds: dict[SSAValue, SSAValue], positions: list[int]
) -> list[SSAValue]:
    """Tangent code after each active op of `block` (ending in `scf.yield`);
    returns the tangents of the yielded values at `positions`, zero where none."""
    terminator = block.last_op
    assert isinstance(terminator, scf.YieldOp)
    dependents = [terminator.operands[k] for k in positions]
    tangents = walk.differentiate_block(block, seeds, dependents)
    before = Builder(InsertPoint.before(block.last_op))  # type: ignore[arg-type]
    return [
        tangent if tangent is not None else zero(before, value)
        for tangent, value in zip(tangents, dependents)
    ]


def replace_with_tangents(
    walk: ForwardContext, old: Operation, new: Operation, positions: list[int]
) -> None:
    """Put `new` (`old`'s results, then the tangents of those at `positions`) in place of `old`."""
    Rewriter.insert_op(new, InsertPoint.before(old))
    count = len(old.results)
    for k, tangent in zip(positions, new.results[count:]):
        walk.set_tangent(new.results[k], tangent)
    walk.replace(old, list(new.results[:count]))


# ----------------------------------------------------------------------------
# scf.if
# ----------------------------------------------------------------------------


def reverse_if(walk: ReverseContext, op: Operation) -> None:
    assert isinstance(op, scf.IfOp)
    positions = [k for k, result in enumerate(op.results) if walk.gradient(result) is not None]
    if not positions:
        return
    check_yields(op)
    seeds = {k: walk.gradient_or_zero(op.results[k]) for k in positions}
    captured = captured_values(op, walk)
    if not captured:
        return
    branches = []
    for region in (op.true_region, op.false_region):
        block = Block()
        if region.blocks:
            value_map: dict[SSAValue, SSAValue] = {}
            copies = []
            for inner in region.block.ops:
                if isinstance(inner, scf.YieldOp):
                    yielded = [value_map.get(v, v) for v in inner.operands]
                    continue
                copies.append(inner.clone(value_map))
                block.add_op(copies[-1])
            gradients = walk.reverse_ops(
                block, copies, captured, [(yielded[k], seeds[k]) for k in positions]
            )
            captured_gradients = [gradients.get(value) for value in captured]
        else:
            captured_gradients = [None] * len(captured)
        builder = Builder(InsertPoint.at_end(block))
        values = [
            gradient if gradient is not None else zero(builder, value)
            for gradient, value in zip(captured_gradients, captured)
        ]
        block.add_op(scf.YieldOp(*values))
        branches.append(Region(block))
    reverse = scf.IfOp(op.cond, [value.type for value in captured], branches[0], branches[1])
    reverse.location = op.location
    walk.block.add_op(reverse)
    for value, gradient in zip(captured, reverse.results):
        walk.accumulate(value, gradient)


def forward_if(walk: ForwardContext, op: Operation) -> None:
    assert isinstance(op, scf.IfOp)
    positions = tangent_positions(walk, op)
    if not positions:
        return
    check_yields(op)
    seeds = outer_tangents(walk, op)
    for region in (op.true_region, op.false_region):
        if not region.blocks:
            continue
        block = region.block
        tangents = yielded_tangents(walk, block, dict(seeds), positions)
        terminator = block.last_op
        assert isinstance(terminator, scf.YieldOp)
        Rewriter.replace_op(terminator, scf.YieldOp(*terminator.operands, *tangents))
    types = [r.type for r in op.results] + [op.results[k].type for k in positions]
    true_region, false_region = op.true_region, op.false_region
    op.detach_region(true_region)
    op.detach_region(false_region)
    new_op = scf.IfOp(op.cond, types, true_region, false_region)
    new_op.location = op.location
    replace_with_tangents(walk, op, new_op, positions)


RULES = (WalkRule("scf.if", reverse=reverse_if, forward=forward_if, dynamic_shapes=True),)
