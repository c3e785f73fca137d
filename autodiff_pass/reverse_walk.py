"""Reverse mode: the body of a generated `vjp` (and `grad`) function.

The `vjp` function first runs a copy of the callee (the primal), then walks
the active ops backwards (PyTorch's addReverseInline). Each active op gets one
`autodiff.grad_of` named after it: its operands are the gradients flowing into
the op's results (`autograd_zero` where none arrived), its region's arguments
stand for them, the op's derivative rule fills the region, and `autodiff.yield`
returns the gradients of the op's active inputs. Gradients meeting at a value
are summed with `autodiff.autograd_add`. Every op is differentiated by its
rule (`rules.get_rule`): a local rule's backward is wrapped in a `grad_of`
here; a walk rule (`scf.for`, `scf.if`, `func.call`, `autograd_add`) gets the
walk as its `ReverseContext` and emits its backward itself.

The function is left as the walk made it: cleaning it (PyTorch's Optimize:
CSE, which also lets backward code reuse the primal's values, then removal of
unread gradients and DCE) is the job of the passes that follow in every
pipeline (`autodiff-specialize-zero,cse,dce`), so it is not done twice. The
exception is a generated function that is differentiated again (grad of grad):
its derivative is built from its body, so
`derivative_functions.clean_for_differentiation` runs first. Constants are
rematerialised in the backward by `autodiff-split` rather than captured.

A derivatives.yaml rule emits the same backward for every op of the same
shape (class, operand and result types, properties, repeated operands), so the
first body emitted for such an op is kept as a template and later ones are
cloned from it with the op's operands, results and gradients substituted: the
same IR, without interpreting the formulas again (`BodyTemplates`; the
pass option `reuse-backward-bodies=false` turns it off).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, TensorType
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from gradir.autodiff_pass.activity import Activity, analyze_activity, carries_derivative
from gradir.autodiff_pass.derivative_functions import (
    DerivativeFunctions,
    DerivativeKey,
    HeldValues,
    copy_primal,
    display_name,
)
from gradir.autodiff_pass.ir_building import (
    autograd_add,
    clone_op,
    grad_of,
    yield_,
    zero_like,
)
from gradir.autodiff_pass.rules import DerivativeRule, get_rule
from gradir.autodiff_pass.lost_derivatives import refuse_lost_derivatives, refuse_unaccounted_captures
from gradir.autodiff_pass.rules.formula_rules import FormulaReverse
from gradir.errors import DifferentiationError, RuleError, error_at


class BodyTemplates:
    """Backward bodies already emitted by formula rules, by the shape of their op."""

    def __init__(self) -> None:
        self._templates: dict[
            tuple, tuple[Operation, Sequence[SSAValue], list[Operation], list[SSAValue | None]] | None
        ] = {}

    @staticmethod
    def key(op: Operation) -> tuple:
        operand_ids = [id(value) for value in op.operands]
        properties, attributes = op.properties, op.attributes
        return (
            type(op),
            tuple(value.type for value in op.operands),
            tuple(result.type for result in op.results),
            tuple(sorted(properties.items())) if properties else (),
            tuple(sorted(attributes.items())) if attributes else (),
            tuple(operand_ids.index(value) for value in operand_ids),  # which operands repeat
        )

    def instantiate(self, key: tuple, op: Operation, body: Block) -> list[SSAValue | None] | None:
        """Fill `body` from the template for `key`; None when there is none."""
        template = self._templates.get(key)
        if template is None:
            return None
        template_op, template_args, template_ops, template_grads = template
        mapping: dict[SSAValue, SSAValue] = dict(zip(template_op.operands, op.operands))
        mapping.update(zip(template_op.results, op.results))
        mapping.update(zip(template_args, body.args))
        for template_body_op in template_ops:
            body.add_op(clone_op(template_body_op, mapping))
        return [None if grad is None else mapping.get(grad, grad) for grad in template_grads]

    def record(self, key: tuple, op: Operation, body: Block, grads: list[SSAValue | None]) -> None:
        """Keep `body` as the template for `key` when it only reads the op's
        operands and results, its own arguments and values it defines."""
        if key in self._templates:
            return
        known = {*op.operands, *op.results, *body.args}
        for body_op in body.ops:
            if body_op.regions or body_op.successors or not all(value in known for value in body_op.operands):
                self._templates[key] = None  # never templated: emitted each time
                return
            known.update(body_op.results)
        if any(grad is not None and grad not in known for grad in grads):
            self._templates[key] = None
            return
        # the ops as emitted: the body is closed with a yield later
        self._templates[key] = (op, tuple(body.args), list(body.ops), list(grads))


@dataclass(frozen=True)
class ReverseOptions:
    """The options of `autodiff-reverse` that shape the backward (see `AutodiffReversePass`)."""

    checkpoint_every: int = 0
    reuse_backward_bodies: bool = True


class ReverseWalk:
    """The gradient map (value -> its gradient so far) and the backward
    emission; the `ReverseContext` walk rules receive."""

    def __init__(
        self,
        functions: DerivativeFunctions,
        activity: Activity,
        block: Block,
        options: ReverseOptions,
    ):
        self.functions = functions
        self.activity = activity
        self.block = block
        """The backward code is appended to this block."""
        self.options = options
        self.gradients: dict[SSAValue, SSAValue] = {}
        self.templates = BodyTemplates()

    @property
    def checkpoint_every(self) -> int:
        return self.options.checkpoint_every

    def gradient(self, value: SSAValue) -> SSAValue | None:
        return self.gradients.get(value)

    def accumulate(self, value: SSAValue, gradient: SSAValue) -> None:
        """Add `gradient` to the gradient of `value`."""
        previous = self.gradients.get(value)
        if previous is not None:
            add = autograd_add(previous, gradient)
            self.block.add_op(add)
            gradient = add.result
        self.gradients[value] = gradient

    def set_gradient(self, value: SSAValue, gradient: SSAValue) -> None:
        """Make `gradient` the gradient of `value` (it already holds the previous one)."""
        self.gradients[value] = gradient

    def gradient_or_zero(self, value: SSAValue) -> SSAValue:
        gradient = self.gradients.get(value)
        if gradient is None:
            gradient = zero_like(Builder(InsertPoint.at_end(self.block)), value)
        return gradient

    def visit(self, op: Operation) -> None:
        """Emit the backward of one active op, by its rule."""
        name = display_name(op)
        rule = get_rule(name)
        if rule is None:
            raise error_at(
                DifferentiationError, op, f"differentiation of '{name}' is not supported"
            )
        rule.reverse_in(self, op)

    def add_grad_of(
        self,
        name: str,
        op: Operation,
        output_grads: Sequence[SSAValue],
        body: Block,
        input_grads: Sequence[SSAValue | None],
        inputs: Sequence[SSAValue] | None = None,
    ) -> None:
        """Close `body` with a yield of the active inputs' gradients, wrap it in
        a `grad_of` and accumulate its results into the inputs' gradients
        (`inputs`: the op's operands unless given, e.g. with captured values)."""
        inputs = op.operands if inputs is None else inputs
        if len(input_grads) != len(inputs):
            raise error_at(
                RuleError,
                op,
                f"the reverse rule of '{name}' returned {len(input_grads)} gradients "
                f"for {len(inputs)} inputs",
            )
        kept = [
            (operand, grad)
            for operand, grad in zip(inputs, input_grads, strict=True)
            if grad is not None and self.activity.is_active(operand)
        ]
        body.add_op(yield_([grad for _, grad in kept]))
        op_grad = grad_of(name, output_grads, [grad.type for _, grad in kept], Region(body), op.location)
        self.block.add_op(op_grad)
        for (operand, _), result in zip(kept, op_grad.results):
            self.accumulate(operand, result)

    def apply_local_rule(self, rule: DerivativeRule, op: Operation) -> None:
        captured = self.activity.captured_values(op)
        refuse_unaccounted_captures(rule, op, captured)
        if not any(result in self.gradients for result in op.results):
            return  # linear: no gradient in, no gradient out
        name = display_name(op)
        # Results that cannot carry a gradient (an arg-max's integer index beside
        # the max) get no block argument: the rule sees None in their place.
        carried = [result for result in op.results if carries_derivative(result)]
        output_grads = [self.gradient_or_zero(result) for result in carried]
        body = Block(arg_types=[grad.type for grad in output_grads])
        for argument in body.args:
            argument.name_hint = "grad"
        arguments = iter(body.args)
        result_grads = [next(arguments) if carries_derivative(result) else None for result in op.results]
        templated = self.options.reuse_backward_bodies and isinstance(rule.reverse, FormulaReverse)
        key = BodyTemplates.key(op) if templated else None
        input_grads = self.templates.instantiate(key, op, body) if templated else None
        if input_grads is None:
            input_grads = list(
                rule.emit_vjp(
                    Builder(InsertPoint.at_end(body)), op, result_grads, captured,
                    [self.activity.is_active(operand) for operand in op.operands],
                )
            )
            if templated:
                self.templates.record(key, op, body, input_grads)
        self.add_grad_of(name, op, output_grads, body, input_grads, [*op.operands, *captured])

    def reverse_ops(
        self,
        block: Block,
        ops: Sequence[Operation],
        independents: Sequence[SSAValue],
        seeds: Sequence[tuple[SSAValue, SSAValue]],
    ) -> Mapping[SSAValue, SSAValue]:
        """Reverse `ops` (ops of `block`) by a walk of their own, seeded with
        (value, gradient) pairs; backward code is appended to `block`."""
        activity = analyze_activity(block, independents, [value for value, _ in seeds])
        sub = ReverseWalk(self.functions, activity, block, self.options)
        for value, gradient in seeds:
            if activity.is_active(value):
                sub.accumulate(value, gradient)
        for op in reversed(ops):
            if activity.is_active_op(op):
                sub.visit(op)
        return sub.gradients


def build_vjp_body(
    functions: DerivativeFunctions,
    callee: FuncOp,
    function: FuncOp,
    key: DerivativeKey,
    options: ReverseOptions = ReverseOptions(),
) -> None:
    """Fill `function` (arguments: callee's, then one cotangent per result in
    `key.results`) with the primal followed by the reverse walk; it returns the
    callee's results, then the gradients of the `key.wrt` arguments."""
    block = function.body.block
    argument_count = len(callee.function_type.inputs.data)
    arguments, cotangents = block.args[:argument_count], block.args[argument_count:]
    returned = copy_primal(callee, block, arguments)
    held = HeldValues(returned)  # a loop's rule may rebuild the loop returning one

    wrt_arguments = [arguments[index] for index in key.wrt]
    differentiated_results = [returned[index] for index in key.results]
    activity = analyze_activity(block, wrt_arguments, differentiated_results)
    refuse_lost_derivatives(block, activity)
    active_ops = activity.active_ops(block)

    walk = ReverseWalk(functions, activity, block, options)
    for value, cotangent in zip(differentiated_results, cotangents, strict=True):
        if activity.is_active(value):
            walk.accumulate(value, cotangent)
    for op in reversed(active_ops):
        walk.visit(op)
    gradients = [walk.gradient_or_zero(argument) for argument in wrt_arguments]
    block.add_op(ReturnOp(*held.release(), *gradients))


def build_grad_body(
    functions: DerivativeFunctions, callee: FuncOp, function: FuncOp, key: DerivativeKey
) -> None:
    """Fill `function` with: seed 1, call the vjp function, return the gradients."""
    callee_vjp = functions.vjp(callee, key.wrt)
    block = function.body.block
    (loss_type,) = callee.function_type.outputs.data
    if isinstance(loss_type, TensorType):
        seed = ConstantOp(DenseIntOrFPElementsAttr.from_list(loss_type, [1.0]))
    else:
        seed = ConstantOp(FloatAttr(1.0, loss_type))
    call = CallOp(
        callee_vjp.sym_name.data,
        [*block.args, seed.result],
        list(callee_vjp.function_type.outputs.data),
    )
    block.add_ops([seed, call, ReturnOp(*call.results[1:])])
