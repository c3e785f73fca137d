"""Forward mode: the body of a generated `jvp` function.

The function runs a copy of the callee and, right after each active op, the
op's tangent formula (`rule.emit_jvp`) on the tangents of its inputs. A missing
tangent is zero and stays symbolic (`None`) until a result needs one, where it
becomes `autodiff.autograd_zero`. A differentiated `func.call` is replaced by a
call to the callee's own `jvp` function (per callee and active arguments),
which returns the primal results too. `autograd_add` left by an earlier
derivative adds tangents the same way. CSE and DCE clean up afterwards.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.builder import Builder
from xdsl.dialects import scf
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from gradir.autodiff_pass import registry
from gradir.autodiff_pass.activity import Activity, analyze_activity
from gradir.autodiff_pass.control_flow_forward import forward_for, forward_if
from gradir.autodiff_pass.derivative_functions import copy_primal, display_name
from gradir.autodiff_pass.ir_building import autograd_add, autograd_zero, erase_dead_code
from gradir.autodiff_pass.scoped_cse import scoped_cse
from gradir.dialects.autodiff import AutogradAddOp
from gradir.errors import DifferentiationError, RuleError, error_at

if TYPE_CHECKING:
    from gradir.autodiff_pass.derivative_functions import DerivativeFunctions, DerivativeKey


class ForwardWalk:
    """The tangent map (value -> tangent) and the tangent emission."""

    def __init__(self, functions: DerivativeFunctions, activity: Activity):
        self.functions = functions
        self.activity = activity
        self.tangents: dict[SSAValue, SSAValue] = {}
        self.primal_replacements: dict[SSAValue, SSAValue] = {}
        """Results of replaced calls -> the same values returned by the jvp calls."""

    def tangent_or_zero(self, value: SSAValue, builder: Builder) -> SSAValue:
        tangent = self.tangents.get(value)
        if tangent is None:
            tangent = builder.insert(autograd_zero(value.type)).result
        return tangent

    def visit(self, op: Operation) -> None:
        """Emit the tangents of one active op right after it."""
        builder = Builder(InsertPoint.after(op))
        if isinstance(op, AutogradAddOp):
            self._visit_autograd_add(op, builder)
        elif isinstance(op, CallOp):
            self._visit_call(op, builder)
        elif isinstance(op, scf.ForOp):
            forward_for(self, op)
        elif isinstance(op, scf.IfOp):
            forward_if(self, op)
        else:
            self._visit_with_rule(op, builder)

    def _visit_autograd_add(self, op: AutogradAddOp, builder: Builder) -> None:
        present = [t for t in (self.tangents.get(op.a), self.tangents.get(op.b)) if t is not None]
        if len(present) == 2:
            self.tangents[op.result] = builder.insert(autograd_add(*present)).result
        elif present:
            self.tangents[op.result] = present[0]

    def _visit_with_rule(self, op: Operation, builder: Builder) -> None:
        name = display_name(op)
        rule = registry.get_rule(name)
        if rule is None:
            raise error_at(
                DifferentiationError, op, f"differentiation of '{name}' is not supported"
            )
        input_tangents = [
            self.tangents.get(value) if self.activity.is_active(value) else None
            for value in op.operands
        ]
        if all(tangent is None for tangent in input_tangents):
            return  # linear: zero tangents in, zero tangents out
        output_tangents = list(rule.emit_jvp(builder, op, input_tangents))
        if len(output_tangents) != len(op.results):
            raise error_at(
                RuleError,
                op,
                f"the forward rule of '{name}' returned {len(output_tangents)} tangents "
                f"for {len(op.results)} results",
            )
        for result, tangent in zip(op.results, output_tangents):
            if tangent is not None:
                self.tangents[result] = tangent

    def _visit_call(self, op: CallOp, builder: Builder) -> None:
        """Replace the call by one to the callee's jvp function, made for the
        active arguments and the results whose tangents are needed."""
        callee = self.functions.callee(op, op.callee)
        active = [i for i, value in enumerate(op.arguments) if self.activity.is_active(value)]
        needed = [i for i, result in enumerate(op.results) if self.activity.is_active(result)]
        callee_jvp = self.functions.jvp(callee, active, needed)
        argument_tangents = [self.tangent_or_zero(op.arguments[i], builder) for i in active]
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
            self.tangents[primal_results[index]] = tangent
        for old, new in zip(op.results, primal_results):
            self.primal_replacements[old] = new
            self.activity.replace(old, new)
        Rewriter.replace_op(op, [], primal_results)


def build_jvp_body(
    functions: DerivativeFunctions, callee: FuncOp, function: FuncOp, key: DerivativeKey
) -> None:
    """Fill `function` (arguments: callee's, then one tangent per `key.wrt`
    argument) with the primal interleaved with tangent code; it returns the
    callee's results, then the tangents of the `key.results` results."""
    block = function.body.block
    argument_count = len(callee.function_type.inputs.data)
    arguments, argument_tangents = block.args[:argument_count], block.args[argument_count:]
    returned = copy_primal(callee, block, arguments)

    wrt_arguments = [arguments[index] for index in key.wrt]
    activity = analyze_activity(block, wrt_arguments, [returned[i] for i in key.results])

    walk = ForwardWalk(functions, activity)
    walk.tangents.update(zip(wrt_arguments, argument_tangents, strict=True))
    for op in activity.active_ops(block):
        walk.visit(op)
    returned = [walk.primal_replacements.get(value, value) for value in returned]
    differentiated_results = [returned[index] for index in key.results]
    end = Builder(InsertPoint.at_end(block))
    result_tangents = [walk.tangent_or_zero(value, end) for value in differentiated_results]
    block.add_op(ReturnOp(*returned, *result_tangents))
    scoped_cse(function)
    erase_dead_code(function.body.block)
