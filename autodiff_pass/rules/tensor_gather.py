"""Derivative rules of `tensor.gather` and `tensor.scatter` (built-in Python rules,
loaded by the registry through `RULES`). Both are linear in their float
operands; the index tensor carries no derivative.

- gather: the tangent is the gather of the source's tangent; the gradient adds
  each gathered slice's gradient back at its coordinates in a zero source,
  repeated coordinates summed (`scatter_as_generic` with `accumulate`: a
  reduction generic over the source and the batch dims, differentiable again).
- scatter (MLIR requires `unique` coordinates): the tangent is the scatter of
  the tangents; the source's gradient is the gather of the result's gradient at
  the same coordinates, the destination's is the result's gradient with the
  scattered slices zeroed (a scatter of zeros into it).
"""
from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.ir import Operation, SSAValue

from gradir.autodiff_pass.ir_building import zero_constant
from gradir.autodiff_pass.rules.interface import DerivativeRule
from gradir.dialects.mlir22_ops import GatherOp, ScatterOp
from gradir.lowering.standard_ops import scatter_as_generic


def gather_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    assert isinstance(op, GatherOp)
    zeros = zero_constant(builder, op.source.type)
    dims = tuple(op.gather_dims.get_values())
    summed = builder.insert(scatter_as_generic(builder, grads[0], zeros, op.indices, dims, accumulate=True))
    return [summed.results[0], None]


def gather_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    assert isinstance(op, GatherOp)
    if tangents[0] is None:
        return [None]
    dims = tuple(op.gather_dims.get_values())
    gather = GatherOp(tangents[0], op.indices, dims, op.result.type, op.unique is not None)
    return [builder.insert(gather).result]


def scatter_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    assert isinstance(op, ScatterOp)
    (grad,) = grads
    dims = tuple(op.scatter_dims.get_values())
    source_gradient = builder.insert(GatherOp(grad, op.indices, dims, op.source.type, unique=True))
    zeros = zero_constant(builder, op.source.type)
    dest_gradient = builder.insert(ScatterOp(zeros, grad, op.indices, dims, op.dest.type))
    return [source_gradient.result, dest_gradient.result, None]


def scatter_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    assert isinstance(op, ScatterOp)
    source, dest = tangents[0], tangents[1]
    if source is None and dest is None:
        return [None]
    source = source if source is not None else zero_constant(builder, op.source.type)
    dest = dest if dest is not None else zero_constant(builder, op.dest.type)
    dims = tuple(op.scatter_dims.get_values())
    return [builder.insert(ScatterOp(source, dest, op.indices, dims, op.result.type)).result]


RULES = (
    DerivativeRule(
        "tensor.gather",
        differentiable_inputs=(0,),
        saved_inputs=frozenset({1}),  # the coordinates
        saved_outputs=frozenset(),
        reverse=gather_vjp,
        forward=gather_jvp,
    ),
    DerivativeRule(
        "tensor.scatter",
        differentiable_inputs=(0, 1),
        saved_inputs=frozenset({2}),
        saved_outputs=frozenset(),
        reverse=scatter_vjp,
        forward=scatter_jvp,
    ),
)
