"""Rule of `func.call` (a walk rule): the callee's own derivative function.

Reverse mode: a `grad_of "func.call"` whose body calls the callee's vjp
function, generated once per callee, active arguments and results that have
gradients (`DerivativeFunctionTable.vjp`). Forward mode: the call is replaced
by one to the callee's jvp function, which returns the primal results too.
A callee without a body, or not a function of the module, is a located error.
"""
from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects.func import CallOp
from xdsl.ir import Block, Operation
from xdsl.rewriter import InsertPoint

from gradir.autodiff_pass.rules.interface import ForwardContext, ReverseContext, WalkRule


def reverse_call(walk: ReverseContext, op: Operation) -> None:
    assert isinstance(op, CallOp)
    callee = walk.functions.callee(op, op.callee)
    active = [i for i, value in enumerate(op.arguments) if walk.activity.is_active(value)]
    seeded = [i for i, result in enumerate(op.results) if walk.gradient(result) is not None]
    if not seeded:
        return
    callee_vjp = walk.functions.vjp(callee, active, seeded)
    output_grads = [walk.gradient_or_zero(op.results[i]) for i in seeded]
    body = Block(arg_types=[grad.type for grad in output_grads])
    for argument in body.args:
        argument.name_hint = "grad"
    call = CallOp(
        callee_vjp.sym_name.data,
        [*op.arguments, *body.args],
        list(callee_vjp.function_type.outputs.data),
    )
    body.add_op(call)
    callee_grads = iter(call.results[len(op.results) :])
    input_grads = [next(callee_grads) if i in active else None for i in range(len(op.operands))]
    walk.add_grad_of("func.call", op, output_grads, body, input_grads)


def forward_call(walk: ForwardContext, op: Operation) -> None:
    assert isinstance(op, CallOp)
    builder = Builder(InsertPoint.after(op))
    callee = walk.functions.callee(op, op.callee)
    active = [i for i, value in enumerate(op.arguments) if walk.activity.is_active(value)]
    needed = [i for i, result in enumerate(op.results) if walk.activity.is_active(result)]
    callee_jvp = walk.functions.jvp(callee, active, needed)
    argument_tangents = [walk.tangent_or_zero(op.arguments[i], builder) for i in active]
    call = builder.insert(
        CallOp(
            callee_jvp.sym_name.data,
            [*op.arguments, *argument_tangents],
            list(callee_jvp.function_type.outputs.data),
        )
    )
    call.location = op.location
    primal_results = call.results[: len(op.results)]
    for index, tangent in zip(needed, call.results[len(op.results) :]):
        walk.set_tangent(primal_results[index], tangent)
    walk.replace(op, list(primal_results))


RULES = (WalkRule("func.call", reverse=reverse_call, forward=forward_call, dynamic_shapes=True),)
