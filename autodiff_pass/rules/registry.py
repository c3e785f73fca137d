"""The rule table: which ops can be differentiated, and how.

Most rules are data: `derivatives.yaml` holds one entry per autodiff forward
op (and per standard arith/math op) with a reverse formula per
differentiable input and a forward (tangent) formula (`yaml_loader`). Ops a
formula cannot describe have built-in Python rules, one module per dialect
or family (`BUILTIN_RULE_MODULES`); ops of other dialects get rules through
`register_vjp` / `register_jvp`.

The walks look every rule up with `get_rule(op_name)`, control flow included.
The table is filled once, at the first lookup or registration: the rule file,
then each built-in module's `RULES`. A built-in module that is missing or
defines no `RULES` is an error, never a silently smaller table.
"""
from __future__ import annotations

import importlib
import re
from collections.abc import Sequence
from dataclasses import replace

from gradir.autodiff_pass.rules.interface import (
    DerivativeRule,
    ForwardRule,
    ReverseRule,
    Rule,
)
from gradir.autodiff_pass.rules.yaml_loader import RULE_FILE, load_rules
from gradir import compilation_cache
from gradir.errors import RuleError, reports_internal_errors

BUILTIN_RULE_MODULES = (
    "gradir.autodiff_pass.rules.linalg",
    "gradir.autodiff_pass.rules.linalg_structured",
    "gradir.autodiff_pass.rules.linalg_pack",
    "gradir.autodiff_pass.rules.tensor",
    "gradir.autodiff_pass.rules.tensor_gather",
    "gradir.autodiff_pass.rules.tensor_regions",
    "gradir.autodiff_pass.rules.bufferization",
    "gradir.autodiff_pass.rules.generic",
    "gradir.autodiff_pass.rules.conv",
    "gradir.autodiff_pass.rules.conv_quantized",
    "gradir.autodiff_pass.rules.scf",
    "gradir.autodiff_pass.rules.scf_for",
    "gradir.autodiff_pass.rules.scf_while",
    "gradir.autodiff_pass.rules.affine",
    "gradir.autodiff_pass.rules.func",
    "gradir.autodiff_pass.rules.ad_ops",
)
"""Modules of built-in Python rules (ops a formula cannot describe); each
defines `RULES`, a sequence of rules. They are loaded by name, on first use,
so that the rule modules may look other ops' rules up here."""

_rules: dict[str, Rule] | None = None
"""Every known rule by op name; filled on first use."""


def _builtin_rules() -> list[Rule]:
    rules: list[Rule] = []
    for module_name in BUILTIN_RULE_MODULES:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as error:
            if error.name != module_name:
                raise
            raise RuleError(f"the built-in rule module {module_name} is missing") from error
        module_rules = getattr(module, "RULES", None)
        if module_rules is None:
            raise RuleError(f"the built-in rule module {module_name} defines no RULES")
        rules.extend(module_rules)
    return rules


def _all_rules() -> dict[str, Rule]:
    global _rules
    if _rules is None:
        rules: dict[str, Rule] = dict(load_rules(RULE_FILE))
        for rule in _builtin_rules():
            if rule.op_name in rules:
                raise RuleError(
                    f"'{rule.op_name}' has a rule in {RULE_FILE.name} and a built-in Python rule"
                )
            rules[rule.op_name] = rule
        _rules = rules
    return _rules


def get_rule(op_name: str) -> Rule | None:
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


def _local_rule(op_name: str) -> DerivativeRule:
    """The local rule a registration amends: the current one, or a new one
    (a registration replaces a built-in walk rule, e.g. of `scf.for`, whole)."""
    current = _all_rules().get(op_name)
    return current if isinstance(current, DerivativeRule) else DerivativeRule(op_name)


@reports_internal_errors
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
    compilation_cache.note_custom_rule()
    differentiable = _indices("register_vjp", "differentiable_inputs", differentiable_inputs)
    inputs = _indices("register_vjp", "saved_inputs", saved_inputs)
    outputs = _indices("register_vjp", "saved_outputs", saved_outputs)
    rules = _all_rules()
    rules[op_name] = replace(
        _local_rule(op_name),
        reverse=rule,
        differentiable_inputs=differentiable,
        saved_inputs=None if inputs is None else frozenset(inputs),
        saved_outputs=None if outputs is None else frozenset(outputs),
    )


@reports_internal_errors
def register_jvp(op_name: str, rule: ForwardRule) -> None:
    """Register (or replace) the forward rule of `op_name`, of any dialect.

    `rule(builder, op, input_tangents)` gets one tangent or None (zero) per
    operand, at least one of them not None, and returns one per result.
    """
    _check_registration("register_jvp", op_name, rule)
    compilation_cache.note_custom_rule()
    _all_rules()[op_name] = replace(_local_rule(op_name), forward=rule)
