"""Forward mode: the body of a generated `jvp` function.

The function runs a copy of the callee and, right after each active op, the
op's tangent code on the tangents of its inputs. A missing tangent is zero and
stays symbolic (`None`) until a result needs one, where it becomes
`autodiff.autograd_zero`. Every op is differentiated by its rule
(`rules.get_rule`): a local rule's tangent formula (`rule.emit_jvp`) is
applied here; a walk rule gets the walk as its `ForwardContext` and may
rebuild the op (`scf.for`/`scf.if` gain tangent results, a `func.call` becomes
a call of the callee's jvp function). CSE and DCE clean up afterwards.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.builder import Builder
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from gradir.autodiff_pass.activity import Activity, analyze_activity
from gradir.autodiff_pass.cse import scoped_cse
from gradir.autodiff_pass.derivative_functions import (
    DerivativeFunctions,
    DerivativeKey,
    copy_primal,
    display_name,
)
from gradir.autodiff_pass.ir_building import erase_dead_code, locate_tangent_ops, zero_like
from gradir.autodiff_pass.rules import DerivativeRule, get_rule
from gradir.autodiff_pass.lost_derivatives import refuse_lost_derivatives, refuse_unaccounted_captures
from gradir.errors import DifferentiationError, RuleError, error_at


class ForwardWalk:
    """The tangent map (value -> tangent) and the tangent emission; the
    `ForwardContext` walk rules receive."""

    def __init__(self, functions: DerivativeFunctions, activity: Activity):
        self.functions = functions
        self.activity = activity
        self.tangents: dict[SSAValue, SSAValue] = {}
        self.primal_replacements: dict[SSAValue, SSAValue] = {}
        """Results of replaced ops -> the values that replaced them."""

    def tangent(self, value: SSAValue) -> SSAValue | None:
        return self.tangents.get(value)

    def set_tangent(self, value: SSAValue, tangent: SSAValue) -> None:
        self.tangents[value] = tangent

    def tangent_or_zero(self, value: SSAValue, builder: Builder) -> SSAValue:
        tangent = self.tangents.get(value)
        if tangent is None:
            tangent = zero_like(builder, value)
        return tangent

    def visit(self, op: Operation) -> None:
        """Emit the tangents of one active op right after it, by its rule."""
        name = display_name(op)
        rule = get_rule(name)
        if rule is None:
            raise error_at(
                DifferentiationError, op, f"differentiation of '{name}' is not supported"
            )
        rule.forward_in(self, op)

    def apply_local_rule(self, rule: DerivativeRule, op: Operation) -> None:
        captured = self.activity.captured_values(op)
        refuse_unaccounted_captures(rule, op, captured)
        input_tangents = [
            self.tangents.get(value) if self.activity.is_active(value) else None
            for value in op.operands
        ]
        captured_tangents = {
            value: tangent for value in captured if (tangent := self.tangents.get(value)) is not None
        }
        if all(tangent is None for tangent in input_tangents) and not captured_tangents:
            return  # linear: zero tangents in, zero tangents out
        builder = Builder(InsertPoint.after(op))
        following = op.next_op
        output_tangents = list(rule.emit_jvp(builder, op, input_tangents, captured_tangents))
        locate_tangent_ops(op, display_name(op), following)
        if len(output_tangents) != len(op.results):
            raise error_at(
                RuleError,
                op,
                f"the forward rule of '{display_name(op)}' returned {len(output_tangents)} "
                f"tangents for {len(op.results)} results",
            )
        for result, tangent in zip(op.results, output_tangents):
            if tangent is not None:
                self.tangents[result] = tangent

    def replace(self, op: Operation, values: Sequence[SSAValue]) -> None:
        for old, new in zip(op.results, values, strict=True):
            self.primal_replacements[old] = new
            self.activity.replace(old, new)
        Rewriter.replace_op(op, [], list(values))

    def differentiate_block(
        self,
        block: Block,
        seeds: Mapping[SSAValue, SSAValue],
        dependents: Sequence[SSAValue],
    ) -> list[SSAValue | None]:
        activity = analyze_activity(block, list(seeds), dependents)
        sub = ForwardWalk(self.functions, activity)
        sub.tangents.update(seeds)
        for op in activity.active_ops(block):
            sub.visit(op)
        return [sub.tangents.get(sub.primal_replacements.get(v, v)) for v in dependents]


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
    refuse_lost_derivatives(block, activity)

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
