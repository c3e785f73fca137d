"""Rule of `autodiff.autograd_add` (a walk rule), met in code an earlier derivative made.

A sum of gradients is linear and needs no `grad_of`: in reverse mode its
result's gradient goes to both sides as it is; in forward mode the tangents of
the two sides are summed (one side's tangent when the other is zero).
"""
from __future__ import annotations

from xdsl.builder import Builder
from xdsl.ir import Operation
from xdsl.rewriter import InsertPoint

from gradir.autodiff_pass.ir_building import autograd_add
from gradir.autodiff_pass.rules.interface import ForwardContext, ReverseContext, WalkRule
from gradir.dialects.autodiff import AutogradAddOp


def reverse_autograd_add(walk: ReverseContext, op: Operation) -> None:
    assert isinstance(op, AutogradAddOp)
    gradient = walk.gradient(op.result)
    if gradient is not None:
        for operand in (op.a, op.b):
            if walk.activity.is_active(operand):
                walk.accumulate(operand, gradient)


def forward_autograd_add(walk: ForwardContext, op: Operation) -> None:
    assert isinstance(op, AutogradAddOp)
    present = [t for t in (walk.tangent(op.a), walk.tangent(op.b)) if t is not None]
    if len(present) == 2:
        builder = Builder(InsertPoint.after(op))
        walk.set_tangent(op.result, builder.insert(autograd_add(*present)).result)
    elif present:
        walk.set_tangent(op.result, present[0])


RULES = (
    WalkRule("autodiff.autograd_add", reverse=reverse_autograd_add, forward=forward_autograd_add, dynamic_shapes=True),
)
