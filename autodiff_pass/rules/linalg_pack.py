"""Derivative rules of `linalg.pack` and `linalg.unpack` (built-in Python rules,
loaded by the registry through `RULES`).

Both only move elements, so each is linear and the adjoint of one is the other
with the same tiling: the source of a pack gets `unpack(g)` (the padding
dropped), the source of an unpack gets `pack(g)`, padded with zeros where its
tiles run past the unpacked tensor (those elements are read by nobody). The
padding value of a pack lands in every padded position, so it gets the sum of
`g` there: `sum(g * pack(zeros, padding 1))`, one reduction `linalg.generic`
(sized by `g` at run time). The destination (`into`) is
overwritten and gets nothing.

Forward mode applies the same op to the tangents: `pack(t_source, padding
t_padding)`, a zero standing for whichever is inactive.

Dynamic shapes are taken: what a rule builds is sized like the op's own
operands (`tensor.dim`), and the adjoint pack of an unpack whose tiled
dimension is dynamic is given a zero padding value, since its last tile may be
partial.
"""
from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import FloatAttr, TensorType
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineMap

from gradir.autodiff_pass.ir_building import empty_like, zero_constant
from gradir.autodiff_pass.rules.interface import DerivativeRule
from gradir.dialects.linalg_pack import PackOp, UnpackOp
from gradir.lowering.linalg_builders import filled_tensor, generic


def _scalar(builder: Builder, value: float, type_) -> SSAValue:
    return builder.insert(arith.ConstantOp(FloatAttr(value, type_))).result


def _pack(builder: Builder, like: PackOp | UnpackOp, source: SSAValue, packed: SSAValue, padding: SSAValue | None):
    """`source` packed as `like` tiles, into a tensor of `packed`'s type and sizes."""
    return builder.insert(PackOp(source, empty_like(builder, packed), like.tiling(), padding)).result


def _unpack(builder: Builder, like: PackOp | UnpackOp, source: SSAValue, unpacked: SSAValue):
    """`source` unpacked as `like` tiles, into a tensor of `unpacked`'s type and sizes."""
    return builder.insert(UnpackOp(source, empty_like(builder, unpacked), like.tiling())).result


def _dot(builder: Builder, a: SSAValue, b: SSAValue) -> SSAValue:
    """`sum(a * b)`, a scalar, by one reduction generic: unlike `autodiff.mul`, whose
    lowering sizes its result from the static type, it takes `a` and `b` of dynamic shape."""
    type_: TensorType = a.type  # type: ignore[assignment]
    element, rank = type_.get_element_type(), type_.get_num_dims()
    init = filled_tensor(builder, TensorType(element, []), 0.0)
    total = generic(
        builder, [a, b], [AffineMap.identity(rank)] * 2, init, AffineMap(rank, 0, ()),
        [IteratorTypeAttr.reduction()] * rank, lambda x: arith.AddfOp(x[2], arith.MulfOp(x[0], x[1]).result).result,
    )  # fmt: skip
    return builder.insert(tensor.ExtractOp(total, [], element)).result


def pack_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    assert isinstance(op, PackOp)
    (g,) = grads
    gradients: list[SSAValue | None] = [_unpack(builder, op, g, op.source), None]
    if op.padding_value is not None:
        element = op.unpacked_type().get_element_type()
        # 1 where the packed tensor holds padding, 0 where it holds the source.
        padded = _pack(builder, op, zero_constant(builder, op.source), op.dest, _scalar(builder, 1.0, element))
        gradients.append(_dot(builder, g, padded))
    return gradients + [None] * len(op.inner_tiles)


def pack_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    assert isinstance(op, PackOp)
    source_tangent = tangents[0] if tangents[0] is not None else zero_constant(builder, op.source)
    padding = None
    if op.padding_value is not None:
        padding = tangents[2] if tangents[2] is not None else _scalar(builder, 0.0, op.padding_value.type)
    return [_pack(builder, op, source_tangent, op.dest, padding)]


def unpack_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    assert isinstance(op, UnpackOp)
    (g,) = grads
    element = op.unpacked_type().get_element_type()
    padding = _scalar(builder, 0.0, element) if op.may_have_partial_tiles() else None
    return [_pack(builder, op, g, op.source, padding), None] + [None] * len(op.inner_tiles)


def unpack_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    assert isinstance(op, UnpackOp)
    if tangents[0] is None:
        return [None]
    return [_unpack(builder, op, tangents[0], op.dest)]


RULES = (
    DerivativeRule("linalg.pack", differentiable_inputs=(0, 2), saved_inputs=frozenset(), saved_outputs=frozenset(),
                   reverse=pack_vjp, forward=pack_jvp, dynamic_shapes=True),
    DerivativeRule("linalg.unpack", differentiable_inputs=(0,), saved_inputs=frozenset(), saved_outputs=frozenset(),
                   reverse=unpack_vjp, forward=unpack_jvp, dynamic_shapes=True),
)  # fmt: skip
