"""Reading gradir's source for docs/reference.md (scripts/reference.py): docstrings that
only the source holds (the string after `x = operand_def(...)` or a module constant),
syntax trees of classes and functions, paths relative to the repository."""
from __future__ import annotations

import ast
import functools
import inspect
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent


@functools.cache
def _package_folders() -> dict[str, str]:
    """pyproject.toml's `package-dir`: import package -> folder of the repository."""
    import tomllib

    settings = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return settings["tool"]["setuptools"]["package-dir"]


def repository_path(package: str, file_name: str) -> str:
    """`file_name` of import package `package`, as a path in the repository: the same
    whether gradir runs from the checkout (editable) or from site-packages (CI)."""
    return f"{_package_folders()[package]}/{file_name}"


def relative_path(obj: object) -> str:
    """Where `obj` (a module, class or function) is defined, relative to the repository."""
    module = obj.__name__ if inspect.ismodule(obj) else obj.__module__  # type: ignore[attr-defined]
    source = Path(inspect.getsourcefile(obj)).resolve()  # type: ignore[arg-type]
    package = module if source.name == "__init__.py" else module.rpartition(".")[0]
    if package in _package_folders():
        return repository_path(package, source.name)
    # Not gradir's (a test's own op): where it is, if in the repository.
    return source.relative_to(ROOT).as_posix() if source.is_relative_to(ROOT) else source.name


@functools.cache
def _syntax_tree(path: str) -> ast.Module:
    return ast.parse(Path(path).read_text())


def syntax_tree_of(obj: object) -> ast.Module | ast.ClassDef | ast.FunctionDef:
    """The syntax tree of a module, or of a class or function defined in one."""
    node: ast.AST = _syntax_tree(inspect.getsourcefile(obj))  # type: ignore[arg-type]
    if inspect.ismodule(obj):
        return node  # type: ignore[return-value]
    for part in obj.__qualname__.split("."):  # type: ignore[attr-defined]
        node = next(
            child for child in node.body  # type: ignore[attr-defined]
            if isinstance(child, (ast.ClassDef, ast.FunctionDef)) and child.name == part
        )  # fmt: skip
    return node  # type: ignore[return-value]


def is_gradir(obj: object) -> bool:
    return getattr(obj, "__module__", "").startswith("gradir.")


def _assigned_name(statement: ast.stmt) -> str | None:
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
        target = statement.targets[0]
    elif isinstance(statement, ast.AnnAssign):
        target = statement.target
    else:
        return None
    return target.id if isinstance(target, ast.Name) else None


def attribute_docstrings(obj: type | ModuleType) -> dict[str, str]:
    """Name -> the string literal right after `name = ...` in the body of a module or
    class (a class also gets its gradir bases', its own winning); such docstrings are
    only in the source."""
    owners = [obj] if inspect.ismodule(obj) else [c for c in reversed(obj.__mro__) if is_gradir(c)]
    docs: dict[str, str] = {}
    for owner in owners:
        body = syntax_tree_of(owner).body
        for statement, following in zip(body, body[1:]):
            name = _assigned_name(statement)
            if (
                name
                and isinstance(following, ast.Expr)
                and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)
            ):
                docs[name] = inspect.cleandoc(following.value.value)
    return docs


def constant_note(module: ModuleType, name: str) -> str:
    """The docstring after module constant `name`, else the comment right above it."""
    docs = attribute_docstrings(module)
    if name in docs:
        return docs[name]
    lines = Path(inspect.getsourcefile(module)).read_text().splitlines()  # type: ignore[arg-type]
    for statement in syntax_tree_of(module).body:
        if _assigned_name(statement) == name:
            above = []
            for line in reversed(lines[: statement.lineno - 1]):
                if not line.startswith("#"):
                    break
                above.insert(0, line.lstrip("# "))
            return " ".join(above)
    return ""


def first_paragraph(doc: str | None) -> str:
    """A docstring's first paragraph, on one line."""
    return " ".join(inspect.cleandoc(doc or "").split("\n\n")[0].split())


def cell(text: str) -> str:
    """`text` as one markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")
