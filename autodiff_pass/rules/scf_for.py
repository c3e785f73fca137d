"""Rules of `scf.for` (a walk rule): tangent iteration arguments forward, a reversed loop backward.

Forward mode: the loop is rebuilt with one more iteration argument per
active float tensor argument (its tangent, starting at the initial value's
tangent), and its body gets the tangent code of its ops
(`ForwardContext.differentiate_block`).

Reverse mode (constant bounds, N iterations): a second loop that runs the
iterations backwards. Its body is built from a copy of the forward body
followed by the reverse walk of that copy (`ReverseContext.reverse_ops`),
seeded with the gradients of the yielded values (the reverse loop's
iteration arguments); it yields the gradients of the forward iteration
arguments, and accumulates the gradients of the loop-invariant values the
body reads (weights, `scf.captured_values`) in further iteration arguments.
These start from the values' gradients so far, and the body's walk adds to
them directly: a body that reads one slice of a weight then updates that
slice of the running sum in place, and a reversed loop nested in another adds
to the outer loop's sum, where summing from zero would add a whole weight-sized
result once per outer iteration.
Then every copied forward value that the backward code reads is either
*cached* -- pushed in the forward loop onto a stack with one entry per
iteration (`loop_cache`), and read back in reverse order -- or, when it is not
a float value computed from operands (indices, masks, constants), or its shape
is dynamic (a stack made before the loop has no extents for it: a slice whose
size changes every iteration), recomputed from what is cached. Copies nothing reads are erased, so only values the
backward really reads are cached: `tanh` caches its result, a matmul its
inputs, an add nothing. A tensor state the body only writes element by element
(`tensor.insert` at indices that do not depend on it) is not cached at all: the
forward loop caches the elements it overwrites and the reverse loop rebuilds
each iteration's state from the next one (`loop_undo`).

With `checkpoint_every = k`, the forward loop caches only its iteration
arguments every k iterations; the reverse loop runs over those segments
backwards, and for each one recomputes its k iterations from the saved state
with a caching copy of the loop, then reverses them: the same gradient with a
cache of N/k states plus k iterations' values, for one more forward pass.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from gradir.autodiff_pass.activity import carries_derivative, op_inputs
from gradir.autodiff_pass.ir_building import dynamic_sizes, erase_dead_code
from gradir.autodiff_pass.rules.interface import ForwardContext, ReverseContext, WalkRule
from gradir.autodiff_pass.rules.loop_undo import undo_log
from gradir.autodiff_pass.rules.loop_cache import (
    Capacity,
    add,
    as_index,
    ceil_div,
    constant_index,
    empty_stack,
    entry_bytes,
    index_constant,
    mark_cache,
    mul,
    push,
    read,
    sub,
    trip_count,
)
from gradir.autodiff_pass.rules.scf import (
    captured_values,
    check_yields,
    outer_tangents,
    replace_with_tangents,
    tangent_positions,
    yielded_tangents,
    zero,
)
from gradir.errors import DifferentiationError, error_at
from gradir.dialects.type_checks import dynamic_dims

# ----------------------------------------------------------------------------
# Forward mode
# ----------------------------------------------------------------------------


def forward_for(walk: ForwardContext, loop: Operation) -> None:
    assert isinstance(loop, scf.ForOp)
    positions = tangent_positions(walk, loop)
    if not positions:
        return
    check_yields(loop)
    before = Builder(InsertPoint.before(loop))
    initial_tangents = [walk.tangent_or_zero(loop.iter_args[k], before) for k in positions]
    body = loop.body.block
    tangent_arguments = [body.insert_arg(t.type, len(body.args)) for t in initial_tangents]
    seeds = outer_tangents(walk, loop)
    seeds.update({body.args[1 + k]: t for k, t in zip(positions, tangent_arguments)})
    tangents = yielded_tangents(walk, body, seeds, positions)
    terminator = body.last_op
    assert isinstance(terminator, scf.YieldOp)
    Rewriter.replace_op(terminator, scf.YieldOp(*terminator.operands, *tangents))
    region = loop.detach_region(loop.body)
    new_loop = scf.ForOp(loop.lb, loop.ub, loop.step, [*loop.iter_args, *initial_tangents], region)
    new_loop.location = loop.location
    replace_with_tangents(walk, loop, new_loop, positions)


# ----------------------------------------------------------------------------
# Reverse mode
# ----------------------------------------------------------------------------


def reverse_for(walk: ReverseContext, loop: Operation) -> None:
    assert isinstance(loop, scf.ForOp)
    positions = walk.activity.active_positions(loop)
    if not any(walk.gradient(loop.results[k]) is not None for k in positions):
        return
    initials = list(loop.iter_args)
    seeds = [walk.gradient_or_zero(loop.results[k]) for k in positions]
    gradients = reverse_loop(walk, loop, positions, seeds)
    for k, gradient in zip(positions, gradients):
        if walk.activity.is_active(initials[k]):
            walk.accumulate(initials[k], gradient)


def reverse_loop(
    walk: ReverseContext, loop: scf.ForOp, positions: list[int], seeds: Sequence[SSAValue]
) -> list[SSAValue]:
    """Append the reverse of `loop` to the walk's block, seeded with the
    gradients of its results at `positions`, and accumulate the gradients of
    the outer values its body reads; return the gradients of its initial
    values at `positions`. The loop is rebuilt with its cache stacks."""
    check_yields(loop)
    step = constant_index(loop.step)
    if step is not None and step <= 0:
        raise error_at(DifferentiationError, loop, "'scf.for' step must be positive")
    captured = captured_values(loop, walk)
    top = Builder(InsertPoint.at_end(walk.block))
    so_far = [walk.gradient(value) for value in captured]
    accumulators = [
        zero(top, value) if gradient is None else gradient
        for value, gradient in zip(captured, so_far)
    ]
    # A trip count known only at run time is computed before the loop, where
    # the stacks it sizes are made.
    trips = trip_count(Builder(InsertPoint.before(loop)), loop.lb, loop.ub, loop.step)
    every = walk.checkpoint_every
    if every and (not isinstance(trips, int) or every < trips):
        results = _checkpointed(walk, loop, positions, captured, seeds, accumulators, trips, every)
    else:
        capacity = max(trips, 1) if isinstance(trips, int) else trips
        results = _cached(
            walk, walk.block, loop, positions, captured, seeds, accumulators, trips, capacity
        )
    for value, gradient in zip(captured, results[len(positions) :]):
        walk.set_gradient(value, gradient)
    return results[: len(positions)]


def _known(value: SSAValue) -> SSAValue | int:
    """`value`, or its constant when it is an index constant."""
    known = constant_index(value)
    return value if known is None else known


def _cached(
    walk: ReverseContext,
    into: Block,
    loop: scf.ForOp,
    positions: list[int],
    captured: list[SSAValue],
    seeds: Sequence[SSAValue],
    accumulators: Sequence[SSAValue],
    trips: SSAValue | int,
    capacity: Capacity,
) -> list[SSAValue]:
    """Cache in `loop` (`trips` <= `capacity` iterations) what its reverse
    reads and append the reverse loop to `into`; returns the gradients of the
    iteration arguments at `positions`, then of `captured`."""
    forward = loop.body.block
    lower, step = _known(loop.lb), _known(loop.step)
    reverse_body = Block(arg_types=[IndexType(), *[s.type for s in seeds], *[a.type for a in accumulators]])
    j, gradient_args = reverse_body.args[0], reverse_body.args[1:]
    b = Builder(InsertPoint.at_end(reverse_body))
    outer = Builder(InsertPoint.at_end(into))
    trips_value = as_index(outer, trips)
    last = as_index(outer, sub(outer, trips_value, 1))
    position = b.insert(arith.SubiOp(last, j)).result
    induction = as_index(b, add(b, mul(b, position, step), lower))

    # Placeholders stand for the stacks until the forward loop is rebuilt.
    placeholders: dict[SSAValue, SSAValue] = {}

    def cached_read(value: SSAValue, at: Builder) -> SSAValue:
        placeholder = empty_stack(outer, value.type, capacity, _placeholder_extents(outer, value.type))
        placeholders[value] = placeholder
        return read(at, placeholder, value.type, position)

    value_map: dict[SSAValue, SSAValue] = {forward.args[0]: induction}
    reads = {}
    for argument in forward.args[1:]:
        reads[argument] = value_map[argument] = cached_read(argument, b)
    copies: list[Operation] = []
    origin: dict[Operation, Operation] = {}
    for op in forward.ops:
        if isinstance(op, scf.YieldOp):
            continue
        copy = op.clone(value_map)
        reverse_body.add_op(copy)
        copies.append(copy)
        origin[copy] = op
    terminator = forward.last_op
    assert isinstance(terminator, scf.YieldOp)
    yielded = [value_map.get(v, v) for v in terminator.operands]
    iteration_values = [reads[forward.args[1 + k]] for k in positions]
    accumulator_args = gradient_args[len(positions) :]
    gradients = walk.reverse_ops(
        reverse_body,
        copies,
        [*iteration_values, *captured],
        [(yielded[k], g) for k, g in zip(positions, gradient_args)] + list(zip(captured, accumulator_args)),
    )
    b = Builder(InsertPoint.at_end(reverse_body))
    out = []
    for value, argument in zip(iteration_values, gradient_args):
        gradient = gradients.get(value)
        out.append(gradient if gradient is not None else zero(b, argument))
    for value, accumulator in zip(captured, accumulator_args):
        out.append(gradients.get(value, accumulator))
    reverse_body.add_op(scf.YieldOp(*out))
    # Rules compute the gradients of every operand; those of inactive operands
    # are dead and must not make their inputs look read by the backward.
    erase_dead_code(reverse_body)
    if position.owner.parent_block() is not reverse_body:  # type: ignore[union-attr]
        # Nothing read the stacks' entry then, but the caching below may: a value whose
        # op reads the state only in dead code (a branch's unused `sin` of it) is cached
        # (seed 7120 read an erased entry, IR that did not verify).
        position = Builder(InsertPoint.at_start(reverse_body)).insert(arith.SubiOp(last, j)).result
    copies = [copy for copy in copies if copy.parent_block() is reverse_body]
    reads = {
        argument: value
        for argument, value in reads.items()
        if value.owner.parent_block() is reverse_body  # type: ignore[union-attr]
    }

    # Cache what the backward reads; recompute what is not a float value, does
    # not depend on the loop's state (a slice of a loop-invariant input) or has
    # a dynamic shape (recomputed from the cached state it is computed from).
    stateful = set(forward.args[1:])
    for op in forward.ops:
        if any(value in stateful for value in op_inputs(op)):
            stateful.update(op.results)
    copy_set = set(copies)
    needed: set[Operation] = set()
    # The states between the inserts of a state that has an undo log are recomputed from the
    # state it rebuilds: cached, a Cholesky column's state after its diagonal insert was n x n
    # floats an iteration.
    undo_chains: set[SSAValue] = set()
    for argument in forward.args[1:]:
        log = undo_log(forward, argument.index - 1, stateful)
        if log is not None:
            undo_chains |= log.chain_values()

    def top_level(op: Operation) -> Operation | None:
        while op.parent_block() is not reverse_body:
            parent = op.parent_op()
            if parent is None:
                return None
            op = parent
        return op

    for copy in reversed(copies):
        users = {top_level(use.operation) for result in copy.results for use in result.uses}
        if not any(user not in copy_set or user in needed for user in users):
            continue
        cacheable = (
            any(result in stateful for result in origin[copy].results)
            and not copy.regions
            and not any(result in undo_chains for result in origin[copy].results)
            and all(carries_derivative(result) and not dynamic_dims(result.type) for result in copy.results)
        )
        if cacheable:
            at = Builder(InsertPoint.after(copy))
            for result, original in zip(copy.results, origin[copy].results):
                result.replace_all_uses_with(cached_read(original, at))
        else:
            needed.add(copy)
    for copy in reversed(copies):
        if copy not in needed and all(not result.uses for result in copy.results):
            Rewriter.erase_op(copy)
    for value in reads.values():
        if not value.uses:
            Rewriter.erase_op(value.owner)  # type: ignore[arg-type]
    # A tensor state the body writes element by element is rebuilt in the reverse loop from
    # the elements its inserts overwrote, not cached whole (`loop_undo`).
    undone: list[tuple[int, SSAValue]] = []
    rebuilt_branches: set[Operation] = set()
    for argument, value in reads.items():
        if value.owner.parent_block() is not reverse_body:  # type: ignore[union-attr]
            continue  # nothing read it: erased above
        log = undo_log(forward, argument.index - 1, stateful)
        if log is None or rebuilt_branches.intersection(log.rebuilt_ops()):
            continue  # (a branch or loop writing two states: the first log's cached values are its results)
        recorded = log.record()
        rebuilt_branches.update(log.rebuilt_ops())
        state_after = reverse_body.insert_arg(argument.type, len(reverse_body.args))
        at = Builder(InsertPoint.after(value.owner))  # type: ignore[arg-type]
        iteration = as_index(at, add(at, mul(at, position, step), lower))
        iteration_start = log.rebuild(at, state_after, iteration, [cached_read(old, at) for old in recorded])
        value.replace_all_uses_with(iteration_start)
        Rewriter.erase_op(value.owner)  # type: ignore[arg-type]
        undone.append((argument.index - 1, iteration_start))
    if undone:
        terminator = reverse_body.last_op
        assert isinstance(terminator, scf.YieldOp)
        Rewriter.replace_op(terminator, scf.YieldOp(*terminator.operands, *[start for _, start in undone]))

    cached = [(value, placeholders[value]) for value in placeholders if placeholders[value].uses]
    refuse_dynamic_stacks(loop, [value for value, _ in cached])
    for value, placeholder in placeholders.items():
        if not placeholder.uses:
            Rewriter.erase_op(placeholder.owner)  # type: ignore[arg-type]

    def entry(at: Builder, induction: SSAValue) -> SSAValue:
        return as_index(at, _iteration(at, induction, lower, step))

    loop, stacks = _add_stacks(loop, [value for value, _ in cached], entry, capacity)
    for (_, placeholder), stack in zip(cached, stacks):
        placeholder.replace_all_uses_with(stack)
        Rewriter.erase_op(placeholder.owner)  # type: ignore[arg-type]

    start, one = index_constant(outer, 0), index_constant(outer, 1)
    final_states = [loop.results[k] for k, _ in undone]
    reverse = scf.ForOp(start, trips_value, one, [*seeds, *accumulators, *final_states], reverse_body)
    reverse.location = loop.location
    into.add_op(reverse)
    return list(reverse.results)[: len(seeds) + len(accumulators)]


def _iteration(
    at: Builder, induction: SSAValue, lower: SSAValue | int, step: SSAValue | int
) -> SSAValue | int:
    """The iteration number of `induction`: `(induction - lower) / step`."""
    offset = sub(at, induction, lower)
    if constant_index(step) == 1:
        return offset
    return at.insert(arith.DivUIOp(as_index(at, offset), as_index(at, step))).result


def _add_stacks(
    loop: scf.ForOp,
    values: list[SSAValue],
    entry: Callable[[Builder, SSAValue], SSAValue],
    capacity: Capacity,
) -> tuple[scf.ForOp, list[SSAValue]]:
    """Give `loop` one stack of `capacity` entries per value of its body in
    `values` (block arguments included), written every iteration at
    `entry(builder, induction variable)`; returns the loop that replaces `loop`
    and the filled stacks."""
    if not values:
        return loop, []
    body = loop.body.block
    before = Builder(InsertPoint.before(loop))
    empties = [empty_stack(before, v.type, capacity, _extents(before, loop, v)) for v in values]
    stack_arguments = [body.insert_arg(e.type, len(body.args)) for e in empties]
    terminator = body.last_op
    assert isinstance(terminator, scf.YieldOp)
    at = Builder(InsertPoint.before(terminator))
    position = entry(at, body.args[0])
    pushed = [push(at, stack, value, position, loop.location) for stack, value in zip(stack_arguments, values)]
    Rewriter.replace_op(terminator, scf.YieldOp(*terminator.operands, *pushed))
    region = loop.body
    loop.detach_region(region)
    new_loop = scf.ForOp(loop.lb, loop.ub, loop.step, [*loop.iter_args, *empties], region)
    new_loop.location = loop.location
    for name, attribute in loop.attributes.items():
        new_loop.attributes[name] = attribute
    count = len(loop.results)
    Rewriter.replace_op(loop, new_loop, list(new_loop.results[:count]))
    sizes = [entry_bytes(v.type) for v in values]
    mark_cache(new_loop, None if None in sizes else sum(sizes), capacity, len(values))
    return new_loop, list(new_loop.results[count:])


def _checkpointed(
    walk: ReverseContext,
    loop: scf.ForOp,
    positions: list[int],
    captured: list[SSAValue],
    seeds: list[SSAValue],
    accumulators: list[SSAValue],
    trips: SSAValue | int,
    every: int,
) -> list[SSAValue]:
    """The forward loop saves its state every `every` iterations; the reverse
    runs over the segments backwards, recomputing each with a caching copy of
    the loop started from its saved state, then reversing that copy."""
    lower, step = _known(loop.lb), _known(loop.step)
    before = Builder(InsertPoint.before(loop))
    segments = ceil_div(before, trips, every)
    saved_capacity = add(before, segments, 1)
    last_segment = sub(before, segments, 1)
    segment_loop = loop.clone()  # the forward loop before it saves states

    body = Block(arg_types=[IndexType(), *[v.type for v in (*seeds, *accumulators)]])
    b = Builder(InsertPoint.at_end(body))
    outer = Builder(InsertPoint.at_end(walk.block))
    segment = b.insert(arith.SubiOp(as_index(b, last_segment), body.args[0])).result
    first = mul(b, segment, every)
    left = sub(b, trips, first)
    count = b.insert(arith.MinUIOp(as_index(b, left), index_constant(b, every))).result
    segment_lower = as_index(b, add(b, mul(b, first, step), lower))
    segment_upper = as_index(b, add(b, segment_lower, mul(b, count, step)))

    # Saved states: every iteration argument, written at the first iteration
    # of each segment (the others write a scratch entry at the end).
    placeholders = [
        empty_stack(outer, a.type, saved_capacity, _placeholder_extents(outer, a.type)) for a in loop.body.block.args[1:]
    ]
    state = [read(b, p, a.type, segment) for p, a in zip(placeholders, loop.body.block.args[1:])]
    segment_loop.operands = [segment_lower, segment_upper, segment_loop.step, *state]
    body.add_op(segment_loop)

    gradients = _cached(
        walk, body, segment_loop, positions, captured, body.args[1 : 1 + len(seeds)],
        body.args[1 + len(seeds) :], count, every,
    )  # fmt: skip
    body.add_op(scf.YieldOp(*gradients))

    def saved_entry(at: Builder, induction: SSAValue) -> SSAValue:
        offset = as_index(at, _iteration(at, induction, lower, step))
        quotient = at.insert(arith.DivUIOp(offset, index_constant(at, every))).result
        remainder = at.insert(arith.RemUIOp(offset, index_constant(at, every))).result
        starts = at.insert(arith.CmpiOp(remainder, index_constant(at, 0), "eq")).result
        scratch = as_index(at, segments)
        return at.insert(arith.SelectOp(starts, quotient, scratch)).result

    _, stacks = _add_stacks(loop, list(loop.body.block.args[1:]), saved_entry, saved_capacity)
    for placeholder, stack in zip(placeholders, stacks):
        placeholder.replace_all_uses_with(stack)
        Rewriter.erase_op(placeholder.owner)  # type: ignore[arg-type]

    start, one = index_constant(outer, 0), index_constant(outer, 1)
    reverse = scf.ForOp(start, as_index(outer, segments), one, [*seeds, *accumulators], body)
    reverse.location = segment_loop.location
    walk.block.add_op(reverse)
    return list(reverse.results)


def refuse_dynamic_stacks(loop: Operation, values: Sequence[SSAValue]) -> None:
    """A located error when the reverse of `loop` would cache a tensor of dynamic shape
    computed in the body (its stack would need one size per entry; `_cached` recomputes
    those instead, so this guards that choice). An iteration argument of dynamic shape is
    cached at the extents of its initial value (a run-time check holds the loop to them)."""
    for value in values:
        if dynamic_dims(value.type) and _initial_value(loop, value) is None:
            raise error_at(
                DifferentiationError,
                loop,
                f"differentiation of '{loop.name}' on tensors of dynamic shape: its reverse reads a "
                f"value of dynamic shape ({value.type}) computed in every iteration, and caching such "
                "values is not supported yet: give it static shapes",
            )


def _initial_value(loop: Operation, value: SSAValue) -> SSAValue | None:
    """The initial value of `loop`'s iteration argument `value`; None for another value."""
    assert isinstance(loop, scf.ForOp)
    if isinstance(value, BlockArgument) and value.owner is loop.body.block and value.index > 0:
        return loop.iter_args[value.index - 1]
    return None


def _extents(before: Builder, loop: scf.ForOp, value: SSAValue) -> list[SSAValue]:
    """The sizes of the dynamic dimensions of `value`, an iteration argument of `loop`, at
    its initial value (computed before the loop)."""
    if not dynamic_dims(value.type):
        return []
    initial = _initial_value(loop, value)
    assert initial is not None
    return dynamic_sizes(before, initial)


def _placeholder_extents(builder: Builder, value_type: Attribute) -> list[SSAValue]:
    """Sizes for a placeholder stack's dynamic dimensions (replaced before anything reads them)."""
    return [index_constant(builder, 0) for _ in dynamic_dims(value_type)]


RULES = (WalkRule("scf.for", reverse=reverse_for, forward=forward_for, dynamic_shapes=True),)
