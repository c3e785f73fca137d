"""What a derivative rule is, and what the walks offer the rules that need them.

Every differentiable op has one rule in the table (`registry.get_rule`), of one
of two kinds; the walks (`reverse_walk`, `forward_walk`) call every rule the
same way, `rule.reverse_in(walk, op)` / `rule.forward_in(walk, op)`:

* `DerivativeRule`: a *local* rule, a function of the op, the gradients of its
  results (reverse) or the tangents of its operands (forward); most rules are
  this kind (derivatives.yaml formulas, `register_vjp`/`register_jvp`, linalg
  and tensor ops). The walk wraps its backward in an `autodiff.grad_of` and
  sums the gradients it returns (`ReverseContext.apply_local_rule`).
* `WalkRule`: a rule that takes part in the walk: it receives the walk as a
  `ReverseContext` / `ForwardContext` and reads and adds gradients or tangents
  itself. Control flow (`scf.for`, `scf.if`: they differentiate their bodies
  with the walk), `func.call` (the callee's derivative function) and
  `autodiff.autograd_add` (passes its gradient through) are walk rules.

The contexts are protocols so that rule modules never import the walks. A
walk rule may add gradients (`accumulate`) or tangents (`set_tangent`) to any
value, not only to the op's operands: that is how a region op returns the
gradients of the values its regions read from outside (captured values, see
`scf.captured_values`).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from xdsl.builder import Builder
from xdsl.dialects.builtin import SymbolRefAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, SSAValue

from gradir.autodiff_pass.activity import Activity, carries_derivative
from gradir.autodiff_pass.rules.formula import FormulaError
from gradir.dialects.type_checks import dynamic_dims
from gradir.errors import DifferentiationError, GradirError, RuleError, error_at

ReverseRule = Callable[[Builder, Operation, Sequence[SSAValue]], Sequence[SSAValue | None]]
"""`rule(builder, op, output_grads) -> one gradient (or None) per operand`."""
ForwardRule = Callable[[Builder, Operation, Sequence[SSAValue | None]], Sequence[SSAValue | None]]
"""`rule(builder, op, input_tangents) -> one tangent (or None) per result`;
a None input tangent is zero."""


# ----------------------------------------------------------------------------
# What the walks offer
# ----------------------------------------------------------------------------


class DerivativeFunctionTable(Protocol):
    """The generated derivative functions of the module (`derivative_functions`)."""

    def callee(self, user: Operation, symbol: SymbolRefAttr) -> FuncOp:
        """The function `user` calls; errors are located at `user`."""
        ...

    def vjp(
        self, callee: FuncOp, wrt: Sequence[int], results: Sequence[int] | None = None
    ) -> FuncOp:
        """The vjp function of `callee` for `wrt` and the differentiated `results`."""
        ...

    def jvp(
        self, callee: FuncOp, wrt: Sequence[int], results: Sequence[int] | None = None
    ) -> FuncOp:
        """The jvp function of `callee` for `wrt` and the differentiated `results`."""
        ...


class ReverseContext(Protocol):
    """The reverse walk, as a rule sees it: the gradient map of the walked
    block and the block the backward code is appended to."""

    activity: Activity
    """Which values of the walked block are active."""
    functions: DerivativeFunctionTable
    block: Block
    """Backward code is appended to this block."""

    @property
    def checkpoint_every(self) -> int:
        """`autodiff-reverse{checkpoint-every=k}`: loops save their state every k
        iterations and recompute the rest (0: cache every iteration)."""
        ...

    def gradient(self, value: SSAValue) -> SSAValue | None:
        """The gradient of `value` so far; None when none reached it."""
        ...

    def gradient_or_zero(self, value: SSAValue) -> SSAValue:
        """The gradient of `value`, an `autograd_zero` when none reached it."""
        ...

    def accumulate(self, value: SSAValue, gradient: SSAValue) -> None:
        """Add `gradient` to the gradient of `value` (any value of the walked
        block or around it: an operand or a value captured by a region)."""
        ...

    def set_gradient(self, value: SSAValue, gradient: SSAValue) -> None:
        """Make `gradient` the gradient of `value`: a sum that already holds the
        gradient so far (a reversed loop that started summing from it)."""
        ...

    def apply_local_rule(self, rule: DerivativeRule, op: Operation) -> None:
        """The backward of `op` by a local rule, wrapped in a `grad_of`."""
        ...

    def add_grad_of(
        self,
        name: str,
        op: Operation,
        output_grads: Sequence[SSAValue],
        body: Block,
        input_grads: Sequence[SSAValue | None],
    ) -> None:
        """Close `body` (its arguments stand for `output_grads`) with a yield of
        the active operands' `input_grads`, wrap it in a `grad_of` named
        `name` and accumulate its results into the operands' gradients."""
        ...

    def reverse_ops(
        self,
        block: Block,
        ops: Sequence[Operation],
        independents: Sequence[SSAValue],
        seeds: Sequence[tuple[SSAValue, SSAValue]],
    ) -> Mapping[SSAValue, SSAValue]:
        """Differentiate `ops` (ops of `block`, e.g. a copy of a region's body)
        backwards with respect to `independents`, seeded with (value, gradient)
        pairs, by a walk of its own that appends to `block`; returns its
        gradient map."""
        ...


class ForwardContext(Protocol):
    """The forward walk, as a rule sees it: the tangent map of the walked block."""

    activity: Activity
    """Which values of the walked block are active."""
    functions: DerivativeFunctionTable

    def tangent(self, value: SSAValue) -> SSAValue | None:
        """The tangent of `value`; None means zero."""
        ...

    def tangent_or_zero(self, value: SSAValue, builder: Builder) -> SSAValue:
        """The tangent of `value`, an `autograd_zero` inserted with `builder` when zero."""
        ...

    def set_tangent(self, value: SSAValue, tangent: SSAValue) -> None:
        """Record the tangent of `value` (a result, or a value captured by a region)."""
        ...

    def apply_local_rule(self, rule: DerivativeRule, op: Operation) -> None:
        """The tangents of `op`'s results by a local rule, inserted after `op`."""
        ...

    def replace(self, op: Operation, values: Sequence[SSAValue]) -> None:
        """Replace `op` (already differentiated) by `values`, one per result,
        which take over its results' activity and tangents."""
        ...

    def differentiate_block(
        self,
        block: Block,
        seeds: Mapping[SSAValue, SSAValue],
        dependents: Sequence[SSAValue],
    ) -> list[SSAValue | None]:
        """Add tangent code after each active op of `block`, seeded with
        (value -> tangent) pairs, by a walk of its own; returns the tangents of
        `dependents` (values of `block`, as they are after that walk replaced
        ops), None for zero."""
        ...


# ----------------------------------------------------------------------------
# The two kinds of rules
# ----------------------------------------------------------------------------


@dataclass
class DerivativeRule:
    """A local rule: how to differentiate one op, in reverse mode, forward mode or both.

    For Python rules registered without declarations, `differentiable_inputs`,
    `saved_inputs` and `saved_outputs` are None, meaning "all"; the
    `differentiates`/`saves_input`/`saves_output` methods read them either way.
    """

    op_name: str
    input_names: tuple[str, ...] = ()
    differentiable_inputs: tuple[int, ...] | None = None
    """Operand indices that receive gradients."""
    saved_inputs: frozenset[int] | None = None
    """Operand indices the reverse rule reads (beyond their static shapes)."""
    saved_outputs: frozenset[int] | None = None
    """Result indices the reverse rule reads."""
    reverse: ReverseRule | None = field(default=None, repr=False)
    forward: ForwardRule | None = field(default=None, repr=False)
    captures: bool = False
    """For an op with regions: whether the rule accounts for the active values
    its regions read from outside (captured values). Its reverse is then
    `rule(builder, op, output_grads, captured)` and returns one gradient per
    operand, then one per value of `captured`; its forward is
    `rule(builder, op, input_tangents, captured_tangents)` with a dict
    captured value -> tangent. The walks refuse an op whose regions read an
    active outer value unless its rule says it accounts for them: a derivative
    is never silently dropped."""
    reads_operand_activity: bool = False
    """Whether its reverse also takes `active_operands`, one bool per operand: whether
    the operand carries a derivative here. A rule that differentiates code of its own
    (a `linalg.generic`'s body) then leaves an inactive operand's part undifferentiated,
    so an op there with no derivative (a bitcast of a constant's bits) is no refusal."""

    dynamic_shapes: bool = False
    """Whether the rule takes tensors of dynamic shape (`tensor<?x4xf32>`): it gives the
    sizes of what it builds from the op's values. Any other rule refuses such an op, where
    it is, rather than build tensors of the wrong type."""

    def reverse_in(self, walk: ReverseContext, op: Operation) -> None:
        """Differentiate `op` in reverse mode: the walk wraps `emit_vjp` in a `grad_of`."""
        refuse_dynamic_shapes(op, self.dynamic_shapes)
        walk.apply_local_rule(self, op)

    def forward_in(self, walk: ForwardContext, op: Operation) -> None:
        """Differentiate `op` in forward mode: the walk inserts `emit_jvp` after it."""
        refuse_dynamic_shapes(op, self.dynamic_shapes)
        walk.apply_local_rule(self, op)

    def differentiates(self, index: int) -> bool:
        return self.differentiable_inputs is None or index in self.differentiable_inputs

    def saves_input(self, index: int) -> bool:
        return self.saved_inputs is None or index in self.saved_inputs

    def saves_output(self, index: int) -> bool:
        return self.saved_outputs is None or index in self.saved_outputs

    def emit_vjp(
        self,
        builder: Builder,
        op: Operation,
        output_grads: Sequence[SSAValue | None],
        captured: Sequence[SSAValue] = (),
        active_operands: Sequence[bool] | None = None,
    ) -> list[SSAValue | None]:
        """Insert the backward of `op` with `builder`; one gradient per operand
        (None for an operand that gets none), then one per `captured` value
        (only for rules that account for captured values). `output_grads` has
        None for a result that cannot carry a gradient (an integer).
        `active_operands` (default: every float operand) reaches rules that read it."""
        if self.reverse is None:
            raise error_at(
                DifferentiationError,
                op,
                f"reverse-mode differentiation of '{self.op_name}' is not supported "
                "(it has only a forward rule)",
            )
        if len(output_grads) != len(op.results):
            raise error_at(
                RuleError,
                op,
                f"'{self.op_name}' has {len(op.results)} results but got "
                f"{len(output_grads)} output gradients",
            )
        extra = (captured,) if self.captures else ()
        if self.reads_operand_activity:
            if active_operands is None:
                active_operands = [carries_derivative(operand) for operand in op.operands]
            extra = (*extra, list(active_operands))
        grads = self._run(self.reverse, "reverse", builder, op, output_grads, extra, len(captured))
        grads = [
            grad if i >= len(op.operands) or self.differentiates(i) else None
            for i, grad in enumerate(grads)
        ]
        _check_types(op, self.op_name, "reverse", "gradient", grads, [*op.operands, *captured])
        return grads

    def emit_jvp(
        self,
        builder: Builder,
        op: Operation,
        input_tangents: Sequence[SSAValue | None],
        captured_tangents: Mapping[SSAValue, SSAValue] | None = None,
    ) -> list[SSAValue | None]:
        """Insert the tangent computation of `op`; one tangent per result
        (None: zero). A None input tangent is zero; all None (and no captured
        tangent) gives all None."""
        if self.forward is None:
            raise error_at(
                DifferentiationError,
                op,
                f"forward-mode differentiation of '{self.op_name}' is not supported "
                "(it has only a reverse rule)",
            )
        if len(input_tangents) != len(op.operands):
            raise error_at(
                RuleError,
                op,
                f"'{self.op_name}' has {len(op.operands)} operands but got "
                f"{len(input_tangents)} input tangents",
            )
        captured_tangents = dict(captured_tangents or {})
        if all(tangent is None for tangent in input_tangents) and not captured_tangents:
            return [None] * len(op.results)
        extra = (captured_tangents,) if self.captures else ()
        tangents = self._run(self.forward, "forward", builder, op, input_tangents, extra)
        _check_types(op, self.op_name, "forward", "tangent", tangents, op.results)
        return tangents

    def _run(
        self,
        rule: Callable[..., Sequence[SSAValue | None]],
        direction: str,
        builder: Builder,
        op: Operation,
        values: Sequence[SSAValue | None],
        extra: tuple = (),
        captured_count: int = 0,
    ) -> list[SSAValue | None]:
        try:
            returned = rule(builder, op, values, *extra)
        except FormulaError as error:
            raise error_at(RuleError, op, f"the {direction} rule of '{self.op_name}': {error}")
        except GradirError:
            raise
        except Exception as error:  # a registered rule's own bug: name it, chain it
            detail = " ".join(str(error).split())
            raise error_at(
                RuleError,
                op,
                f"the {direction} rule of '{self.op_name}' ({_rule_name(rule)}) raised "
                f"{type(error).__name__}" + (f": {detail}" if detail else ""),
            ) from error
        what = "gradient" if direction == "reverse" else "tangent"
        if isinstance(returned, (SSAValue, Operation, str, bytes)) or not isinstance(returned, Iterable):
            raise error_at(
                RuleError,
                op,
                f"the {direction} rule of '{self.op_name}' ({_rule_name(rule)}) returned "
                f"{_describe(returned)}, expected a list of one {what} (an SSA value) or None per "
                + ("operand" if direction == "reverse" else "result"),
            )
        produced = list(returned)
        for index, value in enumerate(produced):
            if value is not None and not isinstance(value, SSAValue):
                raise error_at(
                    RuleError,
                    op,
                    f"the {direction} rule of '{self.op_name}' ({_rule_name(rule)}) returned "
                    f"{_describe(value)} as {what} #{index}, expected an SSA value or None",
                )
        expected = len(op.operands) + captured_count if direction == "reverse" else len(op.results)
        if len(produced) != expected:
            what = "gradients for" if direction == "reverse" else "tangents for"
            counted = "operands" if direction == "reverse" else "results"
            raise error_at(
                RuleError,
                op,
                f"the {direction} rule of '{self.op_name}' ({_rule_name(rule)}) returned "
                f"{len(produced)} {what} {expected} {counted}",
            )
        return produced


def _rule_name(rule: Callable) -> str:
    """How a rule function is named in messages (`module.function`)."""
    name = getattr(rule, "__qualname__", None) or type(rule).__name__
    module = getattr(rule, "__module__", None)
    return f"{module}.{name}" if module else name


def _describe(value: object) -> str:
    if value is None:
        return "None"
    if isinstance(value, Operation):
        return f"the op '{value.name}' (return its results)"
    name = type(value).__name__
    return f"{'an' if name[0].lower() in 'aeiou' else 'a'} {name}"


def _check_types(
    op: Operation,
    op_name: str,
    direction: str,
    what: str,
    produced: Sequence[SSAValue | None],
    expected: Sequence[SSAValue],
) -> None:
    for index, (value, reference) in enumerate(zip(produced, expected)):
        if value is not None and value.type != reference.type:
            raise error_at(
                RuleError,
                op,
                f"the {direction} rule of '{op_name}' produced a {what} of type "
                f"{value.type} for #{index} of type {reference.type}",
            )


def refuse_dynamic_shapes(op: Operation, taken: bool) -> None:
    """A located error for `op` on a tensor of dynamic shape, unless its rule takes them."""
    if taken:
        return
    for value in (*op.operands, *op.results):
        if not dynamic_dims(value.type):
            continue
        raise error_at(
            DifferentiationError,
            op,
            f"differentiation of '{op.name}' on tensors of dynamic shape ({value.type}) is not "
            "supported yet: give it static shapes",
        )


@dataclass(frozen=True)
class WalkRule:
    """A rule that takes part in the walk: `reverse(walk, op)` reads the
    gradients of `op`'s results and accumulates those of the values it
    differentiates; `forward(walk, op)` emits and records tangents (see
    `ReverseContext`, `ForwardContext`)."""

    op_name: str
    reverse: Callable[[ReverseContext, Operation], None] = field(repr=False)
    forward: Callable[[ForwardContext, Operation], None] = field(repr=False)
    dynamic_shapes: bool = False
    """As `DerivativeRule.dynamic_shapes`."""

    def reverse_in(self, walk: ReverseContext, op: Operation) -> None:
        """Differentiate `op` in reverse mode."""
        refuse_dynamic_shapes(op, self.dynamic_shapes)
        self.reverse(walk, op)

    def forward_in(self, walk: ForwardContext, op: Operation) -> None:
        """Differentiate `op` in forward mode."""
        refuse_dynamic_shapes(op, self.dynamic_shapes)
        self.forward(walk, op)


Rule = DerivativeRule | WalkRule
"""A rule of the table: either kind."""

