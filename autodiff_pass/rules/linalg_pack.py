"""Derivative rules of `linalg.pack` and `linalg.unpack` (built-in Python rules,
loaded by the registry through `RULES`).

Both only move elements, so each is linear and the adjoint of one is the other
with the same tiling: the source of a pack gets `unpack(g)` (the padding
dropped), the source of an unpack gets `pack(g)`, padded with zeros where its
tiles run past the unpacked tensor (those elements are read by nobody). The
padding value of a pack lands in every padded position, so it gets the sum of
`g` there: `sum(g * pack(zeros, padding 1))`. The destination (`into`) is
overwritten and gets nothing.

Forward mode applies the same op to the tangents: `pack(t_source, padding
t_padding)`, a zero standing for whichever is inactive.
"""
from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import FloatAttr, TensorType
from xdsl.ir import Operation, SSAValue

from gradir.autodiff_pass.ir_building import zero_constant
from gradir.autodiff_pass.rules.interface import DerivativeRule
from gradir.dialects.autodiff import MulOp, SumOp
from gradir.dialects.linalg_pack import PackOp, UnpackOp


def _empty(builder: Builder, type_) -> SSAValue:
    return builder.insert(tensor.EmptyOp([], type_)).tensor


def _scalar(builder: Builder, value: float, type_) -> SSAValue:
    return builder.insert(arith.ConstantOp(FloatAttr(value, type_))).result


def _pack(builder: Builder, like: PackOp | UnpackOp, source: SSAValue, packed_type, padding: SSAValue | None):
    return builder.insert(PackOp(source, _empty(builder, packed_type), like.tiling(), padding)).result


def _unpack(builder: Builder, like: PackOp | UnpackOp, source: SSAValue, unpacked_type):
    return builder.insert(UnpackOp(source, _empty(builder, unpacked_type), like.tiling())).result


def pack_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    assert isinstance(op, PackOp)
    (g,) = grads
    source_type = op.unpacked_type()
    gradients: list[SSAValue | None] = [_unpack(builder, op, g, source_type), None]
    if op.padding_value is not None:
        element = source_type.get_element_type()
        # 1 where the packed tensor holds padding, 0 where it holds the source.
        padded = _pack(builder, op, zero_constant(builder, source_type), op.dest.type, _scalar(builder, 1.0, element))
        total = builder.insert(SumOp(builder.insert(MulOp(g, padded)).result, None, False)).result
        gradients.append(builder.insert(tensor.ExtractOp(total, [], element)).result)
    return gradients + [None] * len(op.inner_tiles)


def pack_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    assert isinstance(op, PackOp)
    source_tangent = tangents[0] if tangents[0] is not None else zero_constant(builder, op.source.type)
    padding = None
    if op.padding_value is not None:
        padding = tangents[2] if tangents[2] is not None else _scalar(builder, 0.0, op.padding_value.type)
    return [_pack(builder, op, source_tangent, op.dest.type, padding)]


def unpack_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    assert isinstance(op, UnpackOp)
    (g,) = grads
    element = op.unpacked_type().get_element_type()
    padding = _scalar(builder, 0.0, element) if op.has_partial_tiles() else None
    return [_pack(builder, op, g, op.packed_type(), padding), None] + [None] * len(op.inner_tiles)


def unpack_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    assert isinstance(op, UnpackOp)
    if tangents[0] is None:
        return [None]
    return [_unpack(builder, op, tangents[0], op.unpacked_type())]


RULES = (
    DerivativeRule("linalg.pack", differentiable_inputs=(0, 2), saved_inputs=frozenset(), saved_outputs=frozenset(),
                   reverse=pack_vjp, forward=pack_jvp),
    DerivativeRule("linalg.unpack", differentiable_inputs=(0,), saved_inputs=frozenset(), saved_outputs=frozenset(),
                   reverse=unpack_vjp, forward=unpack_jvp),
)  # fmt: skip
