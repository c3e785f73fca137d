"""The "Named pipelines" chapter of docs/reference.md (scripts/reference.py): each
pipeline's xDSL passes, then the MLIR 22 stages of the two backends, read from the code:
the steps of `cpu_pipeline.lower_to_llvm` by its `stage(...)` blocks, the functions of
`gpu_pipeline.STAGE_FUNCTIONS`, and the MLIR pass pipelines and transform schedules they run."""
from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import re
from collections.abc import Callable, Iterable
from types import ModuleType

from reference_source import cell, constant_note, first_paragraph, relative_path, syntax_tree_of

PIPELINE_CALLS = {"run_pipeline": "MLIR passes", "apply_schedule": "transform schedule"}
"""Calls that run MLIR text (the module, then the text): listed with the text they run."""

PIPELINE_CONSTANT = re.compile(r"^[A-Z][A-Z0-9_]*_(PIPELINE|SCHEDULE)$")
"""Module constants listed with a backend's stages, referenced or not."""


@dataclasses.dataclass
class Step:
    """One call a pipeline stage makes on the module."""

    stage: str | None
    text: str
    """How the step reads: `keep_forwarding_calls`, MLIR passes `LOOP_PIPELINE`."""
    note: str
    """The called function's docstring, first paragraph."""
    constants: list[tuple[ModuleType, str]]
    """The MLIR-text constants it runs."""


def _stage_name(expression: ast.expr) -> str | None:
    """`X` for `stage("X")` (a `with` item of the instrumentation's stages)."""
    if (
        isinstance(expression, ast.Call)
        and isinstance(expression.func, ast.Name)
        and expression.func.id == "stage"
        and expression.args
        and isinstance(expression.args[0], ast.Constant)
    ):
        return expression.args[0].value
    return None


def _has_stages(function: Callable) -> bool:
    return any(
        isinstance(node, ast.With) and any(_stage_name(item.context_expr) for item in node.items)
        for node in ast.walk(syntax_tree_of(function))
    )


def _pipeline_text(module: ModuleType, argument: ast.expr) -> tuple[str, list[tuple[ModuleType, str]], str]:
    """(how an MLIR-text argument reads, the constants it names, the note of a function making it)."""
    if isinstance(argument, ast.Name):
        return argument.id, [(module, argument.id)], ""
    if isinstance(argument, ast.Constant):
        return str(argument.value), [], ""
    if isinstance(argument, ast.JoinedStr):
        parts = [
            str(part.value) if isinstance(part, ast.Constant) else ast.unparse(part.value)  # type: ignore[attr-defined]
            for part in argument.values
        ]
        names = [
            part.value.id
            for part in argument.values
            if isinstance(part, ast.FormattedValue) and isinstance(part.value, ast.Name)
        ]
        return "".join(parts), [(module, name) for name in names], ""
    if isinstance(argument, ast.Call) and isinstance(argument.func, ast.Name):
        maker = getattr(module, argument.func.id, None)
        return ast.unparse(argument), [], first_paragraph(getattr(maker, "__doc__", None))
    return ast.unparse(argument), [], ""


def pipeline_steps(function: Callable, stage: str | None = None) -> list[Step]:
    """The calls `function` makes on its first argument (the module), in order, each
    with the `stage(...)` block it runs in; calls of functions of the same module that
    open stages themselves are followed."""
    module = inspect.getmodule(function)
    node = syntax_tree_of(function)
    subject = node.args.args[0].arg  # type: ignore[union-attr]
    steps: list[Step] = []

    def visit(statements: Iterable[ast.stmt], stage: str | None, condition: str | None) -> None:
        for statement in statements:
            if isinstance(statement, ast.With):
                named = [_stage_name(item.context_expr) for item in statement.items]
                visit(statement.body, next((n for n in named if n), stage), condition)
            elif isinstance(statement, ast.If):
                visit(statement.body, stage, ast.unparse(statement.test))
                visit(statement.orelse, stage, f"not ({ast.unparse(statement.test)})")
            elif isinstance(statement, (ast.For, ast.While, ast.Try)):
                for block in ("body", "orelse", "finalbody"):
                    visit(getattr(statement, block, []), stage, condition)
            elif isinstance(statement, (ast.Expr, ast.Assign, ast.Return)):
                call = statement.value
                if not (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Name)
                    and call.args
                    and ast.unparse(call.args[0]) == subject
                ):
                    continue
                name = call.func.id
                callee = getattr(module, name, None)
                if callee is not None and inspect.getmodule(callee) is module and _has_stages(callee):
                    steps.extend(pipeline_steps(callee, stage))
                    continue
                if name in PIPELINE_CALLS:
                    text, constants, note = _pipeline_text(module, call.args[1])
                    text = f"{PIPELINE_CALLS[name]} `{text}`"
                else:
                    extra = [ast.unparse(a) for a in call.args[1:]] + [ast.unparse(k) for k in call.keywords]
                    text = f"`{name}" + (f"({', '.join(extra)})`" if extra else "`")
                    constants, note = [], first_paragraph(getattr(callee, "__doc__", None))
                if condition:
                    text += f" (if `{condition}`)"
                steps.append(Step(stage, text, note, constants))

    visit(node.body, stage, None)
    return steps


def _defining_module(module: ModuleType, name: str) -> ModuleType:
    """The module that assigns `name`: `module`, or the one it imports `name` from."""
    for statement in syntax_tree_of(module).body:
        if isinstance(statement, ast.ImportFrom) and any(alias.name == name for alias in statement.names):
            return _defining_module(importlib.import_module(statement.module), name)  # type: ignore[arg-type]
    return module


def pipeline_lines(text: str) -> str:
    """MLIR pass-pipeline text one top-level pass per line; transform IR as it is."""
    if "\n" in text:
        return text.strip("\n")
    parts, depth, current = [], 0, ""
    for character in text:
        depth += character in "({"
        depth -= character in ")}"
        if character == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += character
    parts.append(current.strip())
    return ",\n".join(part for part in parts if part)


def constants_section(steps: list[Step], module: ModuleType, shown: set[tuple[str, str]]) -> list[str]:
    """Every MLIR-text constant the steps run, then the rest of `module`'s, with its note
    and value; one in `shown` (module name, constant) is only named."""
    named = [c for step in steps for c in step.constants]
    named += [(module, name) for name in sorted(vars(module)) if PIPELINE_CONSTANT.match(name)]
    lines: list[str] = []
    listed = set()
    for owner, name in named:
        home = _defining_module(owner, name)
        key = (home.__name__, name)
        if key in listed:
            continue
        listed.add(key)
        lines += [f"#### `{name}` (`{relative_path(home)}`)", ""]
        if key in shown:
            lines += ["Listed above.", ""]
            continue
        shown.add(key)
        note = constant_note(home, name)
        lines += [note, ""] if note else []
        lines += ["```", pipeline_lines(getattr(owner, name)), "```", ""]
    return lines


def steps_table(steps: list[Step]) -> list[str]:
    lines = ["| stage | step | what it does |", "| --- | --- | --- |"]
    for step in steps:
        stage = f"`{step.stage}`" if step.stage else "(outside the stages)"
        lines.append(f"| {stage} | {cell(step.text)} | {cell(step.note)} |")
    return lines + [""]


def cpu_stage(shown: set[tuple[str, str]]) -> list[str]:
    from gradir.cpu_backend import cpu_pipeline

    steps = pipeline_steps(cpu_pipeline.lower_to_llvm)
    stages = list(dict.fromkeys(step.stage for step in steps if step.stage))
    lines = [f"### MLIR 22 stage `cpu` (`{relative_path(cpu_pipeline)}`)", ""]
    lines += [inspect.cleandoc(cpu_pipeline.__doc__ or ""), ""]
    lines += [
        f"`lower_to_llvm` runs the stages {', '.join(f'`{s}`' for s in stages)} (the names "
        "`--timing` and errors use); each step, in order:",
        "",
    ]
    lines += steps_table(steps)
    lines += ["MLIR pass pipelines and transform schedules of the CPU stage:", ""]
    return lines + constants_section(steps, cpu_pipeline, shown)


def gpu_stage(shown: set[tuple[str, str]]) -> list[str]:
    from gradir.gpu_backend import gpu_pipeline

    lines = [f"### MLIR 22 stage `gpu` (`{relative_path(gpu_pipeline)}`)", ""]
    lines += [inspect.cleandoc(gpu_pipeline.__doc__ or ""), ""]
    lines += [
        "`compile_to_gpu` runs the stages of `STAGE_FUNCTIONS` in order "
        "(`--gpu-stop-after` stops after one):",
        "",
        "| stage | function | what it does |",
        "| --- | --- | --- |",
    ]
    steps = []
    for name, function in gpu_pipeline.STAGE_FUNCTIONS.items():
        where = f"`{function.__name__}` (`{relative_path(function)}`)"
        lines.append(f"| `{name}` | {where} | {cell(first_paragraph(function.__doc__))} |")
        steps += pipeline_steps(function, name)
    lines += ["", "Each step of each stage, in order:", ""]
    lines += steps_table(steps)
    lines += ["MLIR pass pipelines and transform schedules of the GPU stage:", ""]
    return lines + constants_section(steps, gpu_pipeline, shown)


def pipelines_chapter() -> list[str]:
    """Every named pipeline's xDSL passes, then the MLIR 22 stages of both backends."""
    from gradir import pass_table, pipelines

    lines = ["## Named pipelines", "", inspect.cleandoc(pipelines.__doc__ or ""), ""]
    for pipeline in pipelines.PIPELINES.values():
        lines += [f"### `{pipeline.name}`", "", pipeline.description + ".", ""]
        lines += [
            f"{i}. `{name}`" + ("" if name in pass_table.PASSES_BY_NAME else " (xDSL's)")
            for i, name in enumerate(pipeline.xdsl_passes, 1)
        ]
        if pipeline.mlir_stage:
            lines += [f"{len(pipeline.xdsl_passes) + 1}. MLIR 22 stage `{pipeline.mlir_stage}` (below)"]
        lines.append("")
    shown: set[tuple[str, str]] = set()
    return lines + cpu_stage(shown) + gpu_stage(shown)
