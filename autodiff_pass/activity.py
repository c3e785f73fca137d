"""Activity analysis: which values of a function body carry derivatives.

A value is *varied* when it depends on a differentiated argument and *useful*
when it influences a differentiated result; it is *active* when both hold.
Only float tensors and float scalars are ever active: an `i1` mask from a
comparison or an index carries no derivative, so dependencies through such values are cut. Only
active ops are differentiated, so an op off the active path needs no rule.
Both sweeps visit each op once (linear in the size of the body).
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from xdsl.ir import Block, BlockArgument, Operation, SSAValue

from gradir.dialects.type_checks import FLOAT_ELEMENT_TYPES, is_float_tensor


def carries_derivative(value: SSAValue) -> bool:
    """Whether `value` can have a gradient or tangent at all."""
    return is_float_tensor(value.type) or isinstance(value.type, FLOAT_ELEMENT_TYPES)


def op_inputs(op: Operation) -> Iterator[SSAValue]:
    """The operands of `op`, plus values its nested regions read from outside it."""
    yield from op.operands
    if not op.regions:
        return
    for nested in op.walk():
        if nested is op:
            continue
        for value in nested.operands:
            owner = value.block.parent_op() if isinstance(value, BlockArgument) else value.owner
            if owner is None or not op.is_ancestor(owner):
                yield value


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

    def active_ops(self, block: Block) -> list[Operation]:
        """The active ops of `block`, in program order."""
        return [op for op in block.ops if self.is_active_op(op)]


def analyze_activity(
    block: Block, independents: Sequence[SSAValue], dependents: Iterable[SSAValue]
) -> Activity:
    """Activity of the ops of `block` w.r.t. `independents` (differentiated
    arguments) and `dependents` (differentiated results)."""
    varied = {value for value in independents if carries_derivative(value)}
    for op in block.ops:
        if any(value in varied for value in op_inputs(op)):
            varied.update(result for result in op.results if carries_derivative(result))

    useful = {value for value in dependents if carries_derivative(value)}
    for op in reversed(block.ops):
        if any(result in useful for result in op.results):
            useful.update(value for value in op_inputs(op) if carries_derivative(value))
    return Activity(varied, useful)
