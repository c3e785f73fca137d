"""The batching rule of `linalg.generic` (a leading parallel dimension), in a module of its
own because the linalg named ops' rules batch their generic view with it too
(`batching_linalg`), and `batching` imports those."""
from __future__ import annotations

from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr, TensorType
from xdsl.dialects.linalg.ops import GenericOp, IndexOp, IteratorTypeAttr
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from gradir.autodiff_pass.batch_builder import BatchBuilder, unsupported


def batch_generic(builder, op, operands, batched):
    """A leading parallel dimension: batched operands' maps read it first, the
    others' maps ignore it; every output is batched (an unbatched init is
    broadcast); `linalg.index` in the body counts one dimension further."""
    assert isinstance(op, GenericOp)
    captured = _batched_scalar_captures(builder, op)
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
    for nested in body.walk():
        if isinstance(nested, IndexOp):
            nested.properties["dim"] = type(nested.dim)(nested.dim.value.data + 1, nested.dim.type)
    # A batched scalar the body reads from outside (a log-sum-exp's max) comes in as one
    # more input, `tensor<B>` read at the batch dimension: each lane reads its own.
    lanes = builder.value_map
    inside = {id(nested) for nested in body.walk()}
    for position, value in enumerate(captured):
        argument = body.block.insert_arg(value.type, count + position)
        lanes[value].replace_uses_with_if(argument, lambda use: id(use.operation) in inside)
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


def _batched_scalar_captures(builder: BatchBuilder, op: Operation) -> list[SSAValue]:
    """The batched scalars `op`'s body reads from outside, in order of first use; a
    batched tensor read from outside (an element at data-dependent indices, a gather
    inside the body) is refused: each lane would read the whole batch."""
    inside = {id(nested) for nested in op.walk()}
    captured: list[SSAValue] = []
    for nested in op.walk():
        if nested is op:
            continue
        for operand in nested.operands:
            owner = operand.owner
            owner_op = owner if isinstance(owner, Operation) else owner.parent_op()
            if id(owner_op) in inside or not builder.is_batched_capture(operand):
                continue
            if isinstance(operand.type, TensorType):
                raise unsupported(op, "its body reads a batched value defined outside it")
            if operand not in captured:
                captured.append(operand)
    return captured
