"""The batching rule of `linalg.generic` (a leading parallel dimension), in a module of its
own because the linalg named ops' rules batch their generic view with it too
(`batching_linalg`), and `batching` imports those."""
from __future__ import annotations

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, IndexType, IntegerAttr, TensorType
from xdsl.dialects.linalg.ops import GenericOp, IndexOp, IteratorTypeAttr
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from gradir.autodiff_pass.batch_builder import BatchBuilder, unsupported


def batch_generic(builder, op, operands, batched):
    """A leading parallel dimension: batched operands' maps read it first, the
    others' maps ignore it; every output is batched (an unbatched init is
    broadcast); `linalg.index` in the body counts one dimension further; a batched
    scalar read from outside becomes an input, a batched tensor gathered from outside
    is read at the lane's batch index."""
    assert isinstance(op, GenericOp)
    captured, gathered = _batched_captures(builder, op)
    count = len(op.inputs)
    outputs = [builder.materialize(v, b) for v, b in zip(operands[count:], batched[count:])]
    values = list(operands[:count]) + outputs
    flags = list(batched[:count]) + [True] * len(outputs)
    maps = []
    for attr, flag in zip(op.indexing_maps.data, flags):
        old = attr.data
        shifted = [e.replace_dims_and_symbols(
            [AffineExpr.dimension(d + 1) for d in range(old.num_dims)], []
        ) for e in old.results]
        results = ([AffineExpr.dimension(0)] if flag else []) + shifted
        maps.append(AffineMapAttr(AffineMap(old.num_dims + 1, old.num_symbols, tuple(results))))
    iterators = [IteratorTypeAttr.parallel(), *op.iterator_types.data]
    body = builder.clone_region(op.body)
    # Each copied op beside its original: a captured value's uses are found in the original,
    # since in the copy two captured values may be one batched value (a batched 0-d tensor
    # is its element's batched scalar: `extract %t[]` and `%t` both read it).
    copies = list(zip(op.body.walk(), body.walk()))
    for nested in body.walk():
        if isinstance(nested, IndexOp):
            nested.properties["dim"] = type(nested.dim)(nested.dim.value.data + 1, nested.dim.type)
    # A batched scalar the body reads from outside (a log-sum-exp's max) comes in as one
    # more input, `tensor<B>` read at the batch dimension: each lane reads its own.
    lanes = builder.value_map
    for position, value in enumerate(captured):
        argument = body.block.insert_arg(value.type, count + position)
        for original, copy in copies:
            for index, operand in enumerate(original.operands):
                if operand is value:
                    copy.operands[index] = argument
    # A batched tensor the body gathers from (`tensor.extract %t[%i]`: an embedding row, a
    # label's log-probability) is read in its own lane: the batch index first. Its extents
    # are read one dimension further in (`batch_dim`).
    # The lane is read once, first in the body: `linalg.index` must be the generic's own op
    # for xDSL (a read inside an `scf.if` in the body got one there, which it refused).
    lane: IndexOp | None = None
    for original, read in copies:
        if not original.operands or original.operands[0] not in gathered:
            continue
        if isinstance(read, tensor.DimOp):
            read.operands = [read.operands[0], _next_dimension(op, read)]
            continue
        if lane is None:
            lane = IndexOp(0)
            body.block.insert_op_before(lane, body.block.first_op)  # type: ignore[arg-type]
        read.operands = [read.operands[0], lane.result, *read.operands[1:]]
    old = op.indexing_maps.data[0].data
    lane_map = AffineMapAttr(AffineMap(old.num_dims + 1, 0, (AffineExpr.dimension(0),)))
    generic = GenericOp(
        values[:count] + [lanes[value] for value in captured],
        outputs,
        body,
        ArrayAttr(maps[:count] + [lane_map] * len(captured) + maps[count:]),
        ArrayAttr(iterators),
        [builder.batched_type(r.type) for r in op.results],
    )
    return [(r, True) for r in builder.insert(generic).results]


def _next_dimension(op: Operation, read: tensor.DimOp) -> SSAValue:
    """The `index` constant one past `read`'s dimension (a constant), inserted before it."""
    owner = read.index.owner
    if not (isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr)):
        raise unsupported(op, "its body reads the extent of a batched tensor at a dimension that is not a constant")
    constant = arith.ConstantOp(IntegerAttr(owner.value.value.data + 1, IndexType()))
    read.parent_block().insert_op_before(constant, read)  # type: ignore[union-attr]
    return constant.result


def _batched_captures(builder: BatchBuilder, op: Operation) -> tuple[list[SSAValue], list[SSAValue]]:
    """The batched values `op`'s body reads from outside, in order of first use: the
    scalars, and the tensors it reads only with `tensor.extract` (a gather inside the
    body) and `tensor.dim` (StableHLO's concatenate asks where each operand ends). A
    batched tensor used in any other way is refused."""
    inside = {id(nested) for nested in op.walk()}
    scalars: list[SSAValue] = []
    tensors: list[SSAValue] = []
    for nested in op.walk():
        if nested is op:
            continue
        for position, operand in enumerate(nested.operands):
            owner = operand.owner
            owner_op = owner if isinstance(owner, Operation) else owner.parent_op()
            if id(owner_op) in inside or not builder.is_batched_capture(operand):
                continue
            if not isinstance(operand.type, TensorType):
                if operand not in scalars:
                    scalars.append(operand)
            elif isinstance(nested, (tensor.ExtractOp, tensor.DimOp)) and position == 0:
                if operand not in tensors:
                    tensors.append(operand)
            else:
                raise unsupported(op, f"its body reads a batched tensor defined outside it with '{nested.name}'")
    return scalars, tensors
