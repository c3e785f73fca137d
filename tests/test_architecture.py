"""The folder layout is the architecture: these checks keep it honest.

The import graph is read from the sources with `ast` (every import statement,
at module level or inside a function, since a function-level import is still a
dependency), over every module of the installed packages.
"""
from __future__ import annotations

import ast
import pathlib
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def package_folders() -> dict[str, pathlib.Path]:
    """Import package -> folder, from pyproject's package-dir mapping."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    mapping = config["tool"]["setuptools"]["package-dir"]
    return {package: ROOT / folder for package, folder in mapping.items()}


def modules() -> dict[str, pathlib.Path]:
    """Every module of gradir by import name."""
    found: dict[str, pathlib.Path] = {}
    for package, folder in package_folders().items():
        for path in folder.rglob("*.py"):
            parts = path.relative_to(folder).with_suffix("").parts
            name = ".".join((package, *parts))
            found[name.removesuffix(".__init__")] = path
    return found


def import_graph() -> dict[str, set[str]]:
    """Module -> the gradir modules it imports (anywhere in its source)."""
    known = modules()
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
            else:
                continue
            graph[name].update(t for t in targets if t in known and t != name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in graph[node]:
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in graph:
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_the_packages():
    graph = import_graph()
    assert "gradir.autodiff_pass.reverse" in graph
    assert "gradir.pass_table" in graph["gradir.tools.autodiff_opt"]


def test_no_import_cycles():
    assert cycles(import_graph()) == []


def test_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_backends_do_not_import_each_other():
    """The CPU and GPU paths each live in their own folder; what both need is shared."""
    graph = import_graph()
    crossing = [
        (source, target)
        for source, targets in graph.items()
        for target in targets
        for a, b in (("gradir.gpu_backend", "gradir.cpu_backend"), ("gradir.cpu_backend", "gradir.gpu_backend"))
        if source.startswith(a + ".") and target.startswith(b + ".")
    ]
    assert crossing == []


def test_library_code_does_not_import_the_clis():
    """`tools/` holds the command-line programs; nothing of the library depends on them."""
    graph = import_graph()
    offenders = [
        (source, target)
        for source, targets in graph.items()
        if not source.startswith("gradir.tools")
        for target in targets
        if target.startswith("gradir.tools")
    ]
    assert offenders == []
