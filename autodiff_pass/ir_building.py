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
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    NameLoc,
    StringAttr,
    TensorType,
    UnknownLoc,
)
from xdsl.dialects.linalg.ops import FillOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from gradir.autodiff_pass.effects import would_be_dead
from gradir.dialects.autodiff import AutogradAddOp, AutogradZeroOp, GradOfOp, YieldOp
from gradir.dialects.type_checks import dynamic_dims
from gradir.lowering.standard_ops import extents


def autograd_add(a: SSAValue, b: SSAValue) -> AutogradAddOp:
    return AutogradAddOp.create(operands=[a, b], result_types=[a.type])


def autograd_zero(type_: Attribute, dynamic_sizes: Sequence[SSAValue] = ()) -> AutogradZeroOp:
    return AutogradZeroOp.create(operands=list(dynamic_sizes), result_types=[type_])


def dynamic_sizes(builder: Builder, value: SSAValue) -> list[SSAValue]:
    """The size of each dynamic dimension of `value` (a `tensor.dim`), in order; none for a
    statically shaped tensor or a scalar."""
    if not isinstance(value.type, TensorType):
        return []
    return [size for size in extents(builder, value) if isinstance(size, SSAValue)]


def empty_like(builder: Builder, value: SSAValue) -> SSAValue:
    """A `tensor.empty` of `value`'s type and sizes."""
    return builder.insert(tensor.EmptyOp(dynamic_sizes(builder, value), value.type)).tensor


def empty_of(builder: Builder, type_: TensorType, extents: Sequence[SSAValue | int]) -> SSAValue:
    """A `tensor.empty` of `type_`, whose dynamic dimensions are as long as `extents` (one
    size per dimension, a number or an `index` value) says."""
    sizes = [size for size, static in zip(extents, type_.get_shape()) if static == DYNAMIC_INDEX]
    assert all(isinstance(size, SSAValue) for size in sizes), f"no size for a dynamic dimension of {type_}"
    return builder.insert(tensor.EmptyOp(sizes, type_)).tensor  # type: ignore[arg-type]


def zero_like(builder: Builder, value: SSAValue) -> SSAValue:
    """An `autograd_zero` of `value`'s type and sizes."""
    return builder.insert(autograd_zero(value.type, dynamic_sizes(builder, value))).result


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


def zero_constant(builder: Builder, like: SSAValue | Attribute, sizes: Sequence[SSAValue] | None = None) -> SSAValue:
    """A real zero of `like`'s type (a value's, or a type), for rules whose results must be
    data rather than a symbolic `autograd_zero` (or an integer result's tangent): a splat
    `arith.constant` tensor or a scalar; of a dynamic shape, a `tensor.empty` filled with 0, of the value's sizes or of
    `sizes` (one per dynamic dimension)."""
    type_ = like.type if isinstance(like, SSAValue) else like
    if isinstance(type_, TensorType) and dynamic_dims(type_):
        if sizes is None:
            if not isinstance(like, SSAValue):
                raise AssertionError(f"a zero of {type_} needs a value or sizes to take its sizes from")
            sizes = dynamic_sizes(builder, like)
        empty = builder.insert(tensor.EmptyOp(list(sizes), type_)).tensor
        zero = builder.insert(arith.ConstantOp(FloatAttr(0.0, type_.element_type))).result  # type: ignore[arg-type]
        return builder.insert(FillOp([zero], [empty], [type_])).results[0]
    element = type_.element_type if isinstance(type_, TensorType) else type_
    integral = isinstance(element, (IntegerType, IndexType))
    if isinstance(type_, TensorType):
        value = arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(type_, [0 if integral else 0.0]))
    elif integral:
        value = arith.ConstantOp(IntegerAttr(0, type_))  # type: ignore[arg-type]
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
