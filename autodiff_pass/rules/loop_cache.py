"""Per-iteration caches of an `scf.for`: tensor stacks with one entry per iteration.

A value `v` of type `T` produced in iteration `k` of a loop is pushed onto a
stack `tensor<N x T>` (`T` a tensor: `tensor.insert_slice` at row `k`; `T` a
scalar: `tensor.insert` at `k`) carried as an extra iteration argument, and
read back with the matching `extract_slice` / `extract`. `cache_bytes` sums
what the stacks of a module hold, from the `autodiff.cache` attributes the
reverse pass puts on the loops it caches.
"""
from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

CACHE_ATTRIBUTE = "autodiff.cache"
"""On a forward loop that pushes values for its reverse: `{bytes, values}` =
the stacks' total size and the number of values cached per iteration."""


def stack_type(value_type: Attribute, entries: int) -> TensorType:
    """The type of a stack of `entries` values of `value_type`."""
    if isinstance(value_type, TensorType):
        return TensorType(value_type.element_type, (entries, *value_type.get_shape()))
    return TensorType(value_type, (entries,))


def _slice_parameters(value_type: TensorType, position: SSAValue):
    shape = value_type.get_shape()
    return [position, *[0] * len(shape)], [1, *shape], [1] * (len(shape) + 1)


def push(builder: Builder, stack: SSAValue, value: SSAValue, position: SSAValue) -> SSAValue:
    """`stack` with `value` written at entry `position`."""
    if isinstance(value.type, TensorType):
        offsets, sizes, strides = _slice_parameters(value.type, position)
        static_offsets = [DYNAMIC_INDEX, *offsets[1:]]
        op = tensor.InsertSliceOp.get(
            value, stack, sizes, static_offsets, strides, offsets=[position]
        )
        return builder.insert(op).result
    return builder.insert(tensor.InsertOp(value, stack, [position])).result


def read(builder: Builder, stack: SSAValue, value_type: Attribute, position: SSAValue) -> SSAValue:
    """Entry `position` of `stack`, a value of `value_type`."""
    if isinstance(value_type, TensorType):
        offsets, sizes, strides = _slice_parameters(value_type, position)
        op = tensor.ExtractSliceOp(stack, offsets, sizes, strides, value_type)
        return builder.insert(op).result
    return builder.insert(tensor.ExtractOp(stack, [position], value_type)).result


def index_constant(builder: Builder, value: int) -> SSAValue:
    return builder.insert(arith.ConstantOp(IntegerAttr(value, IndexType()))).result


def constant_index(value: SSAValue) -> int | None:
    """The value of an `arith.constant` of index type, else None."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        if isinstance(owner.value.type, IndexType):
            return owner.value.value.data
    return None


def entry_bytes(value_type: Attribute) -> int:
    """Bytes one cached value of `value_type` takes."""
    element = value_type.element_type if isinstance(value_type, TensorType) else value_type
    width = getattr(element, "bitwidth", None) or (64 if isinstance(element, IndexType) else 32)
    count = 1
    if isinstance(value_type, TensorType):
        for size in value_type.get_shape():
            count *= size
    return count * max(1, width // 8)


def mark_cache(loop: Operation, total_bytes: int, values: int) -> None:
    loop.attributes[CACHE_ATTRIBUTE] = DictionaryAttr(
        {"bytes": IntegerAttr(total_bytes, i64), "values": IntegerAttr(values, i64)}
    )


def cache_bytes(module: ModuleOp) -> int:
    """Total bytes of every loop cache in `module` (0 when nothing is cached)."""
    total = 0
    for op in module.walk():
        attribute = op.attributes.get(CACHE_ATTRIBUTE)
        if isinstance(op, scf.ForOp) and isinstance(attribute, DictionaryAttr):
            size = attribute.data["bytes"]
            assert isinstance(size, IntegerAttr)
            total += size.value.data
    return total

