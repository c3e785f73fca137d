"""Derivative rules of `tensor` dialect ops that move elements (built-in
Python rules, loaded by the registry through `RULES`).

All are linear in their tensor operands. The gradient of `extract_slice` puts
the output's gradient back at the same offsets of a zero tensor, and the
gradient of `insert_slice` splits the result's gradient into the inserted
part (for the source) and the rest (for the destination); offsets, sizes and
strides (static or `index` operands) are reused as they are. `extract` and
`insert` do the same for one element (a float scalar gradient), and
`expand_shape`/`collapse_shape` reshape the gradient back.
"""
from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import tensor
from xdsl.ir import Attribute, Operation, SSAValue

from gradir.autodiff_pass.ir_building import zero_constant
from gradir.autodiff_pass.registry import DerivativeRule


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
    gradient = insert_like(builder, op, grad, zero_constant(builder, op.source.type))
    return _none_for_indices(op, [gradient])


def extract_slice_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    assert isinstance(op, tensor.ExtractSliceOp)
    tangent = tangents[0]
    return [None if tangent is None else extract_like(builder, op, tangent, op.result.type)]


def insert_slice_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    assert isinstance(op, tensor.InsertSliceOp)
    (grad,) = grads
    source_gradient = extract_like(builder, op, grad, op.source.type)
    dest_gradient = insert_like(builder, op, zero_constant(builder, op.source.type), grad)
    return _none_for_indices(op, [source_gradient, dest_gradient])


def insert_slice_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    assert isinstance(op, tensor.InsertSliceOp)
    source, dest = tangents[0], tangents[1]
    if source is None and dest is None:
        return [None]
    source = source if source is not None else zero_constant(builder, op.source.type)
    dest = dest if dest is not None else zero_constant(builder, op.dest.type)
    return [insert_like(builder, op, source, dest)]


def extract_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    assert isinstance(op, tensor.ExtractOp)
    gradient = builder.insert(tensor.InsertOp(grads[0], zero_constant(builder, op.tensor.type), list(op.indices)))
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
    dest = dest if dest is not None else zero_constant(builder, op.dest.type)
    return [builder.insert(tensor.InsertOp(scalar, dest, list(op.indices))).result]


def reshape_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    from gradir.dialects.autodiff import ReshapeOp

    return _none_for_indices(op, [builder.insert(ReshapeOp(grads[0], op.operands[0].type)).result])


def reshape_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    from gradir.dialects.autodiff import ReshapeOp

    if tangents[0] is None:
        return [None]
    return [builder.insert(ReshapeOp(tangents[0], op.results[0].type)).result]


def _linear(name: str, reverse, forward, inputs: tuple[int, ...]) -> DerivativeRule:
    return DerivativeRule(
        name,
        differentiable_inputs=inputs,
        saved_inputs=frozenset(),
        saved_outputs=frozenset(),
        reverse=reverse,
        forward=forward,
    )


RULES = (
    _linear("tensor.extract", extract_vjp, extract_jvp, (0,)),
    _linear("tensor.insert", insert_vjp, insert_jvp, (0, 1)),
    _linear("tensor.expand_shape", reshape_vjp, reshape_jvp, (0,)),
    _linear("tensor.collapse_shape", reshape_vjp, reshape_jvp, (0,)),
    DerivativeRule(
        "tensor.extract_slice",
        differentiable_inputs=(0,),
        saved_inputs=frozenset(),
        saved_outputs=frozenset(),
        reverse=extract_slice_vjp,
        forward=extract_slice_jvp,
    ),
    DerivativeRule(
        "tensor.insert_slice",
        differentiable_inputs=(0, 1),
        saved_inputs=frozenset(),
        saved_outputs=frozenset(),
        reverse=insert_slice_vjp,
        forward=insert_slice_jvp,
    ),
)
