"""Activity analysis: which values of a function body carry derivatives.

A value is *varied* when it depends on a differentiated argument and *useful*
when it influences a differentiated result; it is *active* when both hold.
Only float tensors and float scalars are ever active: an `i1` mask from a
comparison or an index carries no derivative, so dependencies through such values are cut. Only
active ops are differentiated, so an op off the active path needs no rule.

`scf.for`, `affine.for`, `scf.while` and `scf.if` are looked into. A loop is
a set of edges along which a value flows into another (initial value ->
iteration argument, yielded value -> iteration argument and result; for
`scf.while`, forwarded value -> `after` argument and result, and the `after`
yield -> `before` argument): a value is varied when one flowing into it is,
and useful when one it flows into is (a fixpoint over the iterations), so a
float loop state that never meets a differentiated argument (a counter, a
decay factor) is neither cached nor differentiated. The sets then hold the
regions' values too. Other ops with regions count as reading every outer
value their regions read. Each sweep visits each op once, except a loop body,
once per sweep of its loop that changes activity.

Integers and indices never carry derivatives, so a float computed from one
(`arith.sitofp` of a loop counter) is never varied. Memrefs are not
differentiable values: storing a varied value into one is refused by
`lost_derivatives`.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from xdsl.dialects import affine, scf
from xdsl.dialects.builtin import NoneAttr, TensorType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue

from gradir.dialects.type_checks import is_differentiable_type
from gradir.errors import DifferentiationError, error_at


def carries_derivative(value: SSAValue) -> bool:
    """Whether `value` can have a gradient or tangent at all: a float tensor (of static or
    dynamic shape) or a float scalar."""
    return is_differentiable_type(value.type)


def op_inputs(op: Operation) -> Iterator[SSAValue]:
    """The operands of `op`, plus values its nested regions read from outside it."""
    yield from op.operands
    yield from _region_reads(op)


def _region_reads(op: Operation) -> Iterator[SSAValue]:
    """Values defined outside `op` read by the ops of its regions (with repeats)."""
    if not op.regions:
        return
    for nested in op.walk():
        if nested is op:
            continue
        for value in nested.operands:
            owner = value.block.parent_op() if isinstance(value, BlockArgument) else value.owner
            if owner is None or not op.is_ancestor(owner):
                yield value


def outer_values(op: Operation) -> list[SSAValue]:
    """The values defined outside `op` that its regions read, once each, in
    the order they are first read (an operand too, where a region reads it)."""
    return list(dict.fromkeys(_region_reads(op)))


@dataclass
class Activity:
    """The result of `analyze_activity` on one block."""

    varied: set[SSAValue]
    """Float values that depend on a differentiated argument."""
    useful: set[SSAValue]
    """Float values that influence a differentiated result."""

    def is_active(self, value: SSAValue) -> bool:
        return value in self.varied and value in self.useful

    def is_active_op(self, op: Operation) -> bool:
        """An op is differentiated when one of its results is active."""
        return any(self.is_active(result) for result in op.results)

    def replace(self, old: SSAValue, new: SSAValue) -> None:
        """Give `new` the activity of `old`, which a rewrite is replacing."""
        if old in self.varied:
            self.varied.add(new)
        if old in self.useful:
            self.useful.add(new)

    def captured_values(self, op: Operation) -> list[SSAValue]:
        """The active values `op`'s regions read from outside it."""
        return [value for value in outer_values(op) if self.is_active(value)]

    def active_ops(self, block: Block) -> list[Operation]:
        """The active ops of `block`, in program order."""
        return [op for op in block.ops if self.is_active_op(op)]

    def active_positions(self, op: Operation) -> list[int]:
        """The results of an `scf.for`/`affine.for`/`scf.while`/`scf.if` to
        differentiate: the active ones and, for a loop, those whose iteration
        argument is active (for `scf.while`, its `after` argument)."""
        if isinstance(op, (scf.ForOp, affine.ForOp)):
            arguments = op.body.block.args[1:]
        elif isinstance(op, scf.WhileOp):
            arguments = op.after_region.block.args
        else:
            arguments = ()
        return [
            k
            for k, result in enumerate(op.results)
            if self.is_active(result) or (k < len(arguments) and self.is_active(arguments[k]))
        ]


def analyze_activity(
    block: Block, independents: Sequence[SSAValue], dependents: Iterable[SSAValue]
) -> Activity:
    """Activity of the ops of `block` w.r.t. `independents` (differentiated
    arguments) and `dependents` (differentiated results)."""
    varied = {value for value in independents if carries_derivative(value)}
    for value in varied:
        if isinstance(value, OpResult):
            _refuse_encoding(value.type, value.owner, "produces")
        else:
            _refuse_encoding(value.type, block.parent_op(), f"takes as argument {value.index}")  # type: ignore[attr-defined]
    _vary(block, varied)
    useful = {value for value in dependents if carries_derivative(value)}
    _use(block, useful)
    return Activity(varied, useful)


def _yielded(block: Block) -> list[SSAValue]:
    last = block.last_op
    if isinstance(last, (scf.YieldOp, affine.YieldOp)):
        return list(last.operands)
    if isinstance(last, scf.ConditionOp):
        return list(last.args)
    return []


def _floats(values: Iterable[SSAValue]) -> Iterator[SSAValue]:
    return (value for value in values if carries_derivative(value))


LOOPS = (scf.ForOp, affine.ForOp, scf.WhileOp)


def loop_edges(loop: Operation) -> list[tuple[SSAValue, SSAValue]]:
    """(source, target) pairs along which a loop's values flow into one another."""
    if isinstance(loop, scf.WhileOp):
        before, after = loop.before_region.block, loop.after_region.block
        forwarded, yielded = _yielded(before), _yielded(after)
        return [
            *zip(loop.arguments, before.args),
            *zip(yielded, before.args),
            *zip(forwarded, after.args),
            *zip(forwarded, loop.results),
        ]
    assert isinstance(loop, (scf.ForOp, affine.ForOp))
    body = loop.body.block
    initials = loop.iter_args if isinstance(loop, scf.ForOp) else loop.inits
    yielded = _yielded(body)
    return [
        *zip(initials, body.args[1:]),
        *zip(yielded, body.args[1:]),
        *zip(yielded, loop.results),
        *zip(initials, loop.results),  # no iteration: the results are the initial values
    ]


def _vary(block: Block, varied: set[SSAValue]) -> None:
    """Add to `varied` what the ops of `block` compute from varied values."""
    for op in block.ops:
        if isinstance(op, LOOPS):
            _vary_loop(op, varied)
        elif isinstance(op, scf.IfOp):
            for region in op.regions:
                for inner in region.blocks:
                    _vary(inner, varied)
                    varied.update(
                        result
                        for result, value in zip(op.results, _yielded(inner))
                        if value in varied and carries_derivative(result)
                    )
        elif any(value in varied for value in op_inputs(op)):
            _refuse_encodings(op)
            varied.update(_floats(op.results))


CACHE_ATTRIBUTE = "autodiff.cache"
"""Marks a loop reverse mode gave cache stacks (`rules.loop_cache`, which
imports this module)."""


def _refuse_encoding(type_: Attribute, where: Operation | None, verb: str) -> None:
    """A tensor type with an encoding (`tensor<2xf64, "pltri">`, a sparse layout) is not a
    plain array of values: the derivative rules build plain tensors, so its gradient
    would not have its type. Refused where it becomes active."""
    if isinstance(type_, TensorType) and not isinstance(type_.encoding, NoneAttr):
        name = f"'{where.name}'" if where is not None else "it"
        raise error_at(
            DifferentiationError,
            where,
            f"{name} {verb} {type_}, a tensor with an encoding: gradir differentiates tensors "
            "without one (drop the encoding; a sparse tensor is not supported)",
        )


def _refuse_encodings(op: Operation) -> None:
    """A tensor with an encoding computed from a varied value (`_refuse_encoding`)."""
    for result in op.results:
        _refuse_encoding(result.type, op, "produces")


def _loop_blocks(loop: Operation) -> list[Block]:
    return [block for region in loop.regions for block in region.blocks]


def _flow(edges: list[tuple[SSAValue, SSAValue]], into: set[SSAValue], forward: bool) -> bool:
    """Add to `into` the values an edge brings from a member (source to
    target, or back when not `forward`); return whether it grew."""
    grown = False
    for source, target in edges:
        if not forward:
            source, target = target, source
        if source in into and target not in into:
            into.add(target)
            grown = True
    return grown


def _vary_loop(loop: Operation, varied: set[SSAValue]) -> None:
    edges = [(source, target) for source, target in loop_edges(loop) if carries_derivative(target)]
    blocks = _loop_blocks(loop)
    _flow(edges, varied, forward=True)
    while True:
        for block in blocks:  # at least once: the body may read varied outer values
            _vary(block, varied)
        if not _flow(edges, varied, forward=True):
            break


def _use(block: Block, useful: set[SSAValue]) -> None:
    """Add to `useful` what the ops of `block` read to compute useful values."""
    for op in reversed(block.ops):
        if isinstance(op, LOOPS):
            _use_loop(op, useful)
        elif isinstance(op, scf.IfOp):
            positions = [k for k, result in enumerate(op.results) if result in useful]
            if not positions:
                continue
            for region in op.regions:
                for inner in region.blocks:
                    yielded = _yielded(inner)
                    useful.update(_floats(yielded[k] for k in positions if k < len(yielded)))
                    _use(inner, useful)
        elif any(result in useful for result in op.results):
            useful.update(_floats(op_inputs(op)))


def _use_loop(loop: Operation, useful: set[SSAValue]) -> None:
    if not any(result in useful for result in loop.results):
        return
    edges = [(source, target) for source, target in loop_edges(loop) if carries_derivative(source)]
    blocks = list(reversed(_loop_blocks(loop)))
    _flow(edges, useful, forward=False)
    while True:
        for block in blocks:
            _use(block, useful)
        if not _flow(edges, useful, forward=False):
            break
