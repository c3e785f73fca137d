"""Derivative rules of the tensor ops whose element comes from a scalar body:
`tensor.generate` and `tensor.pad` (built-in Python rules, loaded by the registry
through `RULES`).

Both bodies are scalar code over the result's indices, like a `linalg.generic`
body, and read active values from outside (a captured scalar, elements gathered
with `tensor.extract`), so the rules rebuild the body as that generic
(`region_as_generic`, the lowering's own) and hand it to the generic rules:
reverse mode gives the captured values' gradients, forward mode the tangent.

- generate: exactly that generic (of dynamic extents too).
- pad (the amounts numbers or values; source and result of static or dynamic
  shape): the result is the
  source inserted into the padding. The source's gradient is the result's
  gradient at the source's place; the padding's gradient, the result's with
  that place zeroed, goes to the body's generic (a padding value captured from
  outside gets the sum over the padded positions). The tangent is the source's
  tangent inserted into the padding's tangent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.builder import Builder
from xdsl.dialects import tensor
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from gradir.autodiff_pass.ir_building import dynamic_sizes, zero_constant
from gradir.autodiff_pass.rules.generic import generic_jvp
from gradir.autodiff_pass.rules.generic_reverse import generic_vjp
from gradir.autodiff_pass.rules.interface import DerivativeRule
from gradir.dialects.mlir22_ops import GenerateOp
from gradir.lowering.standard_ops import extract_at, insert_at, pad_offsets, region_as_generic


def _body_as_generic(builder: Builder, op: Operation, like: SSAValue):
    """The body of `op` as a generic over its result (`region_as_generic`), sized, where the
    result's shape is dynamic, by `like`: a value of the result's shape (its gradient in
    reverse mode, the result itself in forward mode)."""
    result_type = op.results[0].type
    assert isinstance(result_type, TensorType)
    return region_as_generic(builder, op.regions[0].block, result_type, dynamic_sizes(builder, like))


def _body_gradients(builder: Builder, op: Operation, grad: SSAValue, captured: Sequence[SSAValue]):
    """The gradients of `captured` from the body of `op` (a generate or a pad)
    seeded with `grad` at every position of the result."""
    generic = _body_as_generic(builder, op, grad)
    try:
        return generic_vjp(builder, generic, [grad], captured)[len(generic.operands) :]
    finally:
        generic.erase()


def _body_tangent(builder: Builder, op: Operation, captured_tangents: Mapping[SSAValue, SSAValue]) -> SSAValue | None:
    """The tangent of what the body of `op` yields at every position."""
    if not captured_tangents:
        return None
    generic = _body_as_generic(builder, op, op.results[0])
    try:
        return generic_jvp(builder, generic, [None], captured_tangents)[0]
    finally:
        generic.erase()


def generate_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue], captured: Sequence[SSAValue]):
    assert isinstance(op, GenerateOp)
    return [None] * len(op.operands) + list(_body_gradients(builder, op, grads[0], captured))


def generate_jvp(
    builder: Builder,
    op: Operation,
    tangents: Sequence[SSAValue | None],
    captured_tangents: Mapping[SSAValue, SSAValue],
):
    assert isinstance(op, GenerateOp)
    return [_body_tangent(builder, op, captured_tangents)]


def pad_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue], captured: Sequence[SSAValue]):
    assert isinstance(op, tensor.PadOp)
    offsets = pad_offsets(op)
    (grad,) = grads
    source_gradient = extract_at(builder, grad, offsets, op.source)
    padding_gradient = insert_at(builder, zero_constant(builder, op.source), grad, offsets)
    captured_gradients = _body_gradients(builder, op, padding_gradient, captured) if captured else []
    return [source_gradient, *[None] * (len(op.operands) - 1), *captured_gradients]


def pad_jvp(
    builder: Builder,
    op: Operation,
    tangents: Sequence[SSAValue | None],
    captured_tangents: Mapping[SSAValue, SSAValue],
):
    assert isinstance(op, tensor.PadOp)
    offsets = pad_offsets(op)
    source = tangents[0]
    padding = _body_tangent(builder, op, captured_tangents)
    if source is None and padding is None:
        return [None]
    source = source if source is not None else zero_constant(builder, op.source)
    padding = padding if padding is not None else zero_constant(builder, op.result)
    return [insert_at(builder, source, padding, offsets)]


RULES = (
    DerivativeRule(
        "tensor.generate",
        differentiable_inputs=(),
        reverse=generate_vjp,
        forward=generate_jvp,
        captures=True,
        dynamic_shapes=True,
    ),
    DerivativeRule(
        "tensor.pad",
        differentiable_inputs=(0,),
        reverse=pad_vjp,
        forward=pad_jvp,
        captures=True,
        dynamic_shapes=True,
    ),
)
