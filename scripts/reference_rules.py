"""The "Derivative rules" chapter of docs/reference.md (scripts/reference.py): every rule
of the registry, those of `derivatives.yaml` with their formulas as the file writes them
and what their backward saves, the built-in Python rules by module."""
from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterable

from reference_source import cell, first_paragraph, relative_path, repository_path


def _yaml_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(_yaml_text(item) for item in value)
    return str(value)


def _indices_text(indices: Iterable[int] | None, names: tuple[str, ...] = ()) -> str:
    if indices is None:
        return "all (undeclared)"
    listed = [f"`{names[i]}`" if i < len(names) else str(i) for i in sorted(indices)]
    return ", ".join(listed) or "none"


def _yaml_op_name(signature: str) -> str:
    """`mul(x, y)` -> `autodiff.mul`; `math.exp(operand)` -> `math.exp` (as the loader reads it)."""
    short = signature.split("(")[0].strip()
    return short if "." in short else f"autodiff.{short}"


def yaml_rules_section(rules: dict) -> list[str]:
    """The rules of `derivatives.yaml`, in the file's order, each with its formulas as
    written there and what its loaded backward saves."""
    import yaml

    from gradir.autodiff_pass.rules.yaml_loader import RULE_FILE

    text = RULE_FILE.read_text()
    header = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        header.append(line[2:] if line.startswith("# ") else line[1:])
    entries = yaml.safe_load(text)
    lines = [f"### From `{repository_path('gradir.autodiff_pass.rules', RULE_FILE.name)}` ({len(entries)} rules)", ""]
    lines += ["The file's own header:", "", "```", *header, "```", ""]
    for entry in entries:
        op_name = _yaml_op_name(entry["name"])
        rule = rules.get(op_name)
        if rule is None:
            raise SystemExit(f"derivatives.yaml's entry {entry['name']!r} is not the registry's rule of {op_name}")
        inputs = rule.input_names
        lines += [f"#### `{op_name}` ({', '.join(f'`{name}`' for name in inputs)})", ""]
        for name, formula in (entry.get("let") or {}).items():
            lines.append(f"- let `{name}` = `{_yaml_text(formula)}`")
        for name in inputs:
            if name in entry:
                lines.append(f"- gradient of `{name}`: `{_yaml_text(entry[name])}`")
        for key, formula in entry.items():
            if key == "result" or key.startswith("results["):
                lines.append(f"- tangent of `{key}`: `{_yaml_text(formula)}`")
        if "non_differentiable" in entry:
            lines.append(f"- non-differentiable: {', '.join(f'`{n}`' for n in entry['non_differentiable'])}")
        if "output_differentiability" in entry:
            lines.append(f"- output differentiability: `{_yaml_text(entry['output_differentiability'])}`")
        results = sorted(k for k in entry if k.startswith("results[")) or ["result"]
        lines.append(
            f"- the backward saves inputs {_indices_text(rule.saved_inputs, inputs)}, "
            f"results {_indices_text(rule.saved_outputs, tuple(results))}"
        )
        lines.append("")
    return lines


def _function_text(function: Callable | None) -> str:
    if function is None:
        return "none"
    name = getattr(function, "__name__", type(function).__name__)
    doc = first_paragraph(function.__doc__) if getattr(function, "__doc__", None) else ""
    return f"`{name}`" + (f": {doc}" if doc else "")


def builtin_rules_section(rule_modules: dict[str, list]) -> list[str]:
    """The built-in Python rules, one table per module; ops whose rules read alike share a row."""
    from gradir.autodiff_pass.rules.interface import DerivativeRule

    count = sum(len(module_rules) for module_rules in rule_modules.values())
    lines = [f"### Built-in Python rules ({count} rules)", ""]
    lines += [
        "Local rules are wrapped in a `grad_of` by the walk; walk rules take part in the walk "
        "(`gradir.autodiff_pass.rules.interface`). Operands are numbered from 0.",
        "",
    ]
    for module_name, module_rules in rule_modules.items():
        module = importlib.import_module(module_name)
        lines += [f"#### `{relative_path(module)}`", "", first_paragraph(module.__doc__), ""]
        rows: dict[tuple[str, ...], list[str]] = {}
        for rule in module_rules:
            local = isinstance(rule, DerivativeRule)
            kind = "local" if local else "walk"
            if local and rule.captures:
                kind += ", accounts for captured values"
            key = (
                kind,
                _function_text(rule.reverse),
                _function_text(rule.forward),
                _indices_text(rule.differentiable_inputs) if local else "(the walk's)",
                f"inputs {_indices_text(rule.saved_inputs)}, results {_indices_text(rule.saved_outputs)}"
                if local else "(the walk's)",
            )
            rows.setdefault(key, []).append(rule.op_name)
        lines += [
            "| ops | kind | reverse | forward | gradients to operands | the backward saves |",
            "| --- | --- | --- | --- | --- | --- |",
        ]
        for key, names in rows.items():
            lines.append(f"| {' '.join(f'`{n}`' for n in names)} | " + " | ".join(cell(k) for k in key) + " |")
        lines.append("")
    return lines


def rules_chapter() -> list[str]:
    """Every rule of the registry; one that is neither in the rule file nor in a built-in
    module (a registration at run time) is an error."""
    from gradir.autodiff_pass.rules import registry
    from gradir.autodiff_pass.rules.yaml_loader import RULE_FILE, load_rules

    rules = dict(registry._all_rules())
    from_yaml = load_rules(RULE_FILE)
    rule_modules = {name: list(importlib.import_module(name).RULES) for name in registry.BUILTIN_RULE_MODULES}
    listed = set(from_yaml) | {rule.op_name for module_rules in rule_modules.values() for rule in module_rules}
    unlisted = sorted(set(rules) - listed)
    if unlisted:
        raise SystemExit(f"rules neither in derivatives.yaml nor in a built-in module: {', '.join(unlisted)}")
    lines = ["## Derivative rules", "", inspect.cleandoc(registry.__doc__ or ""), ""]
    built_in = len(listed) - len(from_yaml)
    lines += [f"{len(rules)} rules: {len(from_yaml)} from `derivatives.yaml`, {built_in} built in.", ""]
    return lines + yaml_rules_section(rules) + builtin_rules_section(rule_modules)
