"""Standard MLIR ops that MLIR 22's pipelines cannot take as they are, rewritten
into ops they can (part of `convert-autodiff-to-linalg`, so both backends get them):

- `math.clampf` becomes `arith.maximumf(arith.minimumf(value, max), min)`: MLIR 22's
  own `math-expand-ops` expands it as `maxf(minf(value, min), max)`, which is no
  clamp (upstream fixed the op's meaning after MLIR 22, llvm/llvm-project#175012);
  gradir's derivative rule is the clamp's.
- `math.sincos` becomes `math.sin` and `math.cos`: MLIR 22 lowers it on vectors
  to an `llvm.intr.sincos` that does not verify (`!llvm.array<2 x vector<...>>`),
  which the CPU pipeline's vectorisation produces.
- `tensor.gather` becomes a `linalg.generic` whose body reads the source element
  with `tensor.extract` at the gathered coordinates (MLIR 22 neither bufferizes
  nor lowers `tensor.gather`).
- `tensor.scatter` becomes an `scf.for` nest over the index tensor's leading dims,
  each iteration inserting one slice with `tensor.insert_slice` at the coordinates
  read from the index tensor (MLIR 22 neither bufferizes nor lowers it either).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, math, scf, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    TensorType,
    i64,
)
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import GenericOp, IndexOp, YieldOp
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.rewriter import InsertPoint

from gradir.dialects.mlir22_ops import ClampFOp, GatherOp, ScatterOp, SincosOp


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
# gather and scatter
# ----------------------------------------------------------------------------


def index_constant(builder: Builder, value: int) -> SSAValue:
    return builder.insert(arith.ConstantOp(IntegerAttr(value, IndexType()))).result


def _as_index(builder: Builder, value: SSAValue) -> SSAValue:
    """An element of an index tensor as an `index` (integers are cast, signed)."""
    if isinstance(value.type, IndexType):
        return value
    return builder.insert(arith.IndexCastOp(value, IndexType())).result


def gather_layout(source_rank: int, batch_rank: int, dims: Sequence[int], rank_reduced: bool) -> list[int | None]:
    """For each source dim, the result dim that walks it (None: a gathered dim
    the rank-reduced form drops). The result is batch dims, then the source's
    dims in order, each gathered one kept as size 1 unless rank-reduced."""
    layout: list[int | None] = []
    position = batch_rank
    for d in range(source_rank):
        if d in dims and rank_reduced:
            layout.append(None)
            continue
        layout.append(position)
        position += 1
    return layout


def is_rank_reduced(source: TensorType, indices: TensorType, result: TensorType) -> bool:
    return result.get_num_dims() != indices.get_num_dims() - 1 + source.get_num_dims()


def coordinates(
    builder: Builder,
    indices: SSAValue,
    batch: Sequence[SSAValue],
    dims: Sequence[int],
    walked: Sequence[SSAValue | None],
) -> list[SSAValue]:
    """The source (or dest) coordinates of one gathered (scattered) element:
    `indices[batch, k]` along the k-th of `dims`, the walked index elsewhere."""
    coords: list[SSAValue] = []
    for d, index in enumerate(walked):
        if d in dims:
            k = index_constant(builder, list(dims).index(d))
            element = builder.insert(tensor.ExtractOp(indices, [*batch, k], indices.type.element_type))  # type: ignore[attr-defined]
            coords.append(_as_index(builder, element.result))
        else:
            assert index is not None
            coords.append(index)
    return coords


def gather_as_generic(builder: Builder, op: GatherOp) -> GenericOp:
    """A `linalg.generic` computing `op`'s result: over the result's dims, the
    body reads each coordinate from the index tensor and the element from the
    source with `tensor.extract` (captured, like a gather in a generic body).
    The op is built, not inserted; its init, a `tensor.empty`, is inserted."""
    source_type, indices_type, result_type = op.source.type, op.indices.type, op.result.type
    assert isinstance(source_type, TensorType) and isinstance(indices_type, TensorType)
    assert isinstance(result_type, TensorType)
    dims = tuple(op.gather_dims.get_values())
    batch_rank = indices_type.get_num_dims() - 1
    rank = result_type.get_num_dims()
    layout = gather_layout(
        source_type.get_num_dims(), batch_rank, dims, is_rank_reduced(source_type, indices_type, result_type)
    )
    body = Block(arg_types=[result_type.element_type])
    at = Builder(InsertPoint.at_end(body))
    loop = [at.insert(IndexOp(d)).result for d in range(rank)]
    zero = index_constant(at, 0)
    walked = [zero if position is None else loop[position] for position in layout]
    coords = coordinates(at, op.indices, loop[:batch_rank], dims, walked)
    element = at.insert(tensor.ExtractOp(op.source, coords, result_type.element_type))
    at.insert(YieldOp(element.result))
    init = builder.insert(tensor.EmptyOp([], result_type)).tensor
    return GenericOp(
        [], [init], Region(body), [AffineMapAttr(AffineMap.identity(rank))],
        [IteratorTypeAttr.parallel()] * rank, [result_type],
    )  # fmt: skip


class LowerGather(RewritePattern):
    """`tensor.gather` -> its `gather_as_generic`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: GatherOp, rewriter: PatternRewriter) -> None:
        builder = Builder(InsertPoint.before(op))
        generic = gather_as_generic(builder, op)
        rewriter.replace(op, generic)


SliceVisitor = Callable[[Builder, list[SSAValue], list[SSAValue], list[SSAValue]], list[SSAValue]]
"""`visit(builder, batch, offsets, carried) -> next carried`: one scattered slice."""


def scatter_slices(
    builder: Builder, indices: SSAValue, dims: Sequence[int], rank: int,
    visit: SliceVisitor, initial: list[SSAValue],
) -> list[SSAValue]:  # fmt: skip
    """An `scf.for` nest over the leading dims of `indices` carrying `initial`;
    `visit` gets the batch position and the offsets of its slice in a tensor of
    `rank` dims (`indices[batch, k]` along the k-th of `dims`, 0 elsewhere)."""
    indices_type = indices.type
    assert isinstance(indices_type, TensorType)
    batch_shape = list(indices_type.get_shape())[:-1]
    zero = index_constant(builder, 0)
    one = index_constant(builder, 1)

    def level(at: Builder, depth: int, batch: list[SSAValue], carried: list[SSAValue]) -> list[SSAValue]:
        if depth == len(batch_shape):
            offsets = coordinates(at, indices, batch, dims, [zero] * rank)
            return visit(at, batch, offsets, carried)
        block = Block(arg_types=[IndexType(), *[value.type for value in carried]])
        inner = Builder(InsertPoint.at_end(block))
        results = level(inner, depth + 1, [*batch, block.args[0]], list(block.args[1:]))
        block.add_op(scf.YieldOp(*results))
        bound = index_constant(at, batch_shape[depth])
        loop = at.insert(scf.ForOp(zero, bound, one, carried, Region(block)))
        return list(loop.results)

    return level(builder, 0, [], initial)


def slice_shape(full: TensorType, dims: Sequence[int]) -> list[int]:
    """The shape of one gathered/scattered slice in `full`: 1 along `dims`."""
    return [1 if d in dims else size for d, size in enumerate(full.get_shape())]


def _dense(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


def batch_slice(builder: Builder, source: SSAValue, batch: Sequence[SSAValue]) -> SSAValue:
    """`source[batch]`: the slice at one position of the leading (batch) dims,
    those dims dropped (a rank-reducing `tensor.extract_slice`)."""
    source_type = source.type
    assert isinstance(source_type, TensorType)
    shape = list(source_type.get_shape())
    inner = shape[len(batch) :]
    extract = tensor.ExtractSliceOp.build(
        operands=[source, list(batch), [], []],
        properties={
            "static_offsets": _dense([DYNAMIC_INDEX] * len(batch) + [0] * len(inner)),
            "static_sizes": _dense([1] * len(batch) + inner),
            "static_strides": _dense([1] * len(shape)),
        },
        result_types=[TensorType(source_type.element_type, inner)],
    )
    return builder.insert(extract).result


def insert_slice_at(
    builder: Builder, value: SSAValue, dest: SSAValue, offsets: Sequence[SSAValue], sizes: Sequence[int]
) -> SSAValue:
    """`tensor.insert_slice value into dest` at `offsets` (index values) with
    `sizes` (`value` may drop their unit dims), stride 1."""
    insert = tensor.InsertSliceOp.build(
        operands=[value, dest, list(offsets), [], []],
        properties={
            "static_offsets": _dense([DYNAMIC_INDEX] * len(offsets)),
            "static_sizes": _dense(sizes),
            "static_strides": _dense([1] * len(offsets)),
        },
        result_types=[dest.type],
    )
    return builder.insert(insert).result


def extract_slice_at(
    builder: Builder, source: SSAValue, offsets: Sequence[SSAValue], sizes: Sequence[int], type_: Attribute
) -> SSAValue:
    """`tensor.extract_slice source` at `offsets` with `sizes`, stride 1, of
    type `type_` (which may drop their unit dims)."""
    extract = tensor.ExtractSliceOp.build(
        operands=[source, list(offsets), [], []],
        properties={
            "static_offsets": _dense([DYNAMIC_INDEX] * len(offsets)),
            "static_sizes": _dense(sizes),
            "static_strides": _dense([1] * len(offsets)),
        },
        result_types=[type_],
    )
    return builder.insert(extract).result


class LowerScatter(RewritePattern):
    """`tensor.scatter` -> an `scf.for` nest of `tensor.insert_slice`s."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ScatterOp, rewriter: PatternRewriter) -> None:
        builder = Builder(InsertPoint.before(op))
        dest_type = op.dest.type
        assert isinstance(dest_type, TensorType)
        dims = tuple(op.scatter_dims.get_values())
        sizes = slice_shape(dest_type, dims)

        def write(at: Builder, batch, offsets, carried):
            return [insert_slice_at(at, batch_slice(at, op.source, batch), carried[0], offsets, sizes)]

        rank = dest_type.get_num_dims()
        (result,) = scatter_slices(builder, op.indices, dims, rank, write, [op.dest])
        rewriter.replace(op, [], [result])


STANDARD_OP_LOWERINGS: tuple[RewritePattern, ...] = (
    ExpandClampF(), ExpandSincos(), LowerGather(), LowerScatter(),
)
"""The patterns `convert-autodiff-to-linalg` applies to standard ops."""
