"""Static reshapes as `tensor.collapse_shape` / `tensor.expand_shape`.

A row-major reshape splits both shapes into matching segments (runs of dims
with equal element counts). When every segment has one source dim the reshape
is a pure expansion, when every segment has one target dim a pure collapse;
otherwise it collapses each segment to one dim and expands again. Both ops are
views after bufferization, unlike `tensor.reshape`, which needs a shape tensor.
"""
from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import tensor
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    IntegerAttr,
    TensorType,
    i64,
)
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from gradir.lowering.linalg_builders import (
    element_type_of,
    elementwise,
    empty_tensor,
    generic,
    shape_of,
)

Groups = list[list[int]]


def _product(sizes: Sequence[int]) -> int:
    count = 1
    for size in sizes:
        count *= size
    return count


def matching_segments(source: Sequence[int], target: Sequence[int]) -> tuple[Groups, Groups] | None:
    """Pair up contiguous groups of `source` and `target` dims with equal products.

    Size-1 dims join the group before them (or the first group), unless both
    shapes have a size-1 dim at that point, which then pair up on their own.
    Returns None when the shapes hold different element counts or one is 0-d.
    """
    if _product(source) != _product(target) or not source or not target:
        return None
    source_groups: Groups = []
    target_groups: Groups = []
    i = j = 0
    while i < len(source) and j < len(target):
        group_s, group_t = [i], [j]
        count_s, count_t = source[i], target[j]
        i, j = i + 1, j + 1
        while count_s != count_t:
            if count_s < count_t and i < len(source):
                group_s.append(i)
                count_s *= source[i]
                i += 1
            elif count_t < count_s and j < len(target):
                group_t.append(j)
                count_t *= target[j]
                j += 1
            else:
                return None
        # A trailing size-1 dim on one side only belongs to this segment.
        while i < len(source) and source[i] == 1 and (j == len(target) or target[j] != 1):
            group_s.append(i)
            i += 1
        while j < len(target) and target[j] == 1 and (i == len(source) or source[i] != 1):
            group_t.append(j)
            j += 1
        source_groups.append(group_s)
        target_groups.append(group_t)
    if i != len(source) or j != len(target):
        return None
    return source_groups, target_groups


def _reassociation(groups: Groups) -> ArrayAttr[ArrayAttr[IntegerAttr]]:
    return ArrayAttr(ArrayAttr(IntegerAttr(d, i64) for d in group) for group in groups)


def _collapse(
    rewriter: PatternRewriter, value: SSAValue, groups: Groups, result_type: TensorType
) -> SSAValue:
    op = tensor.CollapseShapeOp.build(
        operands=[value],
        result_types=[result_type],
        properties={"reassociation": _reassociation(groups)},
    )
    return rewriter.insert(op).result


def _expand(
    rewriter: PatternRewriter, value: SSAValue, groups: Groups, result_type: TensorType
) -> SSAValue:
    op = tensor.ExpandShapeOp(
        value,
        [],
        _reassociation(groups),
        DenseArrayBase.from_list(i64, list(result_type.get_shape())),
        result_type,
    )
    return rewriter.insert(op).result


def _copy_through_unit_dims(
    rewriter: PatternRewriter, value: SSAValue, result_type: TensorType
) -> SSAValue:
    """0-d <-> all-size-1 shapes as a one-element copy generic: MLIR accepts an
    empty reassociation there, but xDSL 0.74's reshape verifiers do not."""
    source = shape_of(value)
    if not source:
        return elementwise(rewriter, [value], result_type, lambda args: args[0])
    loops = len(source)
    return generic(
        rewriter,
        [value],
        [AffineMap.identity(loops)],
        empty_tensor(rewriter, result_type),
        AffineMap(loops, 0, ()),
        [IteratorTypeAttr.reduction()] * loops,
        lambda args: args[0],
    )


def reshape_to(rewriter: PatternRewriter, value: SSAValue, result_type: TensorType) -> SSAValue:
    """`value` with the shape of `result_type` (same element count, row-major order)."""
    source = shape_of(value)
    target = tuple(result_type.get_shape())
    if source == target:
        return value
    if not source or not target:
        return _copy_through_unit_dims(rewriter, value, result_type)
    segments = matching_segments(source, target)
    if segments is None:
        # Zero-size dims defeat segment matching: go through one flat dim.
        source_groups, target_groups = [list(range(len(source)))], [list(range(len(target)))]
    else:
        source_groups, target_groups = segments
    if all(len(group) == 1 for group in source_groups):
        return _expand(rewriter, value, target_groups, result_type)
    if all(len(group) == 1 for group in target_groups):
        return _collapse(rewriter, value, source_groups, result_type)
    middle_type = TensorType(
        element_type_of(value), [_product([source[d] for d in g]) for g in source_groups]
    )
    middle = _collapse(rewriter, value, source_groups, middle_type)
    return _expand(rewriter, middle, target_groups, result_type)
