"""Per-iteration caches of an `scf.for`: tensor stacks with one entry per iteration.

A value `v` of type `T` produced in iteration `k` of a loop is pushed onto a
stack `tensor<N x T>` (`T` a tensor: `tensor.insert_slice` at row `k`; `T` a
scalar: `tensor.insert` at `k`) carried as an extra iteration argument, and
read back with the matching `extract_slice` / `extract`. When the trip count
N is known only at run time the stack is `tensor<? x T>`, made by
`tensor.empty(%n)` before the loop (`Capacity`). A value of dynamic shape (a loop state
`tensor<?xf64>`) is stacked at one extent for all entries, `tensor<N x ? x ...>` sized
before the loop from the state's initial value; each push checks it at run time. `cache_bytes` sums what the
stacks of a module hold, from the `autodiff.cache` attributes the reverse
pass puts on the loops it caches.

The index arithmetic helpers (`add`, `sub`, `mul`, `ceil_div`) fold
constants as they build, so a loop with constant bounds keeps static stacks
and no run-time trip-count code.
"""
from __future__ import annotations

from xdsl.builder import Builder
from collections.abc import Sequence

from xdsl.dialects import arith, cf, scf, tensor
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

from gradir.autodiff_pass import activity
from gradir.lowering.standard_ops import index_constant

CACHE_ATTRIBUTE = activity.CACHE_ATTRIBUTE
"""On a forward loop that pushes values for its reverse: `{bytes, values}` =
the stacks' total size (`bytes_per_iteration` when sized at run time) and the
number of values cached per iteration."""


Capacity = int | SSAValue
"""How many entries a stack holds: a constant, or an `index` value known at run time."""


def stack_type(value_type: Attribute, entries: Capacity) -> TensorType:
    """The type of a stack of `entries` values of `value_type` (`?` rows when
    `entries` is a run-time value)."""
    rows = entries if isinstance(entries, int) else DYNAMIC_INDEX
    if isinstance(value_type, TensorType):
        return TensorType(value_type.element_type, (rows, *value_type.get_shape()))
    return TensorType(value_type, (rows,))


def empty_stack(
    builder: Builder, value_type: Attribute, entries: Capacity, extents: Sequence[SSAValue] = ()
) -> SSAValue:
    """An uninitialised stack of `entries` values of `value_type`; `extents`: the sizes of
    its dynamic dimensions, which every entry shares."""
    sizes = ([] if isinstance(entries, int) else [entries]) + list(extents)
    return builder.insert(tensor.EmptyOp(sizes, stack_type(value_type, entries))).tensor


def _dim(builder: Builder, value: SSAValue, dim: int) -> SSAValue:
    return builder.insert(tensor.DimOp(value, index_constant(builder, dim))).result


def _entry_sizes(builder: Builder, value_type: TensorType, like: SSAValue, first: int) -> list[SSAValue | int]:
    """An entry's sizes: the static ones, and for a dynamic dimension `d` the size of
    dimension `d + first` of `like`."""
    return [
        _dim(builder, like, d + first) if size == DYNAMIC_INDEX else size
        for d, size in enumerate(value_type.get_shape())
    ]


def push(
    builder: Builder, stack: SSAValue, value: SSAValue, position: SSAValue, location: Attribute | None = None
) -> SSAValue:
    """`stack` with `value` written at entry `position`. A value of dynamic shape must
    have the stack's extents: a run-time check located at `location` (the loop) says so
    if it does not (a loop state that changes its extents), rather than a partial write
    read back whole."""
    if isinstance(value.type, TensorType):
        sizes = _entry_sizes(builder, value.type, value, 0)
        _check_extents(builder, stack, sizes, location)
        entry_sizes = [1, *sizes]
        op = tensor.InsertSliceOp.get(
            value,
            stack,
            [DYNAMIC_INDEX if isinstance(size, SSAValue) else size for size in entry_sizes],
            [DYNAMIC_INDEX, *[0] * len(sizes)],
            [1] * len(entry_sizes),
            offsets=[position],
            sizes=[size for size in entry_sizes if isinstance(size, SSAValue)],
        )
        return builder.insert(op).result
    return builder.insert(tensor.InsertOp(value, stack, [position])).result


def _check_extents(builder: Builder, stack: SSAValue, sizes: list[SSAValue | int], location: Attribute | None) -> None:
    for d, size in enumerate(sizes):
        if isinstance(size, int):
            continue
        same = builder.insert(arith.CmpiOp(size, _dim(builder, stack, d + 1), "eq")).result
        check = cf.AssertOp(
            same,
            "a loop state of dynamic shape whose extents change between iterations (scf.for): "
            "the cache of its reverse holds one extent",
        )
        if location is not None:
            check.location = location
        builder.insert(check)


def read(builder: Builder, stack: SSAValue, value_type: Attribute, position: SSAValue) -> SSAValue:
    """Entry `position` of `stack`, a value of `value_type`."""
    if isinstance(value_type, TensorType):
        sizes = _entry_sizes(builder, value_type, stack, 1)
        offsets: list[SSAValue | int] = [position, *[0] * len(sizes)]
        op = tensor.ExtractSliceOp(stack, offsets, [1, *sizes], [1] * (len(sizes) + 1), value_type)
        return builder.insert(op).result
    return builder.insert(tensor.ExtractOp(stack, [position], value_type)).result


def constant_index(value: SSAValue | int) -> int | None:
    """The value of an `arith.constant` of index type (or an int), else None."""
    if isinstance(value, int):
        return value
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        if isinstance(owner.value.type, IndexType):
            return owner.value.value.data
    return None


def as_index(builder: Builder, value: SSAValue | int) -> SSAValue:
    return index_constant(builder, value) if isinstance(value, int) else value


def _binary(builder, op_type, fold, a: SSAValue | int, b: SSAValue | int) -> SSAValue | int:
    """`op_type(a, b)` on `index` values, folded to an int when both are constants."""
    known_a, known_b = constant_index(a), constant_index(b)
    if known_a is not None and known_b is not None:
        return fold(known_a, known_b)
    return builder.insert(op_type(as_index(builder, a), as_index(builder, b))).result


def add(builder: Builder, a: SSAValue | int, b: SSAValue | int) -> SSAValue | int:
    if constant_index(b) == 0:
        return a
    return _binary(builder, arith.AddiOp, lambda x, y: x + y, a, b)


def sub(builder: Builder, a: SSAValue | int, b: SSAValue | int) -> SSAValue | int:
    if constant_index(b) == 0:
        return a
    return _binary(builder, arith.SubiOp, lambda x, y: x - y, a, b)


def mul(builder: Builder, a: SSAValue | int, b: SSAValue | int) -> SSAValue | int:
    if constant_index(b) == 1:
        return a
    return _binary(builder, arith.MuliOp, lambda x, y: x * y, a, b)


def ceil_div(builder: Builder, a: SSAValue | int, b: SSAValue | int) -> SSAValue | int:
    """`ceil(a / b)` for `a >= 0`, `b > 0`."""
    if constant_index(b) == 1:
        return a
    numerator = sub(builder, add(builder, a, b), 1)
    return _binary(builder, arith.DivUIOp, lambda x, y: x // y, numerator, b)


def trip_count(
    builder: Builder, lower: SSAValue | int, upper: SSAValue | int, step: SSAValue | int
) -> SSAValue | int:
    """Iterations of `scf.for lower to upper step step` (step > 0): `ceil(max(upper - lower, 0) / step)`."""
    span = sub(builder, upper, lower)
    known = constant_index(span)
    if known is not None:
        span = max(known, 0)
    else:
        span = builder.insert(arith.MaxSIOp(as_index(builder, span), index_constant(builder, 0))).result
    return ceil_div(builder, span, step)


def entry_bytes(value_type: Attribute) -> int | None:
    """Bytes one cached value of `value_type` takes (None: known only at run time)."""
    element = value_type.element_type if isinstance(value_type, TensorType) else value_type
    width = getattr(element, "bitwidth", None) or (64 if isinstance(element, IndexType) else 32)
    count = 1
    if isinstance(value_type, TensorType):
        for size in value_type.get_shape():
            if size == DYNAMIC_INDEX:
                return None
            count *= size
    return count * max(1, width // 8)


def mark_cache(loop: Operation, entry_bytes: int | None, entries: Capacity, values: int) -> None:
    """Record on `loop` what its stacks hold: `entry_bytes` per entry (all
    its values), `entries` entries. A run-time capacity records
    `bytes_per_iteration` instead of `bytes`; values of dynamic shape (`entry_bytes`
    None) only their number."""
    if entry_bytes is None:
        size = {}
    elif isinstance(entries, int):
        size = {"bytes": IntegerAttr(entry_bytes * entries, i64)}
    else:
        size = {"bytes_per_iteration": IntegerAttr(entry_bytes, i64)}
    loop.attributes[CACHE_ATTRIBUTE] = DictionaryAttr({**size, "values": IntegerAttr(values, i64)})


def cache_bytes(module: ModuleOp) -> int:
    """Total bytes of every loop cache of known size in `module` (0 when
    nothing is cached; caches sized at run time are not counted)."""
    total = 0
    for op in module.walk():
        attribute = op.attributes.get(CACHE_ATTRIBUTE)
        if isinstance(op, scf.ForOp) and isinstance(attribute, DictionaryAttr):
            size = attribute.data.get("bytes")
            if isinstance(size, IntegerAttr):
                total += size.value.data
    return total

