"""Derivative rule of `tensor.pad` with static amounts (built-in Python rule,
loaded by the registry through `RULES`), as torch-mlir pads the inputs of
convolutions and pooling: zeros before a convolution or average pooling, the
lowest float before max pooling.

The padding value is what the region yields: a value defined outside it (a
constant, or a float scalar, which is then a captured value). Reverse: the
source gets the slice of the gradient it occupies; a captured padding value
gets the sum of the gradient over the padding (all of it minus the slice).
Forward: the tangent is padded the same way, with the padding value's
tangent (zero for a constant).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from gradir.autodiff_pass.ir_building import zero_constant
from gradir.autodiff_pass.rules.interface import DerivativeRule
from gradir.dialects.autodiff import SumOp
from gradir.errors import DifferentiationError, error_at


def _amounts(op: tensor.PadOp) -> tuple[list[int], list[int]]:
    low, high = [int(v) for v in op.static_low.get_values()], [int(v) for v in op.static_high.get_values()]
    if op.low or op.high:
        raise error_at(DifferentiationError, op, "differentiation of 'tensor.pad' needs static padding amounts")
    return low, high


def _padding_value(op: tensor.PadOp) -> SSAValue | None:
    """The value the region yields, defined outside it; None for a constant
    defined inside it."""
    block = op.region.block
    body = list(block.ops)
    value = body[-1].operands[0] if body and body[-1].operands else None
    inside = value is not None and (value.owner is block or (isinstance(value.owner, Operation) and value.owner.parent_op() is op))
    if value is not None and inside and isinstance(value.owner, arith.ConstantOp) and len(body) == 2:
        return None
    if value is None or inside:
        raise error_at(
            DifferentiationError, op,
            "differentiation of 'tensor.pad' needs a region that yields a constant or a value defined outside it",
        )  # fmt: skip
    return value


def _inner(builder: Builder, op: tensor.PadOp, padded: SSAValue) -> SSAValue:
    low, _ = _amounts(op)
    source_type = op.source.type
    assert isinstance(source_type, TensorType)
    shape = list(source_type.get_shape())
    return builder.insert(tensor.ExtractSliceOp.from_static_parameters(padded, low, shape)).result


def pad_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue], captured: Sequence[SSAValue]):
    assert isinstance(op, tensor.PadOp)
    (grad,) = grads
    padding = _padding_value(op)
    inner = _inner(builder, op, grad)
    gradients: list[SSAValue | None] = [inner] + [None] * (len(op.operands) - 1)
    for value in captured:
        if value is not padding:
            gradients.append(None)
            continue
        total = builder.insert(SumOp(grad, None, False)).result
        kept = builder.insert(SumOp(inner, None, False)).result
        rest = builder.insert(tensor.ExtractOp(total, [], value.type)).result
        taken = builder.insert(tensor.ExtractOp(kept, [], value.type)).result
        gradients.append(builder.insert(arith.SubfOp(rest, taken)).result)
    return gradients


def pad_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None], captured: Mapping[SSAValue, SSAValue]):
    assert isinstance(op, tensor.PadOp)
    low, high = _amounts(op)
    padding = _padding_value(op)
    source_tangent = tangents[0] if tangents[0] is not None else zero_constant(builder, op.source.type)
    padding_tangent = captured.get(padding) if padding is not None else None
    if padding_tangent is None:
        padding_tangent = zero_constant(builder, padding.type)
    block = Block(arg_types=[arg.type for arg in op.region.block.args])
    Builder(InsertPoint.at_end(block)).insert(tensor.YieldOp(padding_tangent))
    pad = tensor.PadOp(source_tangent, [], [], Region(block), low, high, op.result.type)  # type: ignore[arg-type]
    return [builder.insert(pad).result]


RULES = (
    DerivativeRule("tensor.pad", differentiable_inputs=(0,), saved_inputs=frozenset(), saved_outputs=frozenset(),
                   reverse=pad_vjp, forward=pad_jvp, captures=True),
)  # fmt: skip
