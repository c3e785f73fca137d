"""Standard MLIR ops that MLIR 22's pipelines cannot take as they are, rewritten
into ops they can (part of `convert-autodiff-to-linalg`, so both backends get them).
The derivative rules of the tensor ops build the same generics (`rules/tensor_indexed`).

- `math.clampf` becomes `arith.maximumf(arith.minimumf(value, max), min)`: MLIR 22's
  own `math-expand-ops` expands it as `maxf(minf(value, min), max)`, which is no
  clamp (upstream fixed the op's meaning after MLIR 22, llvm/llvm-project#175012);
  gradir's derivative rule is the clamp's.
- `math.sincos` becomes `math.sin` and `math.cos`: MLIR 22 lowers it on vectors
  to an `llvm.intr.sincos` that does not verify (`!llvm.array<2 x vector<...>>`),
  which the CPU pipeline's vectorisation produces.
- `tensor.gather` becomes a `linalg.generic` over the result whose body reads
  the source element with `tensor.extract` at the coordinates it reads from the
  index tensor (MLIR 22 neither bufferizes nor lowers `tensor.gather`).
- `tensor.scatter` becomes a `linalg.generic` over the destination's dims and
  the index tensor's leading (batch) dims, the latter reductions: each
  destination element takes the source element whose coordinates match it, if
  one does (MLIR 22 neither bufferizes nor lowers it). It costs |dest| x
  |batch| comparisons, but maps onto the GPU like any reduction, which a loop
  reading coordinates on the host would not.
- `tensor.generate`, and the padding of a `tensor.pad` with static low/high,
  become `linalg.generic`s over the result whose body is the op's own (its
  index arguments are `linalg.index`): MLIR 22 bufferizes them to `linalg.map`,
  which the GPU pipeline does not map; a pad is its source inserted into that.
- `tensor.splat` (static shape) becomes `linalg.fill` of a `tensor.empty`, for the
  same reason (MLIR 22 bufferizes it to a `linalg.map`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, math, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    TensorType,
    i1,
)
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import FillOp, GenericOp, IndexOp, YieldOp
from xdsl.ir import Block, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from gradir.dialects.mlir22_ops import ClampFOp, GatherOp, GenerateOp, ScatterOp, SincosOp


class ExpandClampF(RewritePattern):
    """`math.clampf value to [min, max]` -> `maximumf(minimumf(value, max), min)`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ClampFOp, rewriter: PatternRewriter) -> None:
        below_max = arith.MinimumfOp(op.value, op.max)
        clamped = arith.MaximumfOp(below_max, op.min)
        rewriter.replace(op, [below_max, clamped], [clamped.result])


class ExpandSincos(RewritePattern):
    """`%s, %c = math.sincos %x` -> `math.sin %x`, `math.cos %x`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SincosOp, rewriter: PatternRewriter) -> None:
        sin, cos = math.SinOp(op.operand), math.CosOp(op.operand)
        rewriter.replace(op, [sin, cos], [sin.result, cos.result])


# ----------------------------------------------------------------------------
# Bodies as generics: tensor.generate, tensor.pad
# ----------------------------------------------------------------------------


def region_as_generic(
    builder: Builder, body: Block, result_type: TensorType, sizes: Sequence[SSAValue] = ()
) -> GenericOp:
    """A `linalg.generic` over `result_type` computing what `body` (a
    `tensor.generate`/`tensor.pad` body: one index argument per dim, ending in
    `tensor.yield`) yields at each position. Values the body reads from outside
    stay captured. The generic is built, not inserted; its init (a
    `tensor.empty` of the dynamic `sizes`, one per `?` of `result_type`) is inserted
    with `builder`."""
    rank = result_type.get_num_dims()
    block = Block(arg_types=[result_type.element_type])
    at = Builder(InsertPoint.at_end(block))
    value_map: dict[SSAValue, SSAValue] = {
        argument: at.insert(IndexOp(d)).result for d, argument in enumerate(body.args)
    }
    for op in body.ops:
        if isinstance(op, tensor.YieldOp):
            at.insert(YieldOp(*[value_map.get(v, v) for v in op.operands]))
            break
        block.add_op(op.clone(value_map))
    init = builder.insert(tensor.EmptyOp(list(sizes), result_type)).tensor
    return GenericOp(
        [], [init], Region(block), [AffineMapAttr(AffineMap.identity(rank))],
        [IteratorTypeAttr.parallel()] * rank, [result_type],
    )  # fmt: skip


def pad_offsets(op: tensor.PadOp) -> list[int | SSAValue]:
    """Where `op` places its source: the low padding per dimension, a number or the
    `index` value it was given as."""
    given = iter(op.low)
    return [next(given) if low == DYNAMIC_INDEX else low for low in op.static_low.get_values()]


def has_static_shapes(op: tensor.PadOp) -> bool:
    """Whether `op`'s source and result have static shapes (a pad of run-time size is left
    to MLIR's lowering)."""
    return all(
        isinstance(value.type, TensorType) and DYNAMIC_INDEX not in value.type.get_shape()
        for value in (op.source, op.result)
    )


def extent(builder: Builder, value: SSAValue, dim: int) -> int | SSAValue:
    """The size of dimension `dim` of the tensor `value`: a number, or a `tensor.dim` of a
    dynamic one."""
    assert isinstance(value.type, TensorType)
    size = value.type.get_shape()[dim]
    return size if size != DYNAMIC_INDEX else builder.insert(tensor.DimOp(value, index_constant(builder, dim))).result


def extents(builder: Builder, value: SSAValue) -> list[int | SSAValue]:
    """The size of each dimension of the tensor `value` (`extent`)."""
    assert isinstance(value.type, TensorType)
    return [extent(builder, value, dim) for dim in range(value.type.get_num_dims())]


def _mixed(offsets: Sequence[int | SSAValue]) -> tuple[list[SSAValue], list[int]]:
    """Offsets of a slice op: the values among `offsets`, and the static list (values as
    the dynamic marker)."""
    values = [offset for offset in offsets if isinstance(offset, SSAValue)]
    static = [DYNAMIC_INDEX if isinstance(offset, SSAValue) else offset for offset in offsets]
    return values, static


def insert_at(
    builder: Builder, source: SSAValue, dest: SSAValue, offsets: Sequence[int | SSAValue], strides: Sequence[int] = ()
) -> SSAValue:
    """`tensor.insert_slice source into dest` at `offsets` (numbers or `index` values), with
    `strides` (default 1; a dynamic dimension of `source` inserted at its run-time size)."""
    offset_values, static_offsets = _mixed(offsets)
    size_values, static_sizes = _mixed(extents(builder, source))
    op = tensor.InsertSliceOp.get(
        source, dest, offsets=offset_values, sizes=size_values, static_sizes=static_sizes,
        static_offsets=static_offsets, static_strides=list(strides) or [1] * len(static_sizes),
    )  # fmt: skip
    return builder.insert(op).result


def extract_at(builder: Builder, source: SSAValue, offsets: Sequence[int | SSAValue], like: SSAValue) -> SSAValue:
    """`tensor.extract_slice source` of `like`'s type and sizes at `offsets` (numbers or
    `index` values), stride 1."""
    sizes = extents(builder, like)
    op = tensor.ExtractSliceOp(source, list(offsets), sizes, [1] * len(sizes), like.type)
    return builder.insert(op).result


class LowerGenerate(RewritePattern):
    """`tensor.generate` (static shape) -> its `region_as_generic`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GenerateOp, rewriter: PatternRewriter) -> None:
        assert isinstance(op.result.type, TensorType)
        if op.dynamicExtents:
            return
        generic = region_as_generic(Builder(InsertPoint.before(op)), op.body.block, op.result.type)
        rewriter.replace(op, generic)


class LowerPad(RewritePattern):
    """`tensor.pad` (static shapes) -> the source inserted into the padding,
    a `region_as_generic` of its body."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tensor.PadOp, rewriter: PatternRewriter) -> None:
        if not has_static_shapes(op):
            return  # a pad of run-time size: left to MLIR
        offsets = pad_offsets(op)
        builder = Builder(InsertPoint.before(op))
        padding = builder.insert(region_as_generic(builder, op.region.block, op.result.type))
        rewriter.replace(op, [], [insert_at(builder, op.source, padding.results[0], offsets)])


# ----------------------------------------------------------------------------
# gather and scatter
# ----------------------------------------------------------------------------


def index_constant(builder: Builder, value: int) -> SSAValue:
    """An `arith.constant` of index type (the AD rules build theirs with it too)."""
    return builder.insert(arith.ConstantOp(IntegerAttr(value, IndexType()))).result


def _as_index(builder: Builder, value: SSAValue) -> SSAValue:
    """An element of an index tensor as an `index` (integers are cast, signed)."""
    if isinstance(value.type, IndexType):
        return value
    return builder.insert(arith.IndexCastOp(value, IndexType())).result


def is_rank_reduced(full: TensorType, indices: TensorType, slices: TensorType) -> bool:
    """Whether `slices` (a gather's result, a scatter's source) drops the
    gathered dims instead of keeping them as size 1."""
    return slices.get_num_dims() != indices.get_num_dims() - 1 + full.get_num_dims()


def slice_layout(full_rank: int, batch_rank: int, dims: Sequence[int], rank_reduced: bool) -> list[int | None]:
    """For each dim of the full tensor (a gather's source, a scatter's dest),
    the dim of the slices tensor that walks it: after the batch dims, the full
    tensor's dims in order, a gathered one kept as size 1 (None: dropped)."""
    layout: list[int | None] = []
    position = batch_rank
    for d in range(full_rank):
        if d in dims and rank_reduced:
            layout.append(None)
            continue
        layout.append(position)
        position += 1
    return layout


def gather_as_generic(builder: Builder, op: GatherOp) -> GenericOp:
    """A `linalg.generic` computing `op`'s result: over the result's dims, the
    body reads each coordinate from the index tensor and the element from the
    source with `tensor.extract` (both captured). Built, not inserted; its init
    is inserted with `builder`."""
    source_type, indices_type, result_type = op.source.type, op.indices.type, op.result.type
    assert isinstance(source_type, TensorType) and isinstance(indices_type, TensorType)
    assert isinstance(result_type, TensorType)
    dims = tuple(op.gather_dims.get_values())
    batch_rank = indices_type.get_num_dims() - 1
    rank = result_type.get_num_dims()
    layout = slice_layout(
        source_type.get_num_dims(), batch_rank, dims, is_rank_reduced(source_type, indices_type, result_type)
    )
    block = Block(arg_types=[result_type.element_type])
    at = Builder(InsertPoint.at_end(block))
    loops = [at.insert(IndexOp(d)).result for d in range(rank)]
    coordinates = []
    for d, position in enumerate(layout):
        if d in dims:
            k = index_constant(at, dims.index(d))
            element = at.insert(tensor.ExtractOp(op.indices, [*loops[:batch_rank], k], indices_type.element_type))
            coordinates.append(_as_index(at, element.result))
        else:
            assert position is not None
            coordinates.append(loops[position])
    element = at.insert(tensor.ExtractOp(op.source, coordinates, result_type.element_type))
    at.insert(YieldOp(element.result))
    init = builder.insert(tensor.EmptyOp([], result_type)).tensor
    return GenericOp(
        [], [init], Region(block), [AffineMapAttr(AffineMap.identity(rank))],
        [IteratorTypeAttr.parallel()] * rank, [result_type],
    )  # fmt: skip


def scatter_as_generic(
    builder: Builder,
    slices: SSAValue,
    init: SSAValue,
    indices: SSAValue,
    dims: Sequence[int],
    accumulate: bool,
) -> GenericOp:
    """A `linalg.generic` writing the slices of `slices` (shaped as a gather of
    `init` at `indices` along `dims` gives them) into `init` at the coordinates
    in `indices`: loops over `init`'s dims (parallel) then the batch dims
    (reductions); each iteration compares the coordinates with the position and
    either adds the slice element where they match (`accumulate`: the gradient
    of a gather, repeated coordinates summed) or takes it (a scatter, whose
    coordinates are unique). Built, not inserted."""
    full_type, indices_type, slices_type = init.type, indices.type, slices.type
    assert isinstance(full_type, TensorType) and isinstance(indices_type, TensorType)
    assert isinstance(slices_type, TensorType)
    rank = full_type.get_num_dims()
    batch_rank = indices_type.get_num_dims() - 1
    loops = rank + batch_rank
    layout = slice_layout(rank, batch_rank, dims, is_rank_reduced(full_type, indices_type, slices_type))
    batch = [AffineExpr.dimension(rank + b) for b in range(batch_rank)]
    slice_exprs: list[AffineExpr] = list(batch)
    for d, position in enumerate(layout):
        if position is not None:
            slice_exprs.append(AffineExpr.constant(0) if d in dims else AffineExpr.dimension(d))
    maps = [AffineMap(loops, 0, tuple(slice_exprs))]
    maps += [AffineMap(loops, 0, (*batch, AffineExpr.constant(k))) for k in range(len(dims))]
    maps.append(AffineMap(loops, 0, tuple(AffineExpr.dimension(d) for d in range(rank))))

    element = full_type.element_type
    block = Block(arg_types=[element, *[indices_type.element_type] * len(dims), element])
    value, coordinates, accumulator = block.args[0], block.args[1 : 1 + len(dims)], block.args[-1]
    at = Builder(InsertPoint.at_end(block))
    match: SSAValue | None = None
    for d, coordinate in zip(dims, coordinates):
        position = at.insert(IndexOp(d)).result
        equal = at.insert(arith.CmpiOp(_as_index(at, coordinate), position, "eq")).result
        match = equal if match is None else at.insert(arith.AndIOp(match, equal)).result
    if match is None:  # no scattered dim: every slice lands everywhere
        match = at.insert(arith.ConstantOp(IntegerAttr(1, i1))).result
    if accumulate:
        zero = at.insert(arith.ConstantOp(FloatAttr(0.0, element))).result  # type: ignore[arg-type]
        picked = at.insert(arith.SelectOp(match, value, zero)).result
        at.insert(YieldOp(at.insert(arith.AddfOp(picked, accumulator)).result))
    else:
        at.insert(YieldOp(at.insert(arith.SelectOp(match, value, accumulator)).result))
    iterators = [IteratorTypeAttr.parallel()] * rank + [IteratorTypeAttr.reduction()] * batch_rank
    return GenericOp(
        [slices, *[indices] * len(dims)], [init], Region(block), [AffineMapAttr(m) for m in maps],
        iterators, [full_type],
    )  # fmt: skip


class LowerGather(RewritePattern):
    """`tensor.gather` -> its `gather_as_generic`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GatherOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, gather_as_generic(Builder(InsertPoint.before(op)), op))


class LowerScatter(RewritePattern):
    """`tensor.scatter` -> its `scatter_as_generic` (taking, not adding)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ScatterOp, rewriter: PatternRewriter) -> None:
        dims = tuple(op.scatter_dims.get_values())
        builder = Builder(InsertPoint.before(op))
        rewriter.replace(op, scatter_as_generic(builder, op.source, op.dest, op.indices, dims, False))


class LowerSplat(RewritePattern):
    """`tensor.splat` (static shape) -> `linalg.fill` of a `tensor.empty`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: tensor.SplatOp, rewriter: PatternRewriter) -> None:
        if op.dynamicSizes:
            return
        empty = tensor.EmptyOp([], op.result.type)
        rewriter.insert(empty)
        rewriter.replace(op, FillOp([op.input], [empty.tensor], [op.result.type]))


STANDARD_OP_LOWERINGS: tuple[RewritePattern, ...] = (
    ExpandClampF(), ExpandSincos(), LowerGenerate(), LowerPad(), LowerGather(), LowerScatter(),
    LowerSplat(),
)  # fmt: skip
"""The patterns `convert-autodiff-to-linalg` applies to standard ops."""
