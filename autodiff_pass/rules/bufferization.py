"""Derivative rules of the `bufferization` ops front ends emit on tensors (built-in
Python rules, loaded by the registry through `RULES`).

- `alloc_tensor` is a fresh tensor, like `tensor.empty`: no derivative, no
  rule needed, unless it is a copy (`copy(%t)`), which is the identity on `%t`.
- `to_tensor` reads a memref. gradir differentiates values, not memory, and a
  memref is never differentiated (`wrt` names only tensors and float scalars),
  so its result carries no derivative: it is a constant of the differentiated
  function, like an `arith.constant`, and needs no rule.
- `materialize_in_destination` into a tensor gives the source's value: the
  identity on the source (the destination's old value is overwritten). Into a
  memref it writes memory, and is refused like a store of an active value
  (`lost_derivatives`).
- `to_buffer` of an active tensor is refused there too: what is written through
  the buffer and read back would lose its derivative.
"""
from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import bufferization
from xdsl.ir import Operation, SSAValue

from gradir.autodiff_pass.rules.interface import DerivativeRule


def _copy_position(op: Operation) -> int:
    assert isinstance(op, bufferization.AllocTensorOp)
    return next(k for k, value in enumerate(op.operands) if value is op.copy)


def alloc_tensor_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    gradients: list[SSAValue | None] = [None] * len(op.operands)
    if isinstance(op, bufferization.AllocTensorOp) and op.copy is not None:
        gradients[_copy_position(op)] = grads[0]
    return gradients


def alloc_tensor_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    if not isinstance(op, bufferization.AllocTensorOp) or op.copy is None:
        return [None]
    return [tangents[_copy_position(op)]]


def materialize_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    return [grads[0], None]


def materialize_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    return [tangents[0]]


RULES = (
    DerivativeRule(
        "bufferization.alloc_tensor",
        saved_inputs=frozenset(),
        saved_outputs=frozenset(),
        reverse=alloc_tensor_vjp,
        forward=alloc_tensor_jvp,
    ),
    DerivativeRule(
        "bufferization.materialize_in_destination",
        differentiable_inputs=(0,),
        saved_inputs=frozenset(),
        saved_outputs=frozenset(),
        reverse=materialize_vjp,
        forward=materialize_jvp,
    ),
)
