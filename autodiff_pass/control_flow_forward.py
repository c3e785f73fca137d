"""Forward mode through `scf.for` and `scf.if` (called by `ForwardWalk`).

Tangents travel with the primal values: an `scf.for` is rebuilt with one more
iteration argument per float tensor argument (its tangent, starting at the
initial value's tangent), and its body gets the tangent code of its ops; an
`scf.if` is rebuilt with one more result per float result, each branch
yielding the tangents it computes. Outer values read inside keep the tangents
the enclosing walk gave them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.builder import Builder
from xdsl.dialects import scf
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from gradir.autodiff_pass.activity import analyze_activity, op_inputs
from gradir.autodiff_pass.control_flow_reverse import check_yields
from gradir.errors import DifferentiationError, error_at

if TYPE_CHECKING:
    from gradir.autodiff_pass.forward_mode import ForwardWalk


def _tangent_positions(walk: ForwardWalk, op: Operation) -> list[int]:
    """Results that get a tangent: the active ones (float scalars are refused)."""
    positions = walk.activity.active_positions(op)
    for k in positions:
        result = op.results[k]
        if not isinstance(result.type, TensorType):
            raise error_at(
                DifferentiationError,
                op,
                f"forward-mode differentiation of '{op.name}' with a float scalar result is "
                "not supported (carry a 0-d tensor)",
            )
    return positions


def _outer_tangents(walk: ForwardWalk, op: Operation) -> dict[SSAValue, SSAValue]:
    own = set(op.operands)
    return {
        value: walk.tangents[value]
        for value in op_inputs(op)
        if value not in own and value in walk.tangents
    }


def _differentiate_block(
    walk: ForwardWalk, block: Block, seeds: dict[SSAValue, SSAValue], positions: list[int]
) -> list[SSAValue]:
    """Tangent code after each active op of `block` (ending in `scf.yield`);
    returns the tangents of the yielded values at `positions`."""
    from gradir.autodiff_pass.forward_mode import ForwardWalk

    terminator = block.last_op
    assert isinstance(terminator, scf.YieldOp)
    yielded = list(terminator.operands)
    activity = analyze_activity(block, list(seeds), [yielded[k] for k in positions])
    sub = ForwardWalk(walk.functions, activity)
    sub.tangents.update(seeds)
    for op in activity.active_ops(block):
        sub.visit(op)
    terminator = block.last_op
    assert isinstance(terminator, scf.YieldOp)
    yielded = [sub.primal_replacements.get(v, v) for v in terminator.operands]
    before = Builder(InsertPoint.before(terminator))
    return [sub.tangent_or_zero(yielded[k], before) for k in positions]


def forward_for(walk: ForwardWalk, loop: scf.ForOp) -> None:
    positions = _tangent_positions(walk, loop)
    if not positions:
        return
    check_yields(loop)
    before = Builder(InsertPoint.before(loop))
    initial_tangents = [walk.tangent_or_zero(loop.iter_args[k], before) for k in positions]
    body = loop.body.block
    tangent_arguments = [body.insert_arg(t.type, len(body.args)) for t in initial_tangents]
    seeds = _outer_tangents(walk, loop)
    seeds.update({body.args[1 + k]: t for k, t in zip(positions, tangent_arguments)})
    tangents = _differentiate_block(walk, body, seeds, positions)
    terminator = body.last_op
    assert isinstance(terminator, scf.YieldOp)
    Rewriter.replace_op(terminator, scf.YieldOp(*terminator.operands, *tangents))
    region = loop.detach_region(loop.body)
    new_loop = scf.ForOp(loop.lb, loop.ub, loop.step, [*loop.iter_args, *initial_tangents], region)
    new_loop.location = loop.location
    _replace(walk, loop, new_loop, positions)


def forward_if(walk: ForwardWalk, op: scf.IfOp) -> None:
    positions = _tangent_positions(walk, op)
    if not positions:
        return
    check_yields(op)
    seeds = _outer_tangents(walk, op)
    for region in (op.true_region, op.false_region):
        if not region.blocks:
            continue
        block = region.block
        tangents = _differentiate_block(walk, block, dict(seeds), positions)
        terminator = block.last_op
        assert isinstance(terminator, scf.YieldOp)
        Rewriter.replace_op(terminator, scf.YieldOp(*terminator.operands, *tangents))
    types = [r.type for r in op.results] + [op.results[k].type for k in positions]
    true_region, false_region = op.true_region, op.false_region
    op.detach_region(true_region)
    op.detach_region(false_region)
    new_op = scf.IfOp(op.cond, types, true_region, false_region)
    new_op.location = op.location
    _replace(walk, op, new_op, positions)


def _replace(walk: ForwardWalk, old: Operation, new: Operation, positions: list[int]) -> None:
    Rewriter.insert_op(new, InsertPoint.before(old))
    count = len(old.results)
    for k, tangent in zip(positions, new.results[count:]):
        walk.tangents[new.results[k]] = tangent
    for previous, current in zip(old.results, new.results[:count]):
        walk.primal_replacements[previous] = current
        walk.activity.replace(previous, current)
    Rewriter.replace_op(old, [], list(new.results[:count]))
