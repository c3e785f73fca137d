"""Cheap construction of the AD ops, for passes that create one per forward op.

The IRDL `__init__` of an op builds its operand/result lists generically and is
several times slower than `Operation.create`; on a 50k-op function the
reverse walk spends most of its time there. These helpers create the same ops
directly; dead code is swept in one backward pass. Python's cyclic garbage collector likewise keeps re-scanning the
growing IR while a pass allocates it, so passes pause it while they run.
"""
from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    FloatAttr,
    NameLoc,
    StringAttr,
    TensorType,
    UnknownLoc,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from gradir.autodiff_pass.effects import would_be_dead
from gradir.dialects.autodiff import AutogradAddOp, AutogradZeroOp, GradOfOp, YieldOp


def autograd_add(a: SSAValue, b: SSAValue) -> AutogradAddOp:
    return AutogradAddOp.create(operands=[a, b], result_types=[a.type])


def autograd_zero(type_: Attribute) -> AutogradZeroOp:
    return AutogradZeroOp.create(result_types=[type_])


def grad_of(
    name: str,
    grads: Sequence[SSAValue],
    result_types: Sequence[Attribute],
    body: Region,
    location: Attribute | None = None,
) -> GradOfOp:
    """`location`: the forward op's, so that what goes wrong in its backward (a NaN under
    `autodiff-check-numerics`) points at the user's op."""
    op = GradOfOp.create(
        operands=grads,
        result_types=result_types,
        properties={"name": StringAttr(name)},
        regions=[body],
    )
    if location is not None:
        op.location = location
    return op


TANGENT_OF = "tangent of "
"""How the location of a tangent op names its primal op: `loc("tangent of 'autodiff.sqrt'"(f.mlir:2:3))`."""


def locate_tangent_ops(primal: Operation, name: str, end: Operation | None) -> None:
    """Give the ops forward mode emitted after `primal` (up to `end`) that have no location
    the primal op's, named as its tangent, so that what goes wrong in one (a NaN under
    `autodiff-check-numerics`) points at the user's op, as a `grad_of` does in reverse mode."""
    if not isinstance(primal.location, FileLineColLoc):
        return
    location = NameLoc(StringAttr(f"{TANGENT_OF}'{name}'"), primal.location)
    op = primal.next_op
    while op is not None and op is not end:
        for nested in op.walk():
            if isinstance(nested.location, UnknownLoc):
                nested.location = location
        op = op.next_op


def yield_(values: Sequence[SSAValue]) -> YieldOp:
    return YieldOp.create(operands=values)


def clone_op(op: Operation, value_map: dict[SSAValue, SSAValue]) -> Operation:
    """`op.clone(value_map)`, without xDSL's generic steps for regions and
    successors when the op has none (most ops reverse mode copies)."""
    if op.regions or op.successors:
        return op.clone(value_map)
    copy = type(op).create(
        operands=[value_map.get(operand, operand) for operand in op.operands],
        result_types=[result.type for result in op.results],
        properties=op.properties,
        attributes=op.attributes,
        location=op.location,
    )
    for result, copied in zip(op.results, copy.results):
        value_map[result] = copied
        copied.name_hint = result.name_hint
    return copy


def erase_dead_code(block: Block) -> bool:
    """Erase the ops of `block` and of the regions nested in it whose results
    nobody reads and which have no other effect, in one backward sweep (users
    before definitions); return whether a region of several blocks was met.
    Without one the sweep is exact: in a single block every use comes after
    its definition, so by the time an op is reached all its users were
    decided (xDSL's `region_dce` reaches the same by iterating to a fixed
    point, which the `dce` pass still runs when there was such a region)."""
    unstructured = False
    op = block.last_op
    while op is not None:
        previous = op.prev_op
        if all(result.first_use is None for result in op.results) and would_be_dead(op):
            block.erase_op(op)
        else:
            for region in op.regions:
                unstructured |= not at_most_one_block(region)
                for nested in region.blocks:
                    unstructured |= erase_dead_code(nested)
        op = previous
    return unstructured


def at_most_one_block(region: Region) -> bool:
    """`len(region.blocks) <= 1` without counting (xDSL counts by walking)."""
    first = region.first_block
    return first is None or first.next_block is None


def zero_constant(builder: Builder, type_: Attribute) -> SSAValue:
    """A real zero of `type_` (a splat tensor or a float scalar `arith.constant`),
    for rules whose results must be data rather than a symbolic `autograd_zero`."""
    if isinstance(type_, TensorType):
        value = arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(type_, [0.0]))
    else:
        value = arith.ConstantOp(FloatAttr(0.0, type_))  # type: ignore[arg-type]
    return builder.insert(value).result


@contextmanager
def paused_garbage_collection() -> Iterator[None]:
    """Run the body with the cyclic GC off (restored afterwards); IR objects
    are long-lived, so collections during a pass only cost time."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def unique_symbol(name: str, taken) -> str:
    """`name`, or `name__1`, `name__2`, ... : the first not in `taken` (the module's symbols,
    so a generated function never replaces a user's of the same name)."""
    candidate, count = name, 0
    while candidate in taken:
        count += 1
        candidate = f"{name}__{count}"
    return candidate
