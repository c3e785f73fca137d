"""No import cycles between the repository's modules.

The graph has one edge per `import` / `from ... import` statement anywhere in
a module (module level, inside functions, under `TYPE_CHECKING`), resolved to
the repository's modules with the package-dir mapping of pyproject.toml
(`autodiff_pass/` is `gradir.autodiff_pass`). Modules loaded by name at run
time (the lazy registries: passes, rule modules) are not edges: they are
plugins, not imports. `python tests/test_import_graph.py` prints the check.
"""
from __future__ import annotations

import ast
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIPPED_FOLDERS = {".venv", "build", ".git", ".hypothesis"}

KNOWN_CYCLES = {
    # tools/ is being restructured separately (one pass table); its CLI driver and
    # the named-pipeline runner still refer to each other.
    frozenset({"gradir.tools.autodiff_opt", "gradir.tools.pipeline_runner"}),
}


def repository_modules() -> dict[str, Path]:
    """Every Python file of the repository by its import name."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    package_dirs: dict[str, str] = config["tool"]["setuptools"]["package-dir"]
    # the longest folder first: autodiff_pass/rules before autodiff_pass
    folders = sorted(package_dirs.items(), key=lambda item: -len(item[1]))
    modules = {}
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT)
        if relative.parts[0] in SKIPPED_FOLDERS or relative.parts[0].endswith(".egg-info"):
            continue
        parts = list(relative.with_suffix("").parts)
        for package, folder in folders:
            folder_parts = folder.split("/")
            if parts[: len(folder_parts)] == folder_parts:
                parts = package.split(".") + parts[len(folder_parts) :]
                break
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def imported_modules(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The repository modules `name` imports, wherever the import statement is."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            candidates = [[alias.name] for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package[: len(package) - (node.level - 1)]
                base = ".".join([*parent, base] if base else parent)
            # `from a import b`: the module a.b when there is one, else a
            candidates = [[f"{base}.{alias.name}", base] for alias in node.names]
        else:
            continue
        for options in candidates:
            for target in options:
                parts = target.split(".")
                while parts and ".".join(parts) not in modules:
                    parts.pop()
                if parts:
                    if ".".join(parts) != name:
                        found.add(".".join(parts))
                    break
    return found


def import_graph() -> dict[str, set[str]]:
    modules = repository_modules()
    return {name: imported_modules(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(graph.get(module, ())):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def report() -> tuple[str, list[frozenset[str]]]:
    graph = import_graph()
    found = cycles(graph)
    lines = [
        f"{len(graph)} modules, {sum(map(len, graph.values()))} import edges "
        "(module-level, function-level and TYPE_CHECKING imports)"
    ]
    for component in found:
        known = " (known: tools/ restructure)" if component in KNOWN_CYCLES else ""
        lines.append("cycle: " + " <-> ".join(sorted(component)) + known)
    lines.append(f"{len(found)} import cycle(s), {len(set(found) - KNOWN_CYCLES)} new")
    return "\n".join(lines), found


def test_the_graph_sees_function_level_imports():
    graph = import_graph()
    # `split` imports `differentiation` at module level; `autodiff_opt` imports
    # `pipeline_runner` inside a method: both must be edges.
    assert "gradir.autodiff_pass.differentiation" in graph["gradir.autodiff_pass.split"]
    assert "gradir.tools.pipeline_runner" in graph["gradir.tools.autodiff_opt"]
    assert "gradir.autodiff_pass.rules.interface" in graph["gradir.autodiff_pass.rules.scf"]


def test_no_import_cycles():
    text, found = report()
    assert set(found) <= KNOWN_CYCLES, text


if __name__ == "__main__":
    text, found = report()
    print(text)
    sys.exit(1 if set(found) - KNOWN_CYCLES else 0)
