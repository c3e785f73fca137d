"""Derivative rules of the tensor ops whose element comes from a scalar body:
`tensor.generate` and `tensor.pad` (built-in Python rules, loaded by the registry
through `RULES`).

Both bodies are scalar code over the result's indices, like a `linalg.generic`
body, and read active values from outside (a captured scalar, elements gathered
with `tensor.extract`), so the rules rebuild the body as that generic
(`region_as_generic`, the lowering's own) and hand it to the generic rules:
reverse mode gives the captured values' gradients, forward mode the tangent.

- generate: exactly that generic.
- pad (static shapes, the amounts numbers or values; a pad of run-time size is a
  located error): the result is the
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

from gradir.autodiff_pass.ir_building import zero_constant
from gradir.autodiff_pass.rules.generic import generic_jvp
from gradir.autodiff_pass.rules.generic_reverse import generic_vjp
from gradir.autodiff_pass.rules.interface import DerivativeRule
from gradir.dialects.mlir22_ops import GenerateOp
from gradir.errors import DifferentiationError, error_at
from gradir.lowering.standard_ops import extract_at, insert_at, pad_offsets, region_as_generic


def _body_gradients(builder: Builder, op: Operation, grad: SSAValue, captured: Sequence[SSAValue]):
    """The gradients of `captured` from the body of `op` (a generate or a pad)
    seeded with `grad` at every position of the result."""
    assert isinstance(op.results[0].type, TensorType)
    generic = region_as_generic(builder, op.regions[0].block, op.results[0].type)
    try:
        return generic_vjp(builder, generic, [grad], captured)[len(generic.operands) :]
    finally:
        generic.erase()


def _body_tangent(
    builder: Builder, op: Operation, captured_tangents: Mapping[SSAValue, SSAValue]
) -> SSAValue | None:
    """The tangent of what the body of `op` yields at every position."""
    if not captured_tangents:
        return None
    assert isinstance(op.results[0].type, TensorType)
    generic = region_as_generic(builder, op.regions[0].block, op.results[0].type)
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


def _pad_offsets(op: tensor.PadOp) -> list[int | SSAValue]:
    offsets = pad_offsets(op)
    if offsets is None:
        raise error_at(
            DifferentiationError, op, "differentiation of 'tensor.pad' needs static source and result shapes"
        )
    return offsets


def pad_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue], captured: Sequence[SSAValue]):
    assert isinstance(op, tensor.PadOp)
    offsets = _pad_offsets(op)
    (grad,) = grads
    source_gradient = extract_at(builder, grad, offsets, op.source)
    padding_gradient = insert_at(builder, zero_constant(builder, op.source.type), grad, offsets)
    captured_gradients = _body_gradients(builder, op, padding_gradient, captured) if captured else []
    return [source_gradient, *[None] * (len(op.operands) - 1), *captured_gradients]


def pad_jvp(
    builder: Builder,
    op: Operation,
    tangents: Sequence[SSAValue | None],
    captured_tangents: Mapping[SSAValue, SSAValue],
):
    assert isinstance(op, tensor.PadOp)
    offsets = _pad_offsets(op)
    source = tangents[0]
    padding = _body_tangent(builder, op, captured_tangents)
    if source is None and padding is None:
        return [None]
    source = source if source is not None else zero_constant(builder, op.source.type)
    padding = padding if padding is not None else zero_constant(builder, op.result.type)
    return [insert_at(builder, source, padding, offsets)]


RULES = (
    DerivativeRule(
        "tensor.generate",
        differentiable_inputs=(),
        reverse=generate_vjp,
        forward=generate_jvp,
        captures=True,
    ),
    DerivativeRule(
        "tensor.pad",
        differentiable_inputs=(0,),
        reverse=pad_vjp,
        forward=pad_jvp,
        captures=True,
    ),
)
