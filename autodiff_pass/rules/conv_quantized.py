"""Derivative rules of the quantized convolutions (`linalg.conv_2d_nhwc_hwcf_q`,
...: `dialects.linalg_quantized`), built-in Python rules loaded by the
registry through `RULES`.

A quantized convolution is the plain convolution of the same name (same
loops, maps, strides and dilations) of the shifted operands:

    conv_q(x, w, x_zero, w_zero, init) = conv(x - x_zero, w - w_zero, init)

so both modes build the shifted operands and hand the plain op to the
convolution rules (`rules.conv`): the input and the filter get the plain
op's gradients of their shifted selves, each zero point minus the sum of its
operand's gradient (it is subtracted from every element), the init `g`; the
tangent is the plain op's tangent for the shifted tangents `t_x - t_x_zero`,
`t_w - t_w_zero`. (Through the generic view, the input's adjoint would be
written through the window map, which is not invertible.)

Integer operands (the usual `i8` into `i32`) carry no derivative; a
convolution with float and integer operands mixed has its init's gradient
only, and is a located error if a mixed operand is active.
"""
from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import AffineMapAttr, AnyFloat, TensorType
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap

from gradir.autodiff_pass.activity import carries_derivative
from gradir.autodiff_pass.ir_building import zero_constant
from gradir.autodiff_pass.rules.conv import window_jvp, window_vjp
from gradir.autodiff_pass.rules.interface import DerivativeRule
from gradir.dialects.autodiff import SumOp
from gradir.dialects.linalg_conv import WINDOW_OPS_BY_NAME, WindowOperation
from gradir.dialects.linalg_quantized import QUANTIZED_WINDOW_OPS
from gradir.dialects.linalg_structured import element_type
from gradir.errors import DifferentiationError, error_at


def _shifted(builder: Builder, value: SSAValue, zero_point: SSAValue) -> SSAValue:
    """`value - zero_point`: one generic reading the scalar in every iteration
    (as the op does; a tensor made of it would be host code on the GPU)."""
    value_type = value.type
    assert isinstance(value_type, TensorType)
    rank = len(value_type.get_shape())
    block = Block(arg_types=[value_type.get_element_type(), zero_point.type, value_type.get_element_type()])
    difference = arith.SubfOp(block.args[0], block.args[1])
    block.add_ops([difference, linalg.YieldOp(difference.result)])
    identity, scalar = AffineMapAttr(AffineMap.identity(rank)), AffineMapAttr(AffineMap(rank, 0, ()))
    empty = builder.insert(tensor.EmptyOp([], value_type)).tensor
    generic = linalg.GenericOp(
        [value, zero_point], [empty], Region(block), [identity, scalar, identity],
        [IteratorTypeAttr.parallel()] * rank, [value_type],
    )  # fmt: skip
    return builder.insert(generic).results[0]


def _minus_sum(builder: Builder, gradient: SSAValue) -> SSAValue:
    total = builder.insert(SumOp(gradient, None, False)).result
    scalar = builder.insert(tensor.ExtractOp(total, [], element_type(gradient.type))).result
    return builder.insert(arith.NegfOp(scalar)).result


def _plain(op: WindowOperation, x: SSAValue, w: SSAValue, init: SSAValue) -> WindowOperation:
    """The plain convolution of `op`'s name on other operands; not inserted."""
    plain = WINDOW_OPS_BY_NAME[op.name.removesuffix("_q")]
    return plain.build(
        operands=[[x, w], [init]],
        result_types=[[init.type]],
        properties={k: v for k, v in op.properties.items() if k in ("strides", "dilations")},
        regions=[plain.get_hidden_region([x, w], [init])],
    )


def _one_float_type(op: Operation) -> bool:
    """Whether every operand's element type is the init's, a float."""
    output = element_type(op.operands[-1].type)
    return isinstance(output, AnyFloat) and all(element_type(v.type) == output for v in op.operands)


def _check_types(op: Operation) -> None:
    if not _one_float_type(op) and any(carries_derivative(v) for v in op.operands[:4]):
        raise error_at(
            DifferentiationError,
            op,
            f"differentiation of '{op.name}' needs its input, filter and zero points in the init's element type",
        )


def quantized_window_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    assert isinstance(op, WindowOperation)
    x, w, x_zero, w_zero, init = op.operands
    (g,) = grads
    if not _one_float_type(op):
        _check_types(op)
        return [None, None, None, None, g]
    plain = _plain(op, _shifted(builder, x, x_zero), _shifted(builder, w, w_zero), init)
    try:
        x_gradient, w_gradient, init_gradient = window_vjp(builder, plain, grads)
    finally:
        plain.erase()
    assert x_gradient is not None and w_gradient is not None
    zero_gradients = [
        _minus_sum(builder, gradient) if carries_derivative(zero_point) else None
        for gradient, zero_point in ((x_gradient, x_zero), (w_gradient, w_zero))
    ]
    return [x_gradient, w_gradient, *zero_gradients, init_gradient]


def _shifted_tangent(builder: Builder, tangent: SSAValue | None, zero_tangent: SSAValue | None, like: SSAValue):
    if tangent is None and zero_tangent is None:
        return None
    base = tangent if tangent is not None else zero_constant(builder, like.type)
    return base if zero_tangent is None else _shifted(builder, base, zero_tangent)


def quantized_window_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    assert isinstance(op, WindowOperation)
    x, w, x_zero, w_zero, init = op.operands
    x_t, w_t, x_zero_t, w_zero_t, init_t = tangents
    if not _one_float_type(op):
        _check_types(op)
        return [init_t]
    plain = _plain(op, _shifted(builder, x, x_zero), _shifted(builder, w, w_zero), init)
    shifted_tangents = [_shifted_tangent(builder, x_t, x_zero_t, x), _shifted_tangent(builder, w_t, w_zero_t, w), init_t]
    try:
        return window_jvp(builder, plain, shifted_tangents)
    finally:
        plain.erase()


RULES = tuple(
    DerivativeRule(op.name, differentiable_inputs=(0, 1, 2, 3, 4), saved_inputs=frozenset({0, 1, 2, 3}),
                   saved_outputs=frozenset(), reverse=quantized_window_vjp, forward=quantized_window_jvp)
    for op in QUANTIZED_WINDOW_OPS
)  # fmt: skip
