"""Batching rules of `tensor` (and `bufferization`) ops: the shape helpers `batching.yaml` names.

A batched scalar is `tensor<B x type>` (`batch_builder`), so reading one
element per example and writing one back are slice or gather/scatter ops on
the batch dimension, never a loop over it:

- `tensor.extract` at unbatched indices is one rank-reducing `extract_slice`
  (`[0, i, j][B, 1, 1]`); at indices that depend on the batch it is a
  `tensor.gather` whose coordinates are `(b, i_b, j_b)` (the lane `b` first
  when the tensor is batched), differentiable and lowered like any gather.
- `tensor.insert` is the same the other way round: `insert_slice` of the `[B]`
  scalars, or a `tensor.scatter` (its coordinates unique: the lane is one of them).
- `tensor.gather`/`scatter` get the lane as a leading coordinate when their
  coordinates are batched, and a leading whole dimension otherwise.
- reshapes, casts, `concat`, `pad`: the batch dimension is one more leading
  dimension they leave alone; `from_elements`/`splat` build `[B, shape]` from
  `[B]` scalars.
"""
from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    TensorType,
    i64,
)
from xdsl.dialects.builtin import DYNAMIC_INDEX
from xdsl.dialects.linalg.ops import BroadcastOp, GenericOp, IndexOp, IteratorTypeAttr, YieldOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap

from gradir.autodiff_pass.batch_builder import BatchBuilder, unsupported, value_shape
from gradir.dialects.mlir22_ops import GatherOp, ScatterOp
from gradir.lowering.standard_ops import is_rank_reduced


def _lane_coordinates(builder: BatchBuilder, columns: Sequence[SSAValue], lead: Sequence[int],
                      with_lane: bool) -> SSAValue:
    """Coordinates `[B, lead.., n]` for a gather/scatter: the columns `columns` (each
    `[B, lead.., k]`, most often one column) side by side in the last dim, after a
    first column holding the lane `b` when `with_lane`."""
    element = columns[0].type.element_type  # type: ignore[union-attr]
    shape = [builder.size, *lead, 1]
    parts = list(columns)
    if with_lane:
        parts.insert(0, _lane_numbers(builder, element, shape))
    if len(parts) == 1:
        return parts[0]
    result = TensorType(element, [*shape[:-1], sum(value_shape(part)[-1] for part in parts)])
    return builder.insert(tensor.ConcatOp(parts, len(shape) - 1, result)).results[0]


def _lane_numbers(builder: BatchBuilder, element, shape: Sequence[int]) -> SSAValue:
    """A tensor of `shape` (`[B, ...]`) holding at each position its lane `b`."""
    result = TensorType(element, list(shape))
    empty = builder.insert(tensor.EmptyOp([], result)).results[0]
    body = Block(arg_types=[element])
    lane = IndexOp(0)
    body.add_op(lane)
    value = lane.result
    if not isinstance(element, IndexType):
        cast = arith.IndexCastOp(value, element)
        body.add_op(cast)
        value = cast.result
    body.add_op(YieldOp(value))
    rank = len(shape)
    generic = GenericOp(
        [], [empty], Region(body),
        ArrayAttr([AffineMapAttr(AffineMap.identity(rank))]),
        ArrayAttr([IteratorTypeAttr.parallel()] * rank), [result],
    )
    return builder.insert(generic).results[0]


def _index_columns(builder: BatchBuilder, indices: Sequence[SSAValue], flags: Sequence[bool]) -> list[SSAValue]:
    """Each `index` operand as a `[B, 1]` column (unbatched ones the same in every lane).
    Lanes that do not keep the result (`BatchBuilder.kept_lanes`) read at 0: their index
    is one the unbatched program never computed, possibly out of bounds."""
    from gradir.autodiff_pass.rules.batching_control_flow import lane_constant, select_lanes

    columns = []
    for value, flag in zip(indices, flags):
        lanes = builder.materialize(value, flag)
        if flag and builder.kept_lanes is not None:
            lanes = select_lanes(builder, builder.kept_lanes, lanes, lane_constant(builder, 0, IndexType()))
        columns.append(builder.insert(tensor.ExpandShapeOp(
            lanes, [], ArrayAttr([ArrayAttr([IntegerAttr(0, i64), IntegerAttr(1, i64)])]),
            [builder.size, 1], TensorType(IndexType(), [builder.size, 1]),
        )).results[0])
    return columns


def _one_per_lane(builder: BatchBuilder, rank: int, indices: Sequence[SSAValue]):
    """Operands and properties of the slice `[0, indices..][B, 1..][1..]` of a
    batched tensor of logical rank `rank`: one element per lane."""
    return (
        [list(indices), [], []],
        {
            "static_offsets": DenseArrayBase.from_list(i64, [0, *[DYNAMIC_INDEX] * rank]),
            "static_sizes": DenseArrayBase.from_list(i64, [builder.size, *[1] * rank]),
            "static_strides": DenseArrayBase.from_list(i64, [1] * (rank + 1)),
        },
    )


def batch_extract(builder, op, operands, batched):
    """One element per lane: a rank-reducing slice, or a gather when the indices
    depend on the batch (see the module docstring)."""
    assert isinstance(op, tensor.ExtractOp)
    source, indices = operands[0], operands[1:]
    result_type = builder.batched_type(op.result.type)
    if not any(batched[1:]):
        if not indices:  # a batched rank-0 tensor already is the batched scalar
            return [(source, True)]
        slice_operands, properties = _one_per_lane(builder, len(indices), indices)
        sliced = tensor.ExtractSliceOp.build(
            operands=[source, *slice_operands], properties=properties, result_types=[result_type]
        )
        return [(builder.insert(sliced).results[0], True)]
    columns = _index_columns(builder, indices, batched[1:])
    coordinates = _lane_coordinates(builder, columns, [], with_lane=batched[0])
    rank = len(value_shape(source))
    gather = GatherOp(source, coordinates, list(range(rank)), result_type, unique=batched[0])
    return [(builder.insert(gather).results[0], True)]


def batch_insert(builder, op, operands, batched):
    """One element per lane written: `insert_slice` of the `[B]` scalars, or a
    scatter (coordinates unique: the lane is one of them) when the indices depend
    on the batch."""
    assert isinstance(op, tensor.InsertOp)
    scalar, dest, indices = operands[0], operands[1], operands[2:]
    scalars = builder.materialize(scalar, batched[0])
    dest = builder.materialize(dest, batched[1])
    if not indices:  # rank 0: the batched scalar is the batched result
        return [(scalars, True)]
    if not any(batched[2:]):
        slice_operands, properties = _one_per_lane(builder, len(indices), indices)
        inserted = tensor.InsertSliceOp.build(
            operands=[scalars, dest, *slice_operands], properties=properties, result_types=[dest.type]
        )
        return [(builder.insert(inserted).results[0], True)]
    columns = _index_columns(builder, indices, batched[2:])
    coordinates = _lane_coordinates(builder, columns, [], with_lane=True)
    scatter = ScatterOp(scalars, dest, coordinates, list(range(len(indices) + 1)), dest.type)
    return [(builder.insert(scatter).results[0], True)]


def _insert_unit_dim(builder: BatchBuilder, value: SSAValue, position: int) -> SSAValue:
    """`value` with a size-1 dimension inserted at `position` (> 0)."""
    shape = value_shape(value)
    groups = [[d] for d in range(len(shape))]
    groups[position - 1].append(position)
    for group in groups[position:]:
        group[0] += 1
    new_shape = [*shape[:position], 1, *shape[position:]]
    return builder.insert(tensor.ExpandShapeOp(
        value, [], ArrayAttr([ArrayAttr([IntegerAttr(d, i64) for d in g]) for g in groups]),
        new_shape, TensorType(value.type.element_type, new_shape),  # type: ignore[union-attr]
    )).results[0]


def _drop_unit_dim(builder: BatchBuilder, value: SSAValue, position: int) -> SSAValue:
    """`value` without its size-1 dimension at `position` (> 0)."""
    shape = value_shape(value)
    groups = [[d] for d in range(len(shape)) if d != position]
    groups[position - 1].append(position)
    new_shape = shape[:position] + shape[position + 1:]
    return builder.insert(tensor.CollapseShapeOp(
        operands=[value],
        properties={"reassociation": ArrayAttr([ArrayAttr([IntegerAttr(d, i64) for d in g]) for g in groups])},
        result_types=[TensorType(value.type.element_type, new_shape)],  # type: ignore[union-attr]
    )).results[0]


def _coordinates_with_lane(builder: BatchBuilder, indices: SSAValue, batched: bool) -> SSAValue:
    """A gather/scatter's coordinates `[lead.., n]` as `[B, lead.., n + 1]`, the
    lane first in the last dim."""
    lanes = builder.materialize(indices, batched)
    lead = value_shape(lanes)[1:-1]
    return _lane_coordinates(builder, [lanes], lead, with_lane=True)


def batch_gather(builder, op, operands, batched):
    """Batched coordinates: the lane is gathered too (dim 0 joins `gather_dims`,
    the source is materialised); only the source batched: the batch dimension is
    one more whole dim of the slices, moved to the front."""
    assert isinstance(op, GatherOp)
    source, indices = operands
    dims = [d + 1 for d in op.gather_dims.get_values()]
    original = op.result.type
    reduced = is_rank_reduced(op.source.type, op.indices.type, original)  # type: ignore[arg-type]
    lead = value_shape(op.indices)[:-1]
    if batched[1]:
        coordinates = _coordinates_with_lane(builder, indices, True)
        source = builder.materialize(source, batched[0])
        batched_result = builder.batched_type(original)
        if reduced:
            gather = GatherOp(source, coordinates, [0, *dims], batched_result, op.unique is not None)
            return [(builder.insert(gather).results[0], True)]
        shape = list(batched_result.get_shape())
        kept = TensorType(original.element_type, [*shape[: 1 + len(lead)], 1, *shape[1 + len(lead):]])
        gathered = builder.insert(GatherOp(source, coordinates, [0, *dims], kept, op.unique is not None))
        return [(_drop_unit_dim(builder, gathered.results[0], 1 + len(lead)), True)]
    shape = value_shape(op.result)
    slice_shape = [builder.size, *shape[len(lead):]]
    gathered_type = TensorType(original.element_type, [*lead, *slice_shape])
    gathered = builder.insert(GatherOp(source, indices, dims, gathered_type, op.unique is not None))
    return [(builder.move_axis(gathered.results[0], len(lead), 0), True)]


def batch_scatter(builder, op, operands, batched):
    """The converse of `batch_gather`: batched coordinates get the lane as one
    more (unique) coordinate; otherwise the batch dimension is a whole dim of
    the slices (the source's moved behind the coordinates' dims)."""
    assert isinstance(op, ScatterOp)
    source, dest, indices = operands
    dims = [d + 1 for d in op.scatter_dims.get_values()]
    reduced = is_rank_reduced(op.dest.type, op.indices.type, op.source.type)  # type: ignore[arg-type]
    lead = value_shape(op.indices)[:-1]
    source = builder.materialize(source, batched[0])
    dest = builder.materialize(dest, batched[1])
    if batched[2]:
        coordinates = _coordinates_with_lane(builder, indices, True)
        if not reduced:
            source = _insert_unit_dim(builder, source, 1 + len(lead))
        scatter = ScatterOp(source, dest, coordinates, [0, *dims], dest.type)
    else:
        source = builder.move_axis(source, 0, len(lead))
        scatter = ScatterOp(source, dest, indices, dims, dest.type)
    return [(builder.insert(scatter).results[0], True)]


def _shifted_reassociation(op: Operation) -> ArrayAttr:
    """The batch dimension is a group of its own, except where the op has no group at all
    (a 0-d tensor to or from `1x...x1`): then the batch dimension and the unit ones are
    the one group."""
    groups = [[d.value.data + 1 for d in group.data] for group in op.reassociation.data]  # type: ignore[attr-defined]
    if not groups:
        expanded = op.results[0] if isinstance(op, tensor.ExpandShapeOp) else op.operands[0]
        rank = expanded.type.get_num_dims()  # type: ignore[union-attr]
        return ArrayAttr([ArrayAttr([IntegerAttr(d, i64) for d in range(rank + 1)])])
    return ArrayAttr([ArrayAttr([IntegerAttr(0, i64)])] + [
        ArrayAttr([IntegerAttr(d, i64) for d in group]) for group in groups
    ])


def batch_expand_collapse(builder, op, operands, batched):
    """`expand_shape`/`collapse_shape`: the batch dimension is one more group of its own.
    An expansion's sizes known only at run time are the same for every example (sizes that
    depend on the batch have no rule)."""
    properties = dict(op.properties)
    properties["reassociation"] = _shifted_reassociation(op)
    if isinstance(op, tensor.ExpandShapeOp):
        if any(batched[1:]):
            raise unsupported(op, "its output sizes depend on the batch")
        properties["static_output_shape"] = DenseArrayBase.from_list(
            i64, [builder.size, *op.static_output_shape.get_values()]
        )
    reshaped = type(op).create(
        operands=list(operands), result_types=[builder.batched_type(op.results[0].type)],
        properties=properties, attributes=dict(op.attributes),
    )
    return [(builder.insert(reshaped).results[0], True)]


def batch_tensor_reshape(builder, op, operands, batched):
    """`tensor.reshape`: the same reshape to `[B, shape]`, the batch size put in front of
    a shape known only at run time; a shape that depends on the batch has no rule."""
    if batched[1]:
        raise unsupported(op, "its shape operand depends on the batch")
    result = builder.batched_type(op.results[0].type)
    if result.has_static_shape():
        shape = builder.insert(arith.ConstantOp(_index_vector(list(result.get_shape())))).results[0]
    else:
        shape_type = operands[1].type
        assert isinstance(shape_type, TensorType)
        element = shape_type.element_type
        size = builder.insert(arith.ConstantOp(IntegerAttr(builder.size, element))).results[0]
        first = builder.insert(tensor.FromElementsOp(size, result_type=TensorType(element, [1]))).results[0]
        length = TensorType(element, [shape_type.get_shape()[0] + 1])
        shape = builder.insert(tensor.ConcatOp([first, operands[1]], 0, length)).results[0]
    # gradir's own ReshapeOp (`type(op)`) verifies element counts as MLIR does, dynamic sizes too
    return [(builder.insert(type(op)(operands[0], shape, result)).results[0], True)]


def _index_vector(values: Sequence[int]):
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

    return DenseIntOrFPElementsAttr.from_list(TensorType(IndexType(), [len(values)]), list(values))


def batch_result_type(builder, op, operands, batched):
    """`tensor.cast`, `bufferization` ops: the same op with `[B, ...]` types
    (unbatched tensor operands broadcast). Sizes that depend on the example (an
    `alloc_tensor` of a computed size) have no rule: write `tensor.empty` (`batch_empty`)."""
    if any(b and not isinstance(o.type, TensorType) for o, b in zip(op.operands, batched)):
        raise unsupported(op, "its sizes depend on the batch")
    values = [builder.materialize(v, b) if isinstance(v.type, TensorType) else v
              for v, b in zip(operands, batched)]
    new = type(op).create(
        operands=values, result_types=[builder.batched_type(r.type) for r in op.results],
        properties=dict(op.properties), attributes=dict(op.attributes),
    )
    return [(r, True) for r in builder.insert(new).results]


def batch_concat(builder, op, operands, batched):
    """`tensor.concat` along `dim + 1`, every input batched."""
    assert isinstance(op, tensor.ConcatOp)
    values = [builder.materialize(v, b) for v, b in zip(operands, batched)]
    result = builder.batched_type(op.result.type)
    return [(builder.insert(tensor.ConcatOp(values, op.dim.value.data + 1, result)).results[0], True)]


def batch_from_elements(builder, op, operands, batched):
    """The `[B]` scalars as `[B, 1]` columns, concatenated to `[B, n]` and
    expanded to `[B, shape]`."""
    assert isinstance(op, tensor.FromElementsOp)
    result = builder.batched_type(op.result.type)
    element = result.element_type
    if len(operands) == 1:
        column = builder.materialize(operands[0], batched[0])
        return [(_expand_lanes(builder, column, result), True)]
    columns = []
    for value, flag in zip(operands, batched):
        lanes = builder.materialize(value, flag)
        columns.append(_insert_unit_dim(builder, lanes, 1))
    flat = TensorType(element, [builder.size, len(operands)])
    joined = builder.insert(tensor.ConcatOp(columns, 1, flat)).results[0]
    return [(_expand_lanes(builder, joined, result), True)]


def _expand_lanes(builder: BatchBuilder, value: SSAValue, result: TensorType) -> SSAValue:
    """`value` (`[B]` or `[B, n]`) as `result` (`[B, shape]`, as many elements)."""
    if value_shape(value) == list(result.get_shape()):
        return value
    rank = len(result.get_shape())
    if len(value_shape(value)) == 1:
        groups = [[0, *range(1, rank)]]
    else:
        groups = [[0], list(range(1, rank))]
    return builder.insert(tensor.ExpandShapeOp(
        value, [], ArrayAttr([ArrayAttr([IntegerAttr(d, i64) for d in g]) for g in groups]),
        list(result.get_shape()), result,
    )).results[0]


def batch_splat(builder, op, operands, batched):
    """`[B]` scalars broadcast along the result's dims."""
    assert isinstance(op, tensor.SplatOp)
    if len(operands) > 1:
        raise unsupported(op, "its result shape is dynamic")
    result = builder.batched_type(op.result.type)
    init = builder.insert(tensor.EmptyOp([], result)).results[0]
    dims = list(range(1, len(result.get_shape())))
    return [(builder.insert(BroadcastOp(operands[0], init, DenseArrayBase.from_list(i64, dims))).results[0], True)]


def batch_pad(builder, op, operands, batched):
    """`tensor.pad` of a batched source: no padding along the batch dimension;
    the body gets the lane's index first. A padding scalar that depends on the
    batch (StableHLO's reduce_window pads with its init, a 0-d argument) is a `[B]`
    tensor: the body reads the lane's element of it. Batched amounts have no rule."""
    assert isinstance(op, tensor.PadOp)
    if any(batched[1:]):
        raise unsupported(op, "its padding amounts depend on the batch")
    lane_values = list(dict.fromkeys(
        v for nested in op.region.walk() for v in nested.operands if builder.is_batched_capture(v)  # type: ignore[attr-defined]
    ))  # fmt: skip
    if any(isinstance(v.type, TensorType) for v in lane_values):
        raise unsupported(op, "its padding value depends on the batch")
    body = Region()
    mapping = {k: v for k, v in builder.value_map.items() if k not in lane_values}
    op.region.clone_into(body, value_mapper=mapping)  # other captured values mapped
    lane = body.block.insert_arg(IndexType(), 0)
    for value in lane_values:  # the lane's own padding value, read first
        element = tensor.ExtractOp(builder.value_map[value], [lane], value.type)
        body.block.insert_op_before(element, body.block.first_op)
        for use in list(value.uses):
            if body.is_ancestor(use.operation):
                use.operation.operands[use.index] = element.result
    properties = dict(op.properties)
    for name in ("static_low", "static_high"):
        properties[name] = DenseArrayBase.from_list(i64, [0, *op.properties[name].get_values()])
    padded = type(op).create(  # gradir's own PadOp verifies a static result as MLIR does
        operands=[builder.materialize(operands[0], batched[0]), *operands[1:]],  # a source shared by every lane, copied
        result_types=[builder.batched_type(op.result.type)],
        properties=properties, attributes=dict(op.attributes), regions=[body],
    )
    return [(builder.insert(padded).results[0], True)]


def batch_in_generic(builder, op, operands, batched):
    """An op xDSL declares on scalars only (integer casts, `fptosi`): the op on
    one element per iteration of a `linalg.generic` over the batched operands'
    shape (unbatched operands broadcast)."""
    values = [builder.materialize(v, b) for v, b in zip(operands, batched)]
    results = [builder.batched_type(r.type) for r in op.results]
    shape = value_shape(values[0])
    rank = len(shape)

    def element(type_):
        return type_.element_type if isinstance(type_, TensorType) else type_

    body = Block(arg_types=[element(v.type) for v in values] + [r.element_type for r in results])
    scalar = type(op).create(
        operands=list(body.args[: len(values)]),
        result_types=[r.element_type for r in results],
        properties=dict(op.properties), attributes=dict(op.attributes),
    )
    body.add_ops([scalar, YieldOp(*scalar.results)])
    outputs = [builder.insert(tensor.EmptyOp([], r)).results[0] for r in results]
    identity = AffineMapAttr(AffineMap.identity(rank))
    generic = GenericOp(
        values, outputs, Region(body), ArrayAttr([identity] * (len(values) + len(outputs))),
        ArrayAttr([IteratorTypeAttr.parallel()] * rank), results,
    )
    return [(r, True) for r in builder.insert(generic).results]


def batch_empty(builder, op, operands, batched):
    """`tensor.empty` whose dynamic sizes depend on the example (a backward's tape, as
    long as its forward loop ran): the largest size over the lanes, for every lane. Only
    a tensor read and written at indices can be such (`check_read_at_indices`): each lane
    uses its own part, the rest is never read."""
    assert isinstance(op, tensor.EmptyOp)
    from gradir.autodiff_pass.rules.batching_control_flow import lane_maximum

    if any(batched):
        check_read_at_indices(op.tensor)
    zero = builder.insert(arith.ConstantOp(IntegerAttr(0, IndexType()))).results[0]
    sizes = [lane_maximum(builder, v, zero) if b else v for v, b in zip(operands, batched)]
    return [(builder.insert(tensor.EmptyOp(sizes, builder.batched_type(op.tensor.type))).results[0], True)]


def check_read_at_indices(value: SSAValue) -> None:
    """Refuse (at the op) any use of `value`, a tensor whose size depends on the example,
    other than reading and writing elements or slices at indices, through the loops and
    branches that carry it: a whole read (a reduction, `tensor.dim`, a return, a call)
    would see the largest example's size, a silently wrong result."""
    seen: set[SSAValue] = set()
    pending = [value]
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        for use in list(current.uses):
            pending.extend(_carried_as(use.operation, use.index))


def _carried_as(user: Operation, index: int) -> list[SSAValue]:
    """The values that are operand `index` of `user` again (a loop's iteration argument and
    result, an insert's result); none for a read at indices; a refusal for anything else."""
    name, parent = user.name, user.parent_op()
    if name in ("tensor.extract", "tensor.extract_slice") and index == 0:
        return []
    if name in ("tensor.insert", "tensor.insert_slice") and index == 1:
        return [user.results[0]]
    if name == "scf.for" and index >= 3:
        return [user.regions[0].block.args[index - 2], user.results[index - 3]]
    if name == "scf.while":
        return [user.regions[0].block.args[index]]
    if name == "scf.condition" and index >= 1 and parent is not None:
        return [parent.regions[1].block.args[index - 1], parent.results[index - 1]]
    if name == "scf.yield" and parent is not None:
        if parent.name == "scf.for":
            return [parent.results[index], parent.regions[0].block.args[index + 1]]
        if parent.name == "scf.while":
            return [parent.regions[0].block.args[index]]
        if parent.name == "scf.if":
            return [parent.results[index]]
    raise unsupported(
        user, "it takes whole a tensor whose size depends on the example, and the batch holds every example "
        "at the largest example's size"
    )


def _clamped_lanes(builder: BatchBuilder, lanes: SSAValue, largest: SSAValue) -> SSAValue:
    """`lanes` (`tensor<B x index>`) clamped to `[0, largest]`: a lane whose loop already
    stopped still reads in bounds (its result is not kept)."""
    body = Block(arg_types=[IndexType(), IndexType()])
    zero = arith.ConstantOp(IntegerAttr(0, IndexType()))
    low = arith.MaxSIOp(body.args[0], zero.result)
    high = arith.MinSIOp(low.result, largest)
    body.add_ops([zero, low, high, YieldOp(high.result)])
    empty = builder.insert(tensor.EmptyOp([], lanes.type)).results[0]
    identity = AffineMapAttr(AffineMap.identity(1))
    generic = GenericOp(
        [lanes], [empty], Region(body), ArrayAttr([identity, identity]),
        ArrayAttr([IteratorTypeAttr.parallel()]), [lanes.type],
    )
    return builder.insert(generic).results[0]


def batch_extract_slice_per_lane(builder: BatchBuilder, op: tensor.ExtractSliceOp, operands, batched):
    """`extract_slice` at offsets that depend on the example (a backward reading its
    tape at the iteration it undoes): a `tensor.gather` of each lane's slice, the lane
    first among the coordinates. Only slices of size 1 along the dims with dynamic
    offsets, whole along the others (a tape row), have this rule."""
    source_type = op.source.type
    assert isinstance(source_type, TensorType)
    dynamic = _one_row_per_lane(op, source_type)
    source = builder.materialize(operands[0], batched[0])
    coordinates = _row_coordinates(builder, source, dynamic, operands[1:], batched[1:])
    shape = source_type.get_shape()
    kept = [n for d, n in enumerate(shape) if d not in dynamic]
    gathered = TensorType(source_type.element_type, [builder.size, *kept])
    gather = GatherOp(source, coordinates, [0, *(d + 1 for d in dynamic)], gathered, unique=True)
    result = builder.insert(gather).results[0]
    return [(builder.reshape(result, list(builder.batched_type(op.result.type).get_shape())), True)]


def batch_insert_slice_per_lane(builder: BatchBuilder, op: tensor.InsertSliceOp, operands, batched):
    """`insert_slice` at offsets that depend on the example (the gradient of such an
    `extract_slice`: a backward writing a row's cotangent at the iteration it undoes, a
    loop writing its row): a `tensor.scatter` of each lane's slice, the lane first among
    the coordinates; the same slices as `batch_extract_slice_per_lane` have this rule."""
    dest_type = op.dest.type
    assert isinstance(dest_type, TensorType)
    dynamic = _one_row_per_lane(op, dest_type)
    source = builder.materialize(operands[0], batched[0])
    dest = builder.materialize(operands[1], batched[1])
    coordinates = _row_coordinates(builder, dest, dynamic, operands[2:], batched[2:])
    kept = [n for d, n in enumerate(dest_type.get_shape()) if d not in dynamic]
    rows = builder.reshape(source, [builder.size, *kept])
    scatter = ScatterOp(rows, dest, coordinates, [0, *(d + 1 for d in dynamic)], dest.type)
    return [(builder.insert(scatter).results[0], True)]


def _one_row_per_lane(op: Operation, whole: TensorType) -> list[int]:
    """The dims of `op`'s slice of `whole` at dynamic offsets, if the slice is of size 1
    along them and whole along the others (static sizes, unit strides); else a refusal."""
    offsets = list(op.static_offsets.get_values())  # type: ignore[attr-defined]
    sizes = list(op.static_sizes.get_values())  # type: ignore[attr-defined]
    strides = list(op.static_strides.get_values())  # type: ignore[attr-defined]
    dynamic = [d for d, o in enumerate(offsets) if o == DYNAMIC_INDEX]
    shape = whole.get_shape()
    if len(op.sizes) or len(op.strides) or any(s != 1 for s in strides) or any(  # type: ignore[attr-defined]
        sizes[d] != 1 if d in dynamic else (offsets[d] != 0 or sizes[d] != shape[d] or shape[d] == DYNAMIC_INDEX)
        for d in range(len(shape))
    ):
        raise unsupported(op, "its offsets depend on the batch and it is not one whole row per example")
    return dynamic


def _row_coordinates(builder: BatchBuilder, whole: SSAValue, dynamic: Sequence[int], offsets, flags) -> SSAValue:
    """`[B, 1 + len(dynamic)]` coordinates of each lane's row of `whole` (batched): the
    lane, then each dynamic offset clamped into its dimension (a lane whose loop already
    stopped reads and writes in bounds; its result is not kept)."""
    columns = []
    for d, value, flag in zip(dynamic, offsets, flags):
        position = builder.insert(arith.ConstantOp(IntegerAttr(d + 1, IndexType()))).results[0]
        size = builder.insert(tensor.DimOp(whole, position)).results[0]
        one = builder.insert(arith.ConstantOp(IntegerAttr(1, IndexType()))).results[0]
        last = builder.insert(arith.SubiOp(size, one)).results[0]
        clamped = _clamped_lanes(builder, builder.materialize(value, flag), last)
        columns.extend(_index_columns(builder, [clamped], [True]))
    return _lane_coordinates(builder, columns, [], with_lane=True)


def batch_dim(builder, op, operands, batched):
    """`tensor.dim` of a batched tensor: its extent is the same for every example (ADBench
    Hand's `tensor.dim` of its points, a loop bound, a dynamic argument's size), read one
    dimension further in. (A tensor whose size depends on the example is never read
    whole: `batch_empty`.)"""
    assert isinstance(op, tensor.DimOp)
    if batched[1]:
        raise unsupported(op, "its dimension operand depends on the batch")
    source_type = op.source.type
    assert isinstance(source_type, TensorType)
    owner = op.index.owner
    if not (isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr)):
        raise unsupported(op, "its dimension is not a constant")
    dim = owner.value.value.data
    extent = source_type.get_shape()[dim]
    if extent != DYNAMIC_INDEX:
        return [(builder.insert(arith.ConstantOp(IntegerAttr(extent, IndexType()))).results[0], False)]
    index = builder.insert(arith.ConstantOp(IntegerAttr(dim + 1, IndexType()))).results[0]
    return [(builder.insert(tensor.DimOp(operands[0], index)).results[0], False)]


RULE_KINDS = {
    "dim": batch_dim,
    "in_generic": batch_in_generic,
    "empty": batch_empty,
    "extract": batch_extract,
    "insert": batch_insert,
    "gather": batch_gather,
    "scatter": batch_scatter,
    "expand_collapse": batch_expand_collapse,
    "tensor_reshape": batch_tensor_reshape,
    "result_type": batch_result_type,
    "concat": batch_concat,
    "from_elements": batch_from_elements,
    "splat": batch_splat,
    "pad": batch_pad,
}
"""The tensor shape helpers `batching.yaml` names (merged into `batching.RULE_KINDS`)."""

OP_NAMES = frozenset({
    "tensor.dim", "tensor.empty", "tensor.extract", "tensor.insert", "tensor.gather", "tensor.scatter", "tensor.expand_shape",
    "tensor.collapse_shape", "tensor.reshape", "tensor.cast", "tensor.concat",
    "tensor.from_elements", "tensor.splat", "tensor.pad",
    "bufferization.alloc_tensor", "bufferization.materialize_in_destination",
})
"""The ops these helpers batch (names `batching.yaml` may list)."""

INDEX_ARITHMETIC_OPS = frozenset({
    "arith.addi", "arith.subi", "arith.muli", "arith.divsi", "arith.divui", "arith.remsi",
    "arith.remui", "arith.floordivsi", "arith.ceildivsi", "arith.maxsi", "arith.minsi",
    "arith.maxui", "arith.minui", "arith.andi", "arith.ori", "arith.xori", "arith.cmpi",
    "arith.index_cast", "arith.index_castui", "arith.fptosi", "arith.fptoui", "arith.sitofp",
    "arith.uitofp", "arith.extsi", "arith.extui", "arith.trunci", "arith.ceildivui", "arith.shli",
    "arith.shrsi", "arith.shrui", "affine.apply", "affine.min", "affine.max",
})
"""Integer `arith` ops (and `affine.apply`/`min`/`max` of index values), batched elementwise:
they compute the indices that `tensor.extract`/`insert` read when an index depends on the
batch (`fptosi` of an element, a clamp, a per-example label or offset, ...)."""
