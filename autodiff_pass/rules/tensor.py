"""Derivative rules of `tensor` dialect ops that move elements (built-in
Python rules, loaded by the registry through `RULES`).

All are linear in their tensor operands. The gradient of `extract_slice` puts
the output's gradient back at the same offsets of a zero tensor, and the
gradient of `insert_slice` splits the result's gradient into the inserted
part (for the source) and the rest (for the destination); offsets, sizes and
strides (static or `index` operands) are reused as they are. `extract` and
`insert` do the same for one element (a float scalar gradient),
`expand_shape`/`collapse_shape`/`reshape` reshape the gradient back (`reshape`'s
shape operand is an index tensor: no gradient) and `cast` casts it back. Tensors of dynamic
shape take the sizes of what they build from the op's own values (`tensor.dim`; `reshape`
back to its source: a shape tensor of them), except `splat`, which refuses them. `concat` hands each input its slice of the gradient
(at the running sum of the previous inputs' extents along the dimension, `tensor.dim`s where
they are dynamic) and concatenates the tangents (a missing one a zero of its input's
run-time shape), `from_elements`
each scalar its element, and `splat` its scalar the sum of the gradient.
`empty` has no operands and `dim`/`rank` give indices: they need no rule.
`gather`/`scatter` are in `tensor_gather`, `generate`/`pad` in `tensor_regions`.
"""
from __future__ import annotations

import itertools
from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from gradir.autodiff_pass.ir_building import dynamic_sizes, zero_constant
from gradir.autodiff_pass.rules.interface import DerivativeRule
from gradir.autodiff_pass.rules.loop_cache import add
from gradir.dialects.autodiff import ReshapeOp, SumOp
from gradir.dialects.type_checks import dynamic_dims
from gradir.dialects.upstream_ops import ReshapeOp as TensorReshapeOp  # MLIR's verifier, not xDSL 0.74's
from gradir.lowering.standard_ops import extent, extract_at, index_constant


def _slice_operands(op: tensor.ExtractSliceOp | tensor.InsertSliceOp):
    return [list(op.offsets), list(op.sizes), list(op.strides)]


def _slice_properties(op: tensor.ExtractSliceOp | tensor.InsertSliceOp):
    return {
        "static_offsets": op.static_offsets,
        "static_sizes": op.static_sizes,
        "static_strides": op.static_strides,
    }


def insert_like(
    builder: Builder, like: tensor.ExtractSliceOp | tensor.InsertSliceOp, source: SSAValue, dest: SSAValue
) -> SSAValue:
    """`tensor.insert_slice source into dest` at the slice of `like`."""
    op = tensor.InsertSliceOp.build(
        operands=[source, dest, *_slice_operands(like)],
        properties=_slice_properties(like),
        result_types=[dest.type],
    )
    return builder.insert(op).result


def extract_like(
    builder: Builder, like: tensor.ExtractSliceOp | tensor.InsertSliceOp, source: SSAValue, type_: Attribute
) -> SSAValue:
    """`tensor.extract_slice source` at the slice of `like`, of type `type_`."""
    op = tensor.ExtractSliceOp.build(
        operands=[source, *_slice_operands(like)],
        properties=_slice_properties(like),
        result_types=[type_],
    )
    return builder.insert(op).result


def _none_for_indices(op: Operation, leading: list[SSAValue | None]) -> list[SSAValue | None]:
    return leading + [None] * (len(op.operands) - len(leading))


def extract_slice_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    assert isinstance(op, tensor.ExtractSliceOp)
    (grad,) = grads
    gradient = insert_like(builder, op, grad, zero_constant(builder, op.source))
    return _none_for_indices(op, [gradient])


def extract_slice_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    assert isinstance(op, tensor.ExtractSliceOp)
    tangent = tangents[0]
    return [None if tangent is None else extract_like(builder, op, tangent, op.result.type)]


def insert_slice_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    assert isinstance(op, tensor.InsertSliceOp)
    (grad,) = grads
    source_gradient = extract_like(builder, op, grad, op.source.type)
    dest_gradient = insert_like(builder, op, zero_constant(builder, op.source), grad)
    return _none_for_indices(op, [source_gradient, dest_gradient])


def insert_slice_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    assert isinstance(op, tensor.InsertSliceOp)
    source, dest = tangents[0], tangents[1]
    if source is None and dest is None:
        return [None]
    source = source if source is not None else zero_constant(builder, op.source)
    dest = dest if dest is not None else zero_constant(builder, op.dest)
    return [insert_like(builder, op, source, dest)]


def extract_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    assert isinstance(op, tensor.ExtractOp)
    gradient = builder.insert(tensor.InsertOp(grads[0], zero_constant(builder, op.tensor), list(op.indices)))
    return _none_for_indices(op, [gradient.result])


def extract_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    assert isinstance(op, tensor.ExtractOp)
    if tangents[0] is None:
        return [None]
    return [builder.insert(tensor.ExtractOp(tangents[0], list(op.indices), op.result.type)).result]


def insert_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    assert isinstance(op, tensor.InsertOp)
    (grad,) = grads
    indices = list(op.indices)
    scalar = builder.insert(tensor.ExtractOp(grad, indices, op.scalar.type)).result
    rest = builder.insert(tensor.InsertOp(zero_constant(builder, op.scalar.type), grad, indices)).result
    return _none_for_indices(op, [scalar, rest])


def insert_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    assert isinstance(op, tensor.InsertOp)
    scalar, dest = tangents[0], tangents[1]
    if scalar is None and dest is None:
        return [None]
    scalar = scalar if scalar is not None else zero_constant(builder, op.scalar.type)
    dest = dest if dest is not None else zero_constant(builder, op.dest)
    return [builder.insert(tensor.InsertOp(scalar, dest, list(op.indices))).result]


def reshape_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    return _none_for_indices(op, [_reshaped(builder, op, grads[0], backwards=True)])


def reshape_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    if tangents[0] is None:
        return [None]
    return [_reshaped(builder, op, tangents[0], backwards=False)]


def _reshaped(builder: Builder, op: Operation, value: SSAValue, backwards: bool) -> SSAValue:
    """`value` (of `op`'s result type, or its source's) reshaped to its source's (result's)
    type: an `autodiff.reshape`; for an `expand_shape`/`collapse_shape` of dynamic shape,
    the opposite one with the same groups, sized by the op's own values."""
    target = op.operands[0] if backwards else op.results[0]
    if not (dynamic_dims(op.operands[0].type) or dynamic_dims(op.results[0].type)):
        return builder.insert(ReshapeOp(value, target.type)).result
    if isinstance(op, tensor.ReshapeOp):
        shape = op.shape if not backwards else _shape_tensor(builder, target, op.shape.type.element_type)
        return builder.insert(TensorReshapeOp(value, shape, target.type)).result
    expands = isinstance(op, tensor.ExpandShapeOp) != backwards  # to the op's result or from it
    groups = op.properties["reassociation"]
    if not expands:
        collapse = tensor.CollapseShapeOp(
            operands=[value], result_types=[target.type], properties={"reassociation": groups}
        )
        return builder.insert(collapse).results[0]
    sizes = dynamic_sizes(builder, target)
    static = list(target.type.get_shape())  # type: ignore[union-attr]
    return builder.insert(tensor.ExpandShapeOp(value, sizes, groups, static, target.type)).result  # type: ignore[arg-type]


def _shape_tensor(builder: Builder, value: SSAValue, element: Attribute) -> SSAValue:
    """`value`'s sizes as a rank-1 tensor of `element` (index or an integer type), the
    shape operand of a `tensor.reshape` back to it: its static sizes as constants, the
    others its `tensor.dim`s."""
    sizes = []
    for dim, size in enumerate(value.type.get_shape()):  # type: ignore[union-attr]
        if size == DYNAMIC_INDEX:
            extent = builder.insert(tensor.DimOp(value, index_constant(builder, dim))).result
            sizes.append(extent if isinstance(element, IndexType) else builder.insert(arith.IndexCastOp(extent, element)).result)
        else:
            sizes.append(builder.insert(arith.ConstantOp(IntegerAttr(size, element))).result)
    shape_type = TensorType(element, [len(sizes)])
    return builder.insert(tensor.FromElementsOp(*sizes, result_type=shape_type)).results[0]


def cast_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    assert isinstance(op, tensor.CastOp)
    return [builder.insert(tensor.CastOp(grads[0], op.source.type)).dest]  # type: ignore[arg-type]


def cast_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    assert isinstance(op, tensor.CastOp)
    if tangents[0] is None:
        return [None]
    return [builder.insert(tensor.CastOp(tangents[0], op.dest.type)).dest]  # type: ignore[arg-type]


def _concat_offsets(builder: Builder, op: tensor.ConcatOp) -> list[int | SSAValue]:
    """The offset of each input along the concatenated dimension inside the result: the
    running sum of the previous inputs' extents there (numbers while they are static, then
    `arith.addi`s of their `tensor.dim`s)."""
    dim = op.dim.value.data
    offsets: list[int | SSAValue] = []
    start: int | SSAValue = 0
    for value in op.inputs[:-1]:
        offsets.append(start)
        start = add(builder, start, extent(builder, value, dim))
    return [*offsets, start]


def concat_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    # each input's slice of the gradient, at its offset along the dimension, of its sizes
    assert isinstance(op, tensor.ConcatOp)
    dim = op.dim.value.data
    gradients = []
    for value, start in zip(op.inputs, _concat_offsets(builder, op)):
        offsets: list[int | SSAValue] = [0] * value.type.get_num_dims()  # type: ignore[attr-defined]
        offsets[dim] = start
        gradients.append(extract_at(builder, grads[0], offsets, value))
    return gradients


def concat_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    assert isinstance(op, tensor.ConcatOp)
    if all(t is None for t in tangents):
        return [None]
    parts = [zero_constant(builder, v) if t is None else t for t, v in zip(tangents, op.inputs)]
    return [builder.insert(tensor.ConcatOp(parts, op.dim, op.result.type)).result]  # type: ignore[arg-type]


def from_elements_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    assert isinstance(op, tensor.FromElementsOp)
    shape = op.result.type.get_shape()  # type: ignore[attr-defined]
    return [
        builder.insert(tensor.ExtractOp(grads[0], [index_constant(builder, i) for i in position], element.type)).result
        for position, element in zip(itertools.product(*map(range, shape)), op.elements)
    ]


def from_elements_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    assert isinstance(op, tensor.FromElementsOp)
    if all(t is None for t in tangents):
        return [None]
    elements = [zero_constant(builder, e.type) if t is None else t for t, e in zip(tangents, op.elements)]
    return [builder.insert(tensor.FromElementsOp(*elements, result_type=op.result.type)).result]


def splat_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    assert isinstance(op, tensor.SplatOp)
    total = builder.insert(SumOp(grads[0], None, False)).result
    return _none_for_indices(op, [builder.insert(tensor.ExtractOp(total, [], op.input.type)).result])


def splat_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    assert isinstance(op, tensor.SplatOp)
    if tangents[0] is None:
        return [None]
    return [builder.insert(tensor.SplatOp(tangents[0], [], op.result.type)).result]  # type: ignore[arg-type]


def _linear(name: str, reverse, forward, inputs: tuple[int, ...] | None, dynamic: bool = False) -> DerivativeRule:
    """A rule whose backward reads no float values, only shapes and index operands
    (`inputs` None: every operand is differentiable); `dynamic`: it takes tensors of
    dynamic shape (`DerivativeRule.dynamic_shapes`)."""
    return DerivativeRule(
        name,
        differentiable_inputs=inputs,
        saved_inputs=frozenset(),
        saved_outputs=frozenset(),
        reverse=reverse,
        forward=forward,
        dynamic_shapes=dynamic,
    )


RULES = (
    _linear("tensor.extract", extract_vjp, extract_jvp, (0,), dynamic=True),
    _linear("tensor.insert", insert_vjp, insert_jvp, (0, 1), dynamic=True),
    _linear("tensor.expand_shape", reshape_vjp, reshape_jvp, (0,), dynamic=True),
    _linear("tensor.collapse_shape", reshape_vjp, reshape_jvp, (0,), dynamic=True),
    _linear("tensor.reshape", reshape_vjp, reshape_jvp, (0,), dynamic=True),
    _linear("tensor.cast", cast_vjp, cast_jvp, (0,), dynamic=True),
    _linear("tensor.concat", concat_vjp, concat_jvp, None, dynamic=True),
    _linear("tensor.from_elements", from_elements_vjp, from_elements_jvp, None),
    _linear("tensor.splat", splat_vjp, splat_jvp, (0,)),
    DerivativeRule(
        "tensor.extract_slice",
        differentiable_inputs=(0,),
        saved_inputs=frozenset(),
        saved_outputs=frozenset(),
        reverse=extract_slice_vjp,
        forward=extract_slice_jvp,
        dynamic_shapes=True,
    ),
    DerivativeRule(
        "tensor.insert_slice",
        differentiable_inputs=(0, 1),
        saved_inputs=frozenset(),
        saved_outputs=frozenset(),
        reverse=insert_slice_vjp,
        forward=insert_slice_jvp,
        dynamic_shapes=True,
    ),
)
