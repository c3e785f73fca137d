"""Batching rules of control flow whose condition or trip count may depend on the batch.

A batched condition is a `tensor<B x i1>` (one per example). No loop over the
batch is ever built; instead, as in JAX's `cond` and `while_loop` batching rules:

- `scf.if` on a batched condition runs both branches on the whole batch and
  picks each example's result with a per-lane select.
- `scf.while` whose condition becomes batched runs while *any* lane continues;
  a lane whose condition is false keeps its state (per-lane select between
  the body's new state and the old one), so re-running the condition on it
  gives the same forwarded values and `false` again: what leaves the loop is,
  lane by lane, what the unbatched loop returned.
- `scf.for` to an upper bound that depends on the batch (a backward undoing as many
  iterations as each example's forward made) runs to the largest bound; a lane past
  its own keeps its state, as in `scf.while`.
- `affine.for` becomes the `scf.for` it stands for (bounds from its maps), batched
  like one; bounds that depend on the batch have no rule.

`select_lanes`, `any_lane` and `lane_maximum` are the helpers: `linalg.generic`s the
CPU and GPU pipelines map like any other.
"""
from __future__ import annotations

from collections.abc import Sequence
from contextlib import contextmanager

from xdsl.dialects import affine, arith, cf, scf, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    TensorType,
    i1,
)
from xdsl.dialects.linalg.ops import GenericOp, IteratorTypeAttr, YieldOp
from xdsl.ir import Block, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from gradir.autodiff_pass.batch_builder import Batched, BatchBuilder, unsupported
from gradir.dialects.upstream_ops import SelectOp


def select_lanes(builder: BatchBuilder, condition: SSAValue, on_true: SSAValue, on_false: SSAValue) -> SSAValue:
    """Per lane `b`: `on_true[b]` where `condition[b]`, else `on_false[b]` (all batched).
    Sizes known only at run time must agree (`_same_extents`)."""
    result_type = on_true.type
    assert isinstance(result_type, TensorType)
    _same_extents(builder, on_true, on_false)
    rank = result_type.get_num_dims()
    element = result_type.element_type
    empty = builder.insert(tensor.EmptyOp(builder.dynamic_sizes(on_true), result_type)).results[0]
    body = Block(arg_types=[i1, element, element, element])
    select = arith.SelectOp(body.args[0], body.args[1], body.args[2])
    body.add_ops([select, YieldOp(select.result)])
    identity = AffineMapAttr(AffineMap.identity(rank))
    lane = AffineMapAttr(AffineMap(rank, 0, (AffineExpr.dimension(0),)))
    generic = GenericOp(
        [condition, on_true, on_false], [empty], Region(body),
        ArrayAttr([lane, identity, identity, identity]),
        ArrayAttr([IteratorTypeAttr.parallel()] * rank), [result_type],
    )
    return builder.insert(generic).results[0]


def _same_extents(builder: BatchBuilder, first: SSAValue, second: SSAValue) -> None:
    """A run-time check that `first` and `second` have the same extents where their types do
    not say: a loop state whose size changes between iterations (an example that stopped
    keeps its smaller one) or branches yielding different sizes would give each example its
    own size, which one batched tensor cannot hold; the select read past the smaller one."""
    for dim, size in enumerate(first.type.get_shape()):  # type: ignore[union-attr]
        if size != DYNAMIC_INDEX and second.type.get_shape()[dim] != DYNAMIC_INDEX:  # type: ignore[union-attr]
            continue
        index = builder.insert(arith.ConstantOp(IntegerAttr(dim, IndexType()))).results[0]
        extents = [builder.insert(tensor.DimOp(value, index)).results[0] for value in (first, second)]
        same = builder.insert(arith.CmpiOp(*extents, "eq")).results[0]
        builder.insert(cf.AssertOp(
            same, "vmap: a value of dynamic shape whose size differs between examples (a loop state that "
            "changes size, branches of different sizes): one batched tensor holds one size",
        ))


def lane_constant(builder: BatchBuilder, value: int, type_) -> SSAValue:
    """`tensor<B x type_>` holding `value` in every lane."""
    constant = builder.insert(arith.ConstantOp(IntegerAttr(value, type_))).results[0]
    return builder.materialize(constant, False)


@contextmanager
def keeping_only(builder: BatchBuilder, lanes: SSAValue, negated: bool = False):
    """Batch the code of the `with` block knowing that only `lanes` (or, `negated`, the
    others) keep its results (`BatchBuilder.kept_lanes`; within an enclosing such block,
    the lanes both keep). The other lanes run it on values the unbatched program never
    computed there (a branch it did not take, an iteration past its end): an index read
    from them must not be used to read or write memory."""
    if negated:
        lanes = select_lanes(builder, lanes, lane_constant(builder, 0, i1), lane_constant(builder, 1, i1))
    outer = builder.kept_lanes
    if outer is not None:
        lanes = select_lanes(builder, outer, lanes, outer)
    builder.kept_lanes = lanes
    try:
        yield
    finally:
        builder.kept_lanes = outer


def any_lane(builder: BatchBuilder, condition: SSAValue) -> SSAValue:
    """The `i1` "some lane of `condition` (`tensor<B x i1>`) is true"."""
    scalar = TensorType(i1, [])
    init = builder.insert(arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(scalar, [0]))).results[0]
    body = Block(arg_types=[i1, i1])
    either = arith.OrIOp(body.args[0], body.args[1])
    body.add_ops([either, YieldOp(either.result)])
    generic = GenericOp(
        [condition], [init], Region(body),
        ArrayAttr([AffineMapAttr(AffineMap.identity(1)), AffineMapAttr(AffineMap(1, 0, ()))]),
        ArrayAttr([IteratorTypeAttr.reduction()]), [scalar],
    )
    reduced = builder.insert(generic).results[0]
    return builder.insert(tensor.ExtractOp(reduced, [], i1)).results[0]


def _in_block(builder: BatchBuilder, block: Block, action):
    """`action()` with the builder appending to `block`."""
    outer = builder.block
    builder.block = block
    try:
        return action()
    finally:
        builder.block = outer


def batch_if_per_lane(builder: BatchBuilder, op: scf.IfOp, operands, batched) -> list[Batched]:
    """`scf.if` on a batched condition: both branches on the whole batch, each
    example's result picked by its condition. An `scf.if` without results (side
    effects only) has no rule."""
    if not op.results:
        raise unsupported(op, "a branch without results on a condition that depends on the batch")
    if not op.false_region.blocks:
        raise unsupported(op, "an scf.if with results and no else branch")
    branches = []
    for region, negated in ((op.true_region, False), (op.false_region, True)):
        with keeping_only(builder, operands[0], negated):
            branches.append([builder.materialize(v, b) for v, b in builder.batch_block(region.block, [])])
    return [(select_lanes(builder, operands[0], t, f), True) for t, f in zip(*branches)]


def batch_while(builder, op, operands, batched):
    """`scf.while`: an iteration argument is batched when its init or what the body
    yields for it is (batched again until the flags settle, as `scf.for`); a
    condition that depends on the batch makes every argument batched and the
    loop run while any lane continues (see the module docstring)."""
    assert isinstance(op, scf.WhileOp)
    before, after = op.before_region.block, op.after_region.block
    flags = list(batched)
    while True:
        before_types = [builder.batched_type(a.type) if f else a.type for a, f in zip(before.args, flags)]
        before_block = Block(arg_types=before_types)
        condition = _in_block(builder, before_block, lambda: builder.batch_block(
            before, list(zip(before_block.args, flags))))
        (_, condition_batched), forwarded = condition[0], condition[1:]
        if condition_batched and not all(flags):
            flags = [True] * len(flags)
            continue
        forwarded_flags = [f or condition_batched for _, f in forwarded]
        after_types = [builder.batched_type(a.type) if f else a.type for a, f in zip(after.args, forwarded_flags)]
        after_block = Block(arg_types=after_types)
        yielded = _in_block(builder, after_block, lambda: builder.batch_block(
            after, list(zip(after_block.args, forwarded_flags))))
        grown = [f or y for f, (_, y) in zip(flags, yielded)]
        if grown == flags:
            break
        flags = grown
    inits = [builder.materialize(v, b) if f else v for v, b, f in zip(operands, batched, flags)]
    if not condition_batched:
        _in_block(builder, before_block, lambda: builder.insert(scf.ConditionOp(
            condition[0][0], *(builder.materialize(v, y) if f else v
                               for (v, y), f in zip(forwarded, forwarded_flags)))))
        _in_block(builder, after_block, lambda: builder.insert(scf.YieldOp(
            *(builder.materialize(v, y) if f else v for (v, y), f in zip(yielded, flags)))))
        loop = builder.insert(scf.WhileOp(inits, after_types, [before_block], [after_block]))
        return list(zip(loop.results, forwarded_flags))
    return _while_any_lane_continues(builder, op, inits)


def _while_any_lane_continues(builder: BatchBuilder, op: scf.WhileOp, inits: Sequence[SSAValue]) -> list[Batched]:
    """The loop on a batched condition. Its state is the batched iteration
    arguments and each lane's condition `c`; the `before` region only forwards
    them (so that bufferization finds each forwarded value in its own argument)
    and continues while any lane of `c` is true; the body runs the original
    body on the whole batch, keeps the stopped lanes' old state (per-lane
    select) and computes `c` for the new state. `c` for the initial state is
    computed before the loop; values the original `before` region forwards
    (when they are not simply its arguments) are computed from the state again."""
    before, after = op.before_region.block, op.after_region.block
    terminator = before.last_op
    assert terminator is not None
    forwards_arguments = list(terminator.operands[1:]) == list(before.args)

    def condition_and_forwarded(state: Sequence[SSAValue]) -> tuple[SSAValue, list[SSAValue]]:
        pairs = builder.batch_block(before, [(v, True) for v in state])
        lanes = builder.materialize(*pairs[0])
        return lanes, [builder.materialize(v, b) for v, b in pairs[1:]]

    lanes, _ = condition_and_forwarded(inits)
    state_types = [v.type for v in inits]
    carried = [*state_types, lanes.type]
    test = Block(arg_types=carried)
    _in_block(builder, test, lambda: builder.insert(scf.ConditionOp(
        any_lane(builder, test.args[-1]), *test.args)))
    body = Block(arg_types=carried)
    state, continuing = list(body.args[:-1]), body.args[-1]

    def step():
        forwarded = state if forwards_arguments else condition_and_forwarded(state)[1]
        with keeping_only(builder, continuing):
            new = [builder.materialize(v, b) for v, b in builder.batch_block(after, [(v, True) for v in forwarded])]
        kept = [select_lanes(builder, continuing, n, old) for n, old in zip(new, state)]
        builder.insert(scf.YieldOp(*kept, condition_and_forwarded(kept)[0]))

    _in_block(builder, body, step)
    loop = builder.insert(scf.WhileOp([*inits, lanes], carried, [test], [body]))
    final = list(loop.results[:-1])
    if not forwards_arguments:
        final = condition_and_forwarded(final)[1]
    return [(v, True) for v in final]


def lane_maximum(builder: BatchBuilder, lanes: SSAValue, at_least: SSAValue) -> SSAValue:
    """max(`at_least`, max over the lanes of `lanes` (`tensor<B x index>`, or of the integer
    type a loop counts in))."""
    counter = at_least.type
    scalar = TensorType(counter, [])
    init = builder.insert(tensor.FromElementsOp(at_least, result_type=scalar)).results[0]
    body = Block(arg_types=[counter, counter])
    larger = arith.MaxSIOp(body.args[0], body.args[1])
    body.add_ops([larger, YieldOp(larger.result)])
    generic = GenericOp(
        [lanes], [init], Region(body),
        ArrayAttr([AffineMapAttr(AffineMap.identity(1)), AffineMapAttr(AffineMap(1, 0, ()))]),
        ArrayAttr([IteratorTypeAttr.reduction()]), [scalar],
    )
    reduced = builder.insert(generic).results[0]
    return builder.insert(tensor.ExtractOp(reduced, [], counter)).results[0]


def _lanes_below(builder: BatchBuilder, value: SSAValue, bounds: SSAValue) -> SSAValue:
    """`tensor<B x i1>`: per lane, `value` (an `index`, or the integer a loop counts in) <
    `bounds[b]`."""
    result = TensorType(i1, [builder.size])
    empty = builder.insert(tensor.EmptyOp([], result)).results[0]
    body = Block(arg_types=[value.type, i1])
    below = arith.CmpiOp(value, body.args[0], "slt")
    body.add_ops([below, YieldOp(below.result)])
    lanes = AffineMapAttr(AffineMap.identity(1))
    generic = GenericOp(
        [bounds], [empty], Region(body), ArrayAttr([lanes, lanes]),
        ArrayAttr([IteratorTypeAttr.parallel()]), [result],
    )
    return builder.insert(generic).results[0]


def batch_for_per_lane(builder: BatchBuilder, op: scf.ForOp, operands, batched) -> list[Batched]:
    """`scf.for` whose upper bound depends on the example (a backward's loop over the
    iterations its forward made, per example): the loop runs to the largest bound;
    an example past its own keeps its state (per-lane select), as in `scf.while`.
    A lower bound or step that depends on the example has no rule."""
    if batched[0] or batched[2]:
        raise unsupported(op, "its lower bound or step depends on the batch")
    lower, upper, step = operands[:3]
    largest = lane_maximum(builder, upper, lower)
    inits = [builder.materialize(v, b) for v, b in zip(operands[3:], batched[3:])]
    body = Block(arg_types=[op.body.block.args[0].type, *(v.type for v in inits)])  # index or i32, ...
    induction, state = body.args[0], list(body.args[1:])

    def step_lanes_below_their_bound():
        active = _lanes_below(builder, induction, upper)
        with keeping_only(builder, active):
            yielded = builder.batch_block(op.body.block, [(induction, False), *((v, True) for v in state)])
        new = [builder.materialize(v, b) for v, b in yielded]
        builder.insert(scf.YieldOp(*(select_lanes(builder, active, n, old) for n, old in zip(new, state))))

    _in_block(builder, body, step_lanes_below_their_bound)
    loop = builder.insert(scf.ForOp(lower, largest, step, inits, body))
    return [(r, True) for r in loop.results]


def batch_affine_for(builder, op, operands, batched):
    """`affine.for` as the `scf.for` it stands for (its bounds computed from its
    maps, `affine.yield` read as `scf.yield`), batched like one."""
    from gradir.autodiff_pass.rules.affine import bound_value

    assert isinstance(op, affine.ForOp)
    lower_count = len(op.lowerBoundOperands)
    upper_count = len(op.upperBoundOperands)
    bounds = lower_count + upper_count
    if any(batched[:bounds]):
        raise unsupported(op, "its bounds depend on the batch")
    step = op.step.value.data
    if step <= 0:
        raise unsupported(op, "its step is not positive")
    lower = bound_value(builder, op.lowerBoundMap, operands[:lower_count], arith.MaxSIOp)
    upper = bound_value(builder, op.upperBoundMap, operands[lower_count:bounds], arith.MinSIOp)
    step_value = builder.insert(arith.ConstantOp(IntegerAttr(step, IndexType()))).results[0]
    return batched_for_loop(builder, op.body.block, (lower, upper, step_value),
                            operands[bounds:], batched[bounds:])


def batch_select(builder, op, operands, batched):
    """`arith.select`: an unbatched `i1` condition picks between the batched values, a
    batched one per lane; a tensor of conditions is elementwise, all three batched."""
    assert isinstance(op, arith.SelectOp)
    condition, on_true, on_false = operands
    on_true, on_false = builder.materialize(on_true, batched[1]), builder.materialize(on_false, batched[2])
    if isinstance(op.cond.type, TensorType):
        condition = builder.materialize(condition, batched[0])
        return [(builder.insert(SelectOp(condition, on_true, on_false)).results[0], True)]
    if not batched[0]:
        return [(builder.insert(arith.SelectOp(condition, on_true, on_false)).results[0], True)]
    return [(select_lanes(builder, condition, on_true, on_false), True)]



def batched_for_loop(builder: BatchBuilder, block: Block, bounds: Sequence[SSAValue],
                     inits: Sequence[SSAValue], init_flags: Sequence[bool]) -> list[Batched]:
    """The `scf.for` over `bounds` (lower, upper, step) of the loop body `block`
    (`scf.for`'s or `affine.for`'s), batched: an iteration argument is batched
    when its init or what the body yields for it is (found by batching the body
    again until the flags settle; the last try is kept)."""
    inits, flags = list(inits), list(init_flags)
    original_types = [a.type for a in block.args[1:]]
    outer = builder.block
    while True:
        types = [builder.batched_type(t) if f else t for t, f in zip(original_types, flags)]
        body = Block(arg_types=[block.args[0].type, *types])
        builder.block = body
        try:
            yielded = builder.batch_block(block, [(a, f) for a, f in zip(body.args, [False, *flags])])
        finally:
            builder.block = outer
        grown = [f or y for f, (_, y) in zip(flags, yielded)]
        if grown == flags:
            break
        flags = grown
    builder.block = body
    try:
        body.add_op(scf.YieldOp(*(builder.materialize(v, y) if f else v
                                  for (v, y), f in zip(yielded, flags))))
    finally:
        builder.block = outer
    inits = [builder.materialize(v, b) if f else v for v, b, f in zip(inits, init_flags, flags)]
    loop = builder.insert(scf.ForOp(bounds[0], bounds[1], bounds[2], inits, body))
    return list(zip(loop.results, flags))


RULE_KINDS = {
    "select": batch_select,
    "while": batch_while,
    "affine_for": batch_affine_for,
}
"""The control-flow helpers `batching.yaml` names (merged into `batching.RULE_KINDS`);
`scf.if` on a batched condition is the `if` helper's `batch_if_per_lane`."""

OP_NAMES: frozenset[str] = frozenset({"scf.while", "affine.for"})
"""The ops these helpers batch (names `batching.yaml` may list)."""
