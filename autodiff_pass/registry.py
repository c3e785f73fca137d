"""Derivative rules: which ops can be differentiated, and how.

Most rules are data: `derivatives.yaml` (format documented at its top) holds
one entry per autodiff forward op with a reverse formula per differentiable
input and a forward (tangent) formula. `load_rules` validates every entry when
the file loads and works out, from what each reverse formula reads, which
inputs and outputs the backward needs (`saved_inputs`, `saved_outputs`),
like PyTorch's load_derivatives. Ops a formula cannot describe, including
ops of other dialects, get Python rules through `register_vjp` /
`register_jvp`.

Passes look rules up with `get_rule(op_name)`; the rule file is loaded once,
at the first lookup or registration.
"""
from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import NoReturn

import yaml
from xdsl.builder import Builder
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import DenseArrayBase, IntegerAttr, IntegerType, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import IRDLOperation, OpDef

from gradir.autodiff_pass.formula import (
    Emitter,
    Expr,
    FormulaError,
    Kind,
    Scope,
    Zero,
    check_formula,
    parse_formula,
)
from gradir.dialects.autodiff import FORWARD_OPS, BroadcastToOp
from gradir.errors import DifferentiationError, RuleError, error_at

ReverseRule = Callable[[Builder, Operation, Sequence[SSAValue]], Sequence[SSAValue | None]]
"""`rule(builder, op, output_grads) -> one gradient (or None) per operand`."""
ForwardRule = Callable[[Builder, Operation, Sequence[SSAValue | None]], Sequence[SSAValue | None]]
"""`rule(builder, op, input_tangents) -> one tangent (or None) per result`;
a None input tangent is zero."""

RULE_FILE = Path(__file__).with_name("derivatives.yaml")

PROPERTY_KINDS = {"permutation": Kind.INTS, "dims": Kind.INTS, "keepdim": Kind.BOOL, "dim": Kind.INT}
"""Op properties formulas may read, and their kinds."""

_ENTRY_KEYS = {"name", "let", "non_differentiable", "output_differentiability"}
_RESERVED = {"grad", "grads", "result", "results", "true", "false"} | _ENTRY_KEYS


@dataclass
class DerivativeRule:
    """How to differentiate one op, in reverse mode, forward mode or both.

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

    def differentiates(self, index: int) -> bool:
        return self.differentiable_inputs is None or index in self.differentiable_inputs

    def saves_input(self, index: int) -> bool:
        return self.saved_inputs is None or index in self.saved_inputs

    def saves_output(self, index: int) -> bool:
        return self.saved_outputs is None or index in self.saved_outputs

    def emit_vjp(
        self, builder: Builder, op: Operation, output_grads: Sequence[SSAValue]
    ) -> list[SSAValue | None]:
        """Insert the backward of `op` with `builder`; one gradient per operand
        (None for an operand that gets none)."""
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
        grads = self._run(self.reverse, "reverse", builder, op, output_grads)
        grads = [grad if self.differentiates(i) else None for i, grad in enumerate(grads)]
        _check_types(op, self.op_name, "reverse", "gradient", grads, op.operands)
        return grads

    def emit_jvp(
        self, builder: Builder, op: Operation, input_tangents: Sequence[SSAValue | None]
    ) -> list[SSAValue | None]:
        """Insert the tangent computation of `op`; one tangent per result
        (None: zero). A None input tangent is zero; all None gives all None."""
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
        if all(tangent is None for tangent in input_tangents):
            return [None] * len(op.results)
        tangents = self._run(self.forward, "forward", builder, op, input_tangents)
        _check_types(op, self.op_name, "forward", "tangent", tangents, op.results)
        return tangents

    def _run(
        self,
        rule: Callable[..., Sequence[SSAValue | None]],
        direction: str,
        builder: Builder,
        op: Operation,
        values: Sequence[SSAValue | None],
    ) -> list[SSAValue | None]:
        try:
            produced = list(rule(builder, op, values))
        except FormulaError as error:
            raise error_at(RuleError, op, f"the {direction} rule of '{self.op_name}': {error}")
        expected = len(op.operands if direction == "reverse" else op.results)
        if len(produced) != expected:
            what = "gradients for" if direction == "reverse" else "tangents for"
            counted = "operands" if direction == "reverse" else "results"
            raise error_at(
                RuleError,
                op,
                f"the {direction} rule of '{self.op_name}' returned {len(produced)} "
                f"{what} {expected} {counted}",
            )
        return produced


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


# ----------------------------------------------------------------------------
# Formula rules (derivatives.yaml)
# ----------------------------------------------------------------------------


def _property_values(op: Operation) -> dict[str, object]:
    """The op's properties formulas may read; an absent `dims` means every dim."""
    values: dict[str, object] = {"true": True, "false": False}
    for name in PROPERTY_KINDS:
        if not isinstance(op, IRDLOperation) or name not in op.get_irdl_definition().properties:
            continue
        attr = op.properties.get(name)
        if attr is None and name == "dims":
            assert isinstance(op.operands[0].type, TensorType)
            values[name] = tuple(range(op.operands[0].type.get_num_dims()))
        elif isinstance(attr, DenseArrayBase):
            values[name] = tuple(attr.get_values())
        elif isinstance(attr, IntegerAttr):
            value = attr.value.data
            values[name] = bool(value) if attr.type == IntegerType(1) else value
    return values


def _result_values(op: Operation) -> dict[str, object]:
    values: dict[str, object] = {"results": list(op.results)}
    if len(op.results) == 1:
        values["result"] = op.results[0]
    return values


@dataclass(frozen=True)
class FormulaReverse:
    """The reverse rule of a YAML entry: one formula per differentiable input."""

    input_names: tuple[str, ...]
    formulas: tuple[Expr | None, ...]

    def __call__(
        self, builder: Builder, op: Operation, output_grads: Sequence[SSAValue]
    ) -> list[SSAValue | None]:
        environment = {**_property_values(op), **_result_values(op)}
        environment.update(zip(self.input_names, op.operands))
        environment["grads"] = list(output_grads)
        if len(output_grads) == 1:
            environment["grad"] = output_grads[0]
        emitter = Emitter(builder, environment)
        return [None if f is None else emitter.evaluate(f) for f in self.formulas]  # type: ignore[misc]


@dataclass(frozen=True)
class FormulaForward:
    """The forward rule of a YAML entry: one tangent formula per result."""

    input_names: tuple[str, ...]
    formulas: tuple[Expr | None, ...]

    def __call__(
        self, builder: Builder, op: Operation, input_tangents: Sequence[SSAValue | None]
    ) -> list[SSAValue | None]:
        environment = {**_property_values(op), **_result_values(op)}
        for name, operand, tangent in zip(self.input_names, op.operands, input_tangents):
            environment[name] = environment[f"{name}_p"] = operand
            environment[f"{name}_t"] = Zero(operand.type) if tangent is None else tangent
        emitter = Emitter(builder, environment)
        tangents: list[SSAValue | None] = []
        for formula, result in zip(self.formulas, op.results):
            tangent = None if formula is None else emitter.evaluate(formula)
            if isinstance(tangent, Zero):
                tangent = None
            elif isinstance(tangent, SSAValue) and tangent.type != result.type:
                # A dropped zero term can leave a sum with an operand's smaller shape.
                tangent = builder.insert(BroadcastToOp(tangent, result.type)).result
            tangents.append(tangent)  # type: ignore[arg-type]
        return tangents


# ----------------------------------------------------------------------------
# Loading the rule file
# ----------------------------------------------------------------------------

_STANDARD_OPS = (
    arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.DivfOp, arith.NegfOp, arith.MaximumfOp,
    arith.MinimumfOp, arith.SelectOp, arith.ExtFOp, arith.TruncFOp,
    math.ExpOp, math.LogOp, math.Log1pOp, math.SqrtOp, math.RsqrtOp, math.SinOp, math.CosOp,
    math.TanhOp, math.ErfOp, math.PowFOp, math.AbsFOp,
)  # fmt: skip
"""Ops of other dialects whose rules are entries of the rule file (full names)."""

_OPS = {op_class.name: op_class for op_class in (*FORWARD_OPS, *_STANDARD_OPS)}
_SIGNATURE = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*\(([^()]*)\)\s*$")


class _Entry:
    """One YAML entry being loaded; `fail` raises a RuleError located at a node."""

    def __init__(self, node: yaml.MappingNode, path: str):
        self.path, self.node, self.title = path, node, "?"
        self.keys: dict[str, yaml.Node] = {}
        for key, value in node.value:
            if not isinstance(key, yaml.ScalarNode):
                self.fail(key, "keys must be plain names")
            if key.value in self.keys:
                self.fail(key, f"duplicate key '{key.value}'")
            self.keys[key.value] = value

    def fail(self, node: yaml.Node, message: str) -> NoReturn:
        where = f"{self.path}:{node.start_mark.line + 1}:{node.start_mark.column + 1}"
        raise RuleError(f"entry '{self.title}': {message}", where)

    def scalar(self, key: str) -> str:
        node = self.keys[key]
        if not isinstance(node, yaml.ScalarNode):
            self.fail(node, f"'{key}' must be a formula (a string)")
        return str(node.value)

    def names(self, key: str) -> list[str]:
        node = self.keys[key]
        if not isinstance(node, yaml.SequenceNode) or not all(
            isinstance(item, yaml.ScalarNode) for item in node.value
        ):
            self.fail(node, f"'{key}' must be a list")
        return [item.value for item in node.value]


def load_rules(path: str | Path = RULE_FILE) -> dict[str, DerivativeRule]:
    """Load and validate a rule file; raises RuleError naming the bad entry."""
    path = str(path)
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise RuleError(f"cannot read derivative rules: {error.strerror}", path) from None
    try:
        document = yaml.compose(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else path
        problem = getattr(error, "problem", None) or str(error)
        raise RuleError(f"malformed YAML: {problem}", where) from None
    if document is None:
        return {}
    if not isinstance(document, yaml.SequenceNode):
        line = document.start_mark.line + 1
        raise RuleError("the rule file must be a list of entries", f"{path}:{line}:1")
    rules: dict[str, DerivativeRule] = {}
    lines: dict[str, int] = {}
    for node in document.value:
        if not isinstance(node, yaml.MappingNode):
            line = node.start_mark.line + 1
            raise RuleError("each entry must be a mapping with a 'name'", f"{path}:{line}:1")
        entry = _Entry(node, path)
        rule = _load_entry(entry)
        if rule.op_name in rules:
            entry.fail(
                node, f"duplicate entry for '{rule.op_name}' (first at line {lines[rule.op_name]})"
            )
        rules[rule.op_name] = rule
        lines[rule.op_name] = node.start_mark.line + 1
    return rules


def _load_entry(entry: _Entry) -> DerivativeRule:
    op_name, inputs, definition = _load_signature(entry)
    result_count = len(definition.results)
    properties = {
        name: kind for name, kind in PROPERTY_KINDS.items() if name in definition.properties
    }
    taken = {*inputs, *properties, *(f"{name}_{suffix}" for name in inputs for suffix in "pt")}
    bindings = _load_bindings(entry, taken)
    non_differentiable = set()
    if "non_differentiable" in entry.keys:
        non_differentiable = set(entry.names("non_differentiable"))
        for name in non_differentiable - set(inputs):
            entry.fail(entry.keys["non_differentiable"], f"'{name}' is not an input")
    output_differentiable = [True] * result_count
    if "output_differentiability" in entry.keys:
        output_differentiable = _load_output_differentiability(entry, result_count)
    forward_keys = ["result"] if result_count == 1 else [f"results[{i}]" for i in range(result_count)]
    for key, node in entry.keys.items():
        if key not in _ENTRY_KEYS and key not in inputs and key not in forward_keys:
            entry.fail(node, f"unknown key '{key}' (not an input, 'result' or an entry option)")
    backward_scope, forward_scope = _scopes(inputs, properties, result_count)

    reverse_formulas: list[Expr | None] = []
    saved_inputs: set[int] = set()
    saved_outputs: set[int] = set()
    for name in inputs:
        if name in non_differentiable:
            if name in entry.keys:
                entry.fail(entry.keys[name], f"'{name}' is non_differentiable but has a formula")
            reverse_formulas.append(None)
            continue
        if name not in entry.keys:
            entry.fail(entry.node, f"input '{name}' has no formula and is not non_differentiable")
        formula, reads = _compile(entry, name, bindings, backward_scope)
        for read in reads:
            if read in inputs:
                saved_inputs.add(inputs.index(read))
            elif read == "result" or read.startswith("results["):
                saved_outputs.add(_output_index(read))
            elif not output_differentiable[_output_index(read)]:
                entry.fail(entry.keys[name], f"'{read}' belongs to a non-differentiable output")
        reverse_formulas.append(formula)

    forward_formulas: list[Expr | None] = []
    for key, differentiable in zip(forward_keys, output_differentiable):
        if key not in entry.keys:
            forward_formulas.append(None)
        elif not differentiable:
            entry.fail(entry.keys[key], f"'{key}' is not differentiable but has a formula")
        else:
            forward_formulas.append(_compile(entry, key, bindings, forward_scope)[0])

    has_forward = any(formula is not None for formula in forward_formulas)
    return DerivativeRule(
        op_name=op_name,
        input_names=inputs,
        differentiable_inputs=tuple(i for i, f in enumerate(reverse_formulas) if f is not None),
        saved_inputs=frozenset(saved_inputs),
        saved_outputs=frozenset(saved_outputs),
        reverse=FormulaReverse(inputs, tuple(reverse_formulas)),
        forward=FormulaForward(inputs, tuple(forward_formulas)) if has_forward else None,
    )


def _load_signature(entry: _Entry) -> tuple[str, tuple[str, ...], OpDef]:
    """`name: mul(x, y)`: the op's full name, its input names (which must be
    the op's operand names) and its IRDL definition."""
    if "name" not in entry.keys:
        entry.fail(entry.node, "missing 'name: op(inputs...)'")
    entry.title = entry.scalar("name").strip()
    match = _SIGNATURE.match(entry.title)
    if match is None:
        entry.fail(entry.keys["name"], "'name' must look like 'mul(x, y)'")
    short_name, raw_inputs = match.group(1), match.group(2)
    op_name = short_name if "." in short_name else f"autodiff.{short_name}"
    op_class = _OPS.get(op_name)
    if op_class is None:
        entry.fail(entry.keys["name"], f"unknown op '{op_name}'")
    definition = op_class.get_irdl_definition()
    inputs = tuple(name.strip() for name in raw_inputs.split(",") if name.strip())
    operand_names = tuple(name for name, _ in definition.operands)
    if inputs != operand_names:
        entry.fail(
            entry.keys["name"],
            f"inputs ({', '.join(inputs)}) do not match the operands of '{op_name}' "
            f"({', '.join(operand_names)})",
        )
    return op_name, inputs, definition


def _output_index(read: str) -> int:
    """The result index behind `grad`, `result`, `grads[i]` or `results[i]`."""
    return int(read[read.index("[") + 1 : -1]) if "[" in read else 0


def _load_bindings(entry: _Entry, taken: set[str]) -> dict[str, Expr]:
    """The entry's `let` definitions, each usable by later ones and by formulas."""
    bindings: dict[str, Expr] = {}
    if "let" not in entry.keys:
        return bindings
    node = entry.keys["let"]
    if not isinstance(node, yaml.MappingNode):
        entry.fail(node, "'let' must map names to formulas")
    for key, value in node.value:
        name = key.value
        if not isinstance(key, yaml.ScalarNode) or not name.isidentifier():
            entry.fail(key, f"'{name}' is not a valid name")
        if name in _RESERVED or name in taken or name in bindings:
            entry.fail(key, f"'let' name '{name}' clashes with another name")
        if not isinstance(value, yaml.ScalarNode):
            entry.fail(value, f"'let' value of '{name}' must be a formula")
        try:
            bindings[name] = parse_formula(value.value, bindings)
        except FormulaError as error:
            entry.fail(value, f"let '{name}': {error}")
    return bindings


def _load_output_differentiability(entry: _Entry, result_count: int) -> list[bool]:
    node = entry.keys["output_differentiability"]
    flags = entry.names("output_differentiability")
    if len(flags) != result_count or any(flag not in ("true", "false") for flag in flags):
        entry.fail(node, f"'output_differentiability' must list {result_count} true/false values")
    return [flag == "true" for flag in flags]


def _scopes(
    inputs: Sequence[str], properties: dict[str, Kind], result_count: int
) -> tuple[Scope, Scope]:
    """The identifiers of reverse and forward formulas. `grads[i]`/`results[i]`
    always work; `grad`/`result` only when the op has one result."""
    common: dict[str, Kind] = {**properties, "true": Kind.BOOL, "false": Kind.BOOL}
    if result_count == 1:
        common["result"] = Kind.TENSOR
    backward = dict(common, **{name: Kind.TENSOR for name in inputs})
    if result_count == 1:
        backward["grad"] = Kind.TENSOR
    forward = dict(common)
    for name in inputs:
        forward[name] = forward[f"{name}_p"] = forward[f"{name}_t"] = Kind.TENSOR
    backward_hints = {
        f"{name}_{suffix}": "tangent names are for forward formulas"
        for name in inputs
        for suffix in "pt"
    }
    forward_hints = {"grad": "gradients are for reverse formulas", "grads": "gradients are for reverse formulas"}
    if result_count != 1:
        several = "the op has several results: use grads[i], results[i]"
        backward_hints.update(grad=several, result=several)
        forward_hints["result"] = several
    results = {"results": result_count}
    return (
        Scope(backward, {**results, "grads": result_count}, backward_hints),
        Scope(forward, results, forward_hints),
    )


def _compile(entry: _Entry, key: str, bindings: dict[str, Expr], scope: Scope) -> tuple[Expr, set[str]]:
    """Parse and check the formula under `key`; its value reads."""
    node = entry.keys[key]
    try:
        formula = parse_formula(entry.scalar(key), bindings)
        kind, reads = check_formula(formula, scope)
    except FormulaError as error:
        entry.fail(node, f"formula for '{key}': {error}")
    if kind is not Kind.TENSOR:
        entry.fail(node, f"formula for '{key}' must give a tensor, not {kind.value}")
    return formula, reads


# ----------------------------------------------------------------------------
# The registry
# ----------------------------------------------------------------------------

_rules: dict[str, DerivativeRule] | None = None
"""Every known rule by op name; loaded from RULE_FILE on first use."""


PYTHON_RULE_MODULES = (
    "gradir.autodiff_pass.linalg_rules",
    "gradir.autodiff_pass.tensor_rules",
    "gradir.autodiff_pass.generic_rules",
)
"""Modules of built-in Python rules (ops a formula cannot describe, such as
`linalg.generic`); each defines `RULES`, a sequence of DerivativeRule."""


def _python_rules() -> list[DerivativeRule]:
    rules = []
    for module_name in PYTHON_RULE_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name != module_name:
                raise
            continue
        rules.extend(module.RULES)
    return rules


def _all_rules() -> dict[str, DerivativeRule]:
    global _rules
    if _rules is None:
        rules = load_rules(RULE_FILE)
        for rule in _python_rules():
            if rule.op_name in rules:
                raise RuleError(
                    f"'{rule.op_name}' has a rule in {RULE_FILE.name} and a built-in Python rule"
                )
            rules[rule.op_name] = rule
        _rules = rules
    return _rules


def get_rule(op_name: str) -> DerivativeRule | None:
    """The rule of `op_name` (e.g. "autodiff.mul"), or None when it has none."""
    return _all_rules().get(op_name)


_OP_NAME = re.compile(r"^[A-Za-z_][\w$]*\.[\w$.]+$")


def _check_registration(function: str, op_name: object, rule: object) -> None:
    if not isinstance(op_name, str) or not _OP_NAME.match(op_name):
        raise RuleError(f"{function}: {op_name!r} is not an op name of the form 'dialect.op'")
    if not callable(rule):
        raise RuleError(f"{function}: the rule for '{op_name}' is not callable")


def _indices(function: str, what: str, values: Sequence[int] | None) -> tuple[int, ...] | None:
    if values is None:
        return None
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values):
        raise RuleError(f"{function}: {what} must be non-negative ints, got {list(values)}")
    return tuple(sorted(set(values)))


def register_vjp(
    op_name: str,
    rule: ReverseRule,
    *,
    differentiable_inputs: Sequence[int] | None = None,
    saved_inputs: Sequence[int] | None = None,
    saved_outputs: Sequence[int] | None = None,
) -> None:
    """Register (or replace) the reverse rule of `op_name`, of any dialect.

    `rule(builder, op, output_grads)` inserts ops with `builder` and returns
    one gradient or None per operand of `op`. Undeclared saved values default
    to all inputs and outputs; undeclared differentiable inputs to all.
    """
    _check_registration("register_vjp", op_name, rule)
    differentiable = _indices("register_vjp", "differentiable_inputs", differentiable_inputs)
    inputs = _indices("register_vjp", "saved_inputs", saved_inputs)
    outputs = _indices("register_vjp", "saved_outputs", saved_outputs)
    rules = _all_rules()
    current = rules.get(op_name) or DerivativeRule(op_name)
    rules[op_name] = replace(
        current,
        reverse=rule,
        differentiable_inputs=differentiable,
        saved_inputs=None if inputs is None else frozenset(inputs),
        saved_outputs=None if outputs is None else frozenset(outputs),
    )


def register_jvp(op_name: str, rule: ForwardRule) -> None:
    """Register (or replace) the forward rule of `op_name`, of any dialect.

    `rule(builder, op, input_tangents)` gets one tangent or None (zero) per
    operand, at least one of them not None, and returns one per result.
    """
    _check_registration("register_jvp", op_name, rule)
    rules = _all_rules()
    current = rules.get(op_name) or DerivativeRule(op_name)
    rules[op_name] = replace(current, forward=rule)
