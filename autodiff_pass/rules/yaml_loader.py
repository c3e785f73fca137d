"""Loading `derivatives.yaml`: one validated `DerivativeRule` per entry.

The file's format is documented at its top. `load_rules` validates every
entry when the file loads (unknown names, `grads[i]` out of range, an input
with neither a formula nor `non_differentiable`, malformed YAML; errors name
file, line and entry) and works out, from what each reverse formula reads,
which inputs and outputs the backward needs (`saved_inputs`,
`saved_outputs`), like PyTorch's load_derivatives.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import yaml
from xdsl.dialects import arith, math
from xdsl.irdl import OpDef

from gradir.autodiff_pass.rules.formula import (
    Expr,
    FormulaError,
    Kind,
    Scope,
    check_formula,
    parse_formula,
)
from gradir.autodiff_pass.rules.formula_rules import PROPERTY_KINDS, FormulaForward, FormulaReverse
from gradir.autodiff_pass.rules.interface import DerivativeRule
from gradir.dialects.autodiff import FORWARD_OPS
from gradir.dialects.mlir22_ops import ClampFOp, ErfcOp, RemFOp, SincosOp
from gradir.errors import RuleError

RULE_FILE = Path(__file__).with_name("derivatives.yaml")

_ENTRY_KEYS = {"name", "let", "non_differentiable", "output_differentiability"}
_RESERVED = {"grad", "grads", "result", "results", "true", "false"} | _ENTRY_KEYS

STANDARD_OPS = (
    arith.AddfOp, arith.SubfOp, arith.MulfOp, arith.DivfOp, arith.NegfOp, arith.MaximumfOp,
    arith.MinimumfOp, arith.MaxnumfOp, arith.MinnumfOp, arith.SelectOp, arith.ExtFOp,
    arith.TruncFOp, RemFOp,
    math.ExpOp, math.Exp2Op, math.ExpM1Op, math.LogOp, math.Log1pOp, math.Log2Op, math.Log10Op,
    math.SqrtOp, math.RsqrtOp, math.CbrtOp, math.PowFOp, math.FPowIOp, math.FmaOp,
    math.SinOp, math.CosOp, math.TanOp, SincosOp, math.AsinOp,
    math.AcosOp, math.AtanOp, math.Atan2Op, math.SinhOp, math.CoshOp, math.TanhOp,
    math.AsinhOp, math.AcoshOp, math.AtanhOp, math.ErfOp, ErfcOp, math.AbsFOp,
    math.CopySignOp, math.FloorOp, math.CeilOp, math.RoundOp, math.RoundEvenOp, math.TruncOp,
    ClampFOp,
)  # fmt: skip
"""Ops of other dialects whose rules are entries of the rule file (full names)."""

_OPS = {op_class.name: op_class for op_class in (*FORWARD_OPS, *STANDARD_OPS)}
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


def compose_yaml(text: str) -> yaml.Node | None:
    """`yaml.compose(text)` through libyaml's parser where PyYAML has it: 2 ms instead of
    28 ms for derivatives.yaml, the same nodes and marks, on every compile's first use of
    the rules. On malformed text the pure-Python parser runs again to raise its error,
    whose wording (`mapping values are not allowed here`) the messages have always had."""
    fast = getattr(yaml, "CLoader", None)
    if fast is not None:
        try:
            return yaml.compose(text, Loader=fast)
        except yaml.YAMLError:
            pass
    return yaml.compose(text, Loader=yaml.Loader)


def load_rules(path: str | Path = RULE_FILE) -> dict[str, DerivativeRule]:
    """Load and validate a rule file; raises RuleError naming the bad entry."""
    path = str(path)
    try:
        text = Path(path).read_text()
    except OSError as error:
        raise RuleError(f"cannot read derivative rules: {error.strerror}", path) from None
    try:
        document = compose_yaml(text)
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

    # An op none of whose outputs is differentiable has zero tangents, not no forward rule.
    has_forward = any(f is not None for f in forward_formulas) or not any(output_differentiable)
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
