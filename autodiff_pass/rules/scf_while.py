"""Rules of `scf.while` (a walk rule): tangent arguments forward; counted, then reversed as an `scf.for`.

An `scf.while` runs `before` on its state, stops or forwards values to
`after` (`scf.condition`), and `after` yields the next state. Its results are
the values forwarded by the last `before`.

Forward mode: the loop is rebuilt with one more `before` argument per active
`before` argument and one more `after` argument (and result) per active
`after` argument or result: `before` forwards the tangents of what it
forwards, `after` yields the tangents of the next state
(`ForwardContext.differentiate_block` on each region).

Reverse mode: the trip count is known only at run time, and the stacks that
cache the iterations must be sized before the loop fills them. The rule
replaces the loop by

1. a *counting copy*: the loop cut down to the iteration arguments its
   condition depends on, plus an `index` counter; it yields N, the number of
   times `after` runs (for a loop that counts `i < n`, the copy is that
   counter alone; for a loop whose condition reads the float state, it is
   the whole loop);
2. the first `before` (its forwarded values v0);
3. `scf.for k = 0 to N iter_args(v = v0) { s = after(v); v' = before(s) }`,
   whose results are the loop's results,

then reverses the `scf.for` with the `scf.for` rule (`scf_for.reverse_loop`:
stacks `tensor<? x ...>` sized by N, read back from N-1 down to 0,
checkpointing as for any loop with run-time bounds), and reverses the first
`before` on a copy appended to the backward.

Why count first rather than grow the stacks while the loop runs (a stack that
doubles when full): the counted loop is an ordinary `scf.for`, so caching,
recomputation and checkpointing are those of `scf.for`, written and tested
once; no reallocation copies the stacks or briefly holds 1.5x the cache; and
the CPU pipeline updates loop states in place, which assumes a state whose
shape does not change, so a doubling stack does not even compile there
today. The price is the counting copy. Measured (bench/while_loop.py, CPU,
f64, results in bench/results/while_loop.md): the gradient of a 64-wide tanh
recurrence as `scf.while i < n` takes 1.00x the time of the same loop as
`scf.for` (the copy is the counter alone); a scalar recurrence whose
condition reads the state (`a < bound`, the whole loop counted) takes 1.46x,
one more forward pass of the loop.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from gradir.autodiff_pass.activity import op_inputs
from gradir.autodiff_pass.effects import would_be_dead
from gradir.autodiff_pass.rules.interface import ForwardContext, ReverseContext, WalkRule
from gradir.autodiff_pass.rules.loop_cache import index_constant
from gradir.autodiff_pass.rules.scf import (
    outer_tangents,
    read_inside,
    replace_with_tangents,
    zero,
)
from gradir.autodiff_pass.rules.scf_for import reverse_loop
from gradir.errors import DifferentiationError, error_at


def _regions(op: scf.WhileOp) -> tuple[Block, scf.ConditionOp, Block, scf.YieldOp]:
    """The two blocks and their terminators, checked (xDSL 0.74 does not)."""
    before, after = op.before_region.block, op.after_region.block
    condition, yield_ = before.last_op, after.last_op
    if (
        not isinstance(condition, scf.ConditionOp)
        or len(condition.args) != len(op.results)
        or not isinstance(yield_, scf.YieldOp)
        or len(yield_.operands) != len(op.arguments)
        or len(after.args) != len(op.results)
    ):
        raise error_at(
            DifferentiationError,
            op,
            "'scf.while' must end 'before' with scf.condition forwarding one value per result "
            "and 'after' with scf.yield of one value per argument",
        )
    return before, condition, after, yield_


def _body_ops(block: Block) -> list[Operation]:
    return [op for op in block.ops if op is not block.last_op]


def _clone_ops(
    ops: Iterable[Operation], into: Builder, value_map: dict[SSAValue, SSAValue]
) -> list[Operation]:
    copies = []
    for op in ops:
        copies.append(into.insert(op.clone(value_map)))
    return copies


# ----------------------------------------------------------------------------
# Forward mode
# ----------------------------------------------------------------------------


def _block_tangents(
    walk: ForwardContext,
    block: Block,
    seeds: dict[SSAValue, SSAValue],
    dependents: Sequence[SSAValue],
) -> list[SSAValue]:
    """Tangent code in `block`; the tangents of `dependents` (zero where none),
    made before its terminator."""
    tangents = walk.differentiate_block(block, seeds, dependents)
    before = Builder(InsertPoint.before(block.last_op))  # type: ignore[arg-type]
    return [t if t is not None else zero(before, v) for t, v in zip(tangents, dependents)]


def forward_while(walk: ForwardContext, op: Operation) -> None:
    assert isinstance(op, scf.WhileOp)
    before, _, after, _ = _regions(op)
    before_positions = [k for k, a in enumerate(before.args) if walk.activity.is_active(a)]
    after_positions = walk.activity.active_positions(op)
    if not before_positions and not after_positions:
        return
    outside = Builder(InsertPoint.before(op))
    initial_tangents = [walk.tangent_or_zero(op.arguments[k], outside) for k in before_positions]
    outer = outer_tangents(walk, op)

    before_tangents = [before.insert_arg(t.type, len(before.args)) for t in initial_tangents]
    seeds = dict(outer)
    seeds.update({before.args[k]: t for k, t in zip(before_positions, before_tangents)})
    condition = before.last_op
    assert isinstance(condition, scf.ConditionOp)
    forwarded = [condition.args[k] for k in after_positions]
    forwarded_tangents = _block_tangents(walk, before, seeds, forwarded)
    condition = before.last_op
    assert isinstance(condition, scf.ConditionOp)
    Rewriter.replace_op(condition, scf.ConditionOp(condition.condition, *condition.args, *forwarded_tangents))

    after_tangents = [after.insert_arg(t.type, len(after.args)) for t in forwarded_tangents]
    seeds = dict(outer)
    seeds.update({after.args[k]: t for k, t in zip(after_positions, after_tangents)})
    yield_ = after.last_op
    assert isinstance(yield_, scf.YieldOp)
    next_tangents = _block_tangents(walk, after, seeds, [yield_.operands[k] for k in before_positions])
    yield_ = after.last_op
    assert isinstance(yield_, scf.YieldOp)
    Rewriter.replace_op(yield_, scf.YieldOp(*yield_.operands, *next_tangents))

    types = [*op.result_types, *(t.type for t in forwarded_tangents)]
    before_region, after_region = op.before_region, op.after_region
    op.detach_region(before_region)
    op.detach_region(after_region)
    new_op = scf.WhileOp([*op.arguments, *initial_tangents], types, before_region, after_region)
    new_op.location = op.location
    replace_with_tangents(walk, op, new_op, after_positions)


# ----------------------------------------------------------------------------
# Reverse mode
# ----------------------------------------------------------------------------


def _slice(block: Block, values: Iterable[SSAValue]) -> tuple[list[Operation], set[int]]:
    """The ops of `block` (but its terminator) needed to compute `values`, with
    those that have effects, in order, and the indices of the block
    arguments they (or `values`) read."""
    needed = set(values)
    ops = []
    for op in reversed(_body_ops(block)):
        if any(result in needed for result in op.results) or not would_be_dead(op):
            ops.append(op)
            needed.update(op_inputs(op))
    arguments = {argument.index for argument in block.args if argument in needed}
    return list(reversed(ops)), arguments


def _count(op: scf.WhileOp, builder: Builder) -> SSAValue:
    """Insert a copy of `op` that only counts its iterations (the times
    `after` runs): it keeps the iteration arguments the condition depends on,
    through both regions, and adds an `index` counter."""
    before, condition, after, yield_ = _regions(op)
    kept_before: set[int] = set()
    kept_after: set[int] = set()
    while True:
        before_ops, before_reads = _slice(before, [condition.condition, *(condition.args[k] for k in kept_after)])
        after_ops, after_reads = _slice(after, [yield_.operands[k] for k in before_reads | kept_before])
        if before_reads <= kept_before and after_reads <= kept_after:
            break
        kept_before |= before_reads
        kept_after |= after_reads
    before_kept, after_kept = sorted(kept_before), sorted(kept_after)
    index = IndexType()

    counting_before = Block(arg_types=[*(before.args[k].type for k in before_kept), index])
    value_map: dict[SSAValue, SSAValue] = dict(zip((before.args[k] for k in before_kept), counting_before.args))
    inside = Builder(InsertPoint.at_end(counting_before))
    _clone_ops(before_ops, inside, value_map)
    forwarded = [value_map.get(condition.args[k], condition.args[k]) for k in after_kept]
    counter = counting_before.args[-1]
    inside.insert(scf.ConditionOp(value_map.get(condition.condition, condition.condition), *forwarded, counter))

    counting_after = Block(arg_types=[*(after.args[k].type for k in after_kept), index])
    value_map = dict(zip((after.args[k] for k in after_kept), counting_after.args))
    inside = Builder(InsertPoint.at_end(counting_after))
    _clone_ops(after_ops, inside, value_map)
    next_state = [value_map.get(yield_.operands[k], yield_.operands[k]) for k in before_kept]
    one = index_constant(inside, 1)
    next_count = inside.insert(arith.AddiOp(counting_after.args[-1], one)).result
    inside.insert(scf.YieldOp(*next_state, next_count))

    initials = [op.arguments[k] for k in before_kept]
    counting = scf.WhileOp(
        [*initials, index_constant(builder, 0)],
        [*(condition.args[k].type for k in after_kept), index],
        Region(counting_before),
        Region(counting_after),
    )
    counting.location = op.location
    builder.insert(counting)
    return counting.results[-1]


def _first_before(op: scf.WhileOp, builder: Builder) -> tuple[list[Operation], list[SSAValue]]:
    """Copy `before` on the loop's initial values with `builder`; its ops and
    the values it forwards."""
    before, condition, _, _ = _regions(op)
    value_map: dict[SSAValue, SSAValue] = dict(zip(before.args, op.arguments))
    copies = _clone_ops(_body_ops(before), builder, value_map)
    return copies, [value_map.get(v, v) for v in condition.args]


def _counted_loop(op: scf.WhileOp, trips: SSAValue, initials: Sequence[SSAValue], builder: Builder) -> scf.ForOp:
    """`scf.for k = 0 to trips iter_args(v = initials) { s = after(v); before(s) }`."""
    before, condition, after, yield_ = _regions(op)
    body = Block(arg_types=[IndexType(), *(v.type for v in initials)])
    inside = Builder(InsertPoint.at_end(body))
    value_map: dict[SSAValue, SSAValue] = dict(zip(after.args, body.args[1:]))
    _clone_ops(_body_ops(after), inside, value_map)
    state = [value_map.get(v, v) for v in yield_.operands]
    value_map.update(zip(before.args, state))
    _clone_ops(_body_ops(before), inside, value_map)
    inside.insert(scf.YieldOp(*(value_map.get(v, v) for v in condition.args)))
    zero_index, one = index_constant(builder, 0), index_constant(builder, 1)
    loop = scf.ForOp(zero_index, trips, one, list(initials), Region(body))
    loop.location = op.location
    builder.insert(loop)
    return loop


def reverse_while(walk: ReverseContext, op: Operation) -> None:
    assert isinstance(op, scf.WhileOp)
    positions = walk.activity.active_positions(op)
    if not any(walk.gradient(op.results[k]) is not None for k in positions):
        return
    _regions(op)
    seeds = [walk.gradient_or_zero(op.results[k]) for k in positions]
    at = Builder(InsertPoint.before(op))
    trips = _count(op, at)
    _, first = _first_before(op, at)
    loop = _counted_loop(op, trips, first, at)
    before_reads = read_inside(op)  # the outer values `before` and `after` read
    initials = list(op.arguments)
    scratch = Block()
    copies, forwarded = _first_before(op, Builder(InsertPoint.at_end(scratch)))
    Rewriter.replace_op(op, [], list(loop.results))

    first_gradients = reverse_loop(walk, loop, positions, seeds)

    independents = [v for v in (*initials, *before_reads) if walk.activity.is_active(v)]
    gradients = walk.reverse_ops(
        scratch, copies, independents, [(forwarded[k], g) for k, g in zip(positions, first_gradients)]
    )
    for copy in list(scratch.ops):
        copy.detach()
        walk.block.add_op(copy)
    for value in dict.fromkeys(independents):
        if (gradient := gradients.get(value)) is not None:
            walk.accumulate(value, gradient)


RULES = (WalkRule("scf.while", reverse=reverse_while, forward=forward_while, dynamic_shapes=True),)
