"""The import graph of gradir's modules, read from the source with `ast`, and the two rules the
layout promises (README, "Layout"):

- the backends are independent: no module of `gradir.gpu_backend` imports a module of
  `gradir.cpu_backend`, nor the other way round (both may import `gradir.mlir_bridge`);
- `tools/` holds the command-line programs: no library module imports `gradir.tools`;
- no import cycle between modules.

Every import counts, also one inside a function (a lazy import is still a dependency), except
those under `if TYPE_CHECKING:` (annotations only).
Usage: `python scripts/import_graph.py [--edges]`; prints the package-level graph and each
violation, exit status 1 on any. `tests/test_import_graph.py` runs it.
"""
from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "gradir"


def package_folders(root: Path = ROOT) -> dict[str, Path]:
    """`gradir.<name>` -> its folder, from pyproject.toml's package-dir mapping."""
    import tomllib

    with open(root / "pyproject.toml", "rb") as stream:
        mapping = tomllib.load(stream)["tool"]["setuptools"]["package-dir"]
    return {name: root / folder for name, folder in mapping.items()}


def module_files(root: Path = ROOT) -> dict[str, Path]:
    """Dotted module name -> source file, for every module of every mapped package."""
    modules: dict[str, Path] = {}
    for package, folder in package_folders(root).items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join([package, *parts])] = path
    return modules


def _is_type_checking_block(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return isinstance(test, (ast.Name, ast.Attribute)) and ast.unparse(test).endswith("TYPE_CHECKING")


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node of `tree` except those under `if TYPE_CHECKING:` (annotations only)."""
    nodes, pending = [], [tree]
    while pending:
        node = pending.pop()
        nodes.append(node)
        if _is_type_checking_block(node):
            pending += node.orelse
            continue
        pending += ast.iter_child_nodes(node)
    return nodes


def _imported_names(path: Path, module: str) -> set[str]:
    """Every absolute module name an import in `path` may refer to (relative ones resolved)."""
    tree = ast.parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"
    names: set[str] = set()
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                base = ".".join([*anchor, base]) if base else ".".join(anchor)
            names.add(base)
            names |= {f"{base}.{alias.name}" for alias in node.names}
    return names


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the gradir modules it imports."""
    modules = module_files(root)
    return {
        module: {name for name in _imported_names(path, module) if name in modules and name != module}
        for module, path in modules.items()
    }


def top_package(module: str, packages: set[str]) -> str:
    """The mapped package `module` belongs to: `gradir.gpu_backend.ptx` -> `gradir.gpu_backend`,
    `gradir.errors` -> `gradir`."""
    parts = module.split(".")
    while len(parts) > 1 and ".".join(parts) not in packages:
        parts.pop()
    return ".".join(parts)

FORBIDDEN = {
    ("gradir.gpu_backend", "gradir.cpu_backend"),
    ("gradir.cpu_backend", "gradir.gpu_backend"),
}
"""(importer's package, imported package) pairs the layout rules out."""


CLI_PACKAGE = "gradir.tools"
"""The command-line programs: they may import the library, never the other way round."""


def is_forbidden(importer: str, imported: str) -> bool:
    return (importer, imported) in FORBIDDEN or (
        imported == CLI_PACKAGE and importer != CLI_PACKAGE
    )


def forbidden_edges(graph: dict[str, set[str]], packages: set[str]) -> list[tuple[str, str]]:
    return sorted(
        (module, target)
        for module, targets in graph.items()
        for target in targets
        if is_forbidden(top_package(module, packages), top_package(target, packages))
    )


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
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

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(graph)))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def package_edges(graph: dict[str, set[str]], packages: set[str]) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = defaultdict(set)
    for module, targets in graph.items():
        for target in targets:
            source, imported = top_package(module, packages), top_package(target, packages)
            if source != imported:
                edges[source].add(imported)
    return edges


def main(argv: list[str]) -> int:
    graph, packages = import_graph(), set(package_folders())
    print(f"{len(graph)} modules, {sum(map(len, graph.values()))} imports between them")
    print("package -> packages it imports:")
    for package, targets in sorted(package_edges(graph, packages).items()):
        print(f"  {package} -> {', '.join(sorted(targets))}")
    if "--edges" in argv:
        for module, targets in sorted(graph.items()):
            for target in sorted(targets):
                print(f"  {module} -> {target}")
    bad = forbidden_edges(graph, packages)
    print(f"forbidden imports (gpu_backend <-> cpu_backend, library -> tools): {len(bad)}")
    for module, target in bad:
        print(f"  {module} -> {target}")
    loops = cycles(graph)
    print(f"import cycles: {len(loops)}")
    for loop in loops:
        print(f"  {' <-> '.join(loop)}")
    return 1 if bad or loops else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
