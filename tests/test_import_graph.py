"""The layout's import rules, checked by scripts/import_graph.py: the backends never import each
other (both build on gradir.mlir_bridge), and no import cycle anywhere."""
import importlib.util
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "import_graph.py"

spec = importlib.util.spec_from_file_location("import_graph", SCRIPT)
import_graph = importlib.util.module_from_spec(spec)
spec.loader.exec_module(import_graph)

PYPROJECT = """
[tool.setuptools.package-dir]
"gradir" = "gradir"
"gradir.cpu_backend" = "cpu_backend"
"gradir.gpu_backend" = "gpu_backend"
"gradir.mlir_bridge" = "mlir_bridge"
"gradir.tools" = "tools"
"""


def fake_repository(root: pathlib.Path, files: dict[str, str]) -> pathlib.Path:
    (root / "pyproject.toml").write_text(PYPROJECT)
    for folder in ("gradir", "cpu_backend", "gpu_backend", "mlir_bridge", "tools"):
        (root / folder).mkdir()
        (root / folder / "__init__.py").write_text("")
    for name, text in files.items():
        (root / name).write_text(text)
    return root


def test_the_repository_keeps_the_rules():
    result = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "forbidden imports (gpu_backend <-> cpu_backend, library -> tools): 0" in result.stdout


def test_a_backend_importing_the_other_is_found(tmp_path):
    root = fake_repository(tmp_path, {
        "mlir_bridge/handoff.py": "",
        "cpu_backend/pipeline.py": "from gradir.mlir_bridge.handoff import x\n",
        "gpu_backend/program.py": "def f():\n    from gradir.cpu_backend import pipeline\n",
    })
    graph = import_graph.import_graph(root)
    packages = set(import_graph.package_folders(root))
    assert import_graph.forbidden_edges(graph, packages) == [
        ("gradir.gpu_backend.program", "gradir.cpu_backend"),
        ("gradir.gpu_backend.program", "gradir.cpu_backend.pipeline"),
    ]


def test_cycles_are_found_and_type_checking_imports_ignored(tmp_path):
    root = fake_repository(tmp_path, {
        "gpu_backend/a.py": "from gradir.gpu_backend.b import f\n",
        "gpu_backend/b.py": "from gradir.gpu_backend import a\n",
        "mlir_bridge/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from gradir.mlir_bridge.d import T\n",
        "mlir_bridge/d.py": "import gradir.mlir_bridge.c\n",
    })
    graph = import_graph.import_graph(root)
    packages = set(import_graph.package_folders(root))
    loops = import_graph.cycles(graph)
    assert loops == [["gradir.gpu_backend.a", "gradir.gpu_backend.b"]]


def test_the_library_importing_a_cli_is_found(tmp_path):
    root = fake_repository(tmp_path, {
        "tools/opt.py": "from gradir.cpu_backend import pipeline\n",
        "cpu_backend/pipeline.py": "",
        "gradir/api.py": "import gradir.tools.opt\n",
    })
    graph = import_graph.import_graph(root)
    packages = set(import_graph.package_folders(root))
    assert import_graph.forbidden_edges(graph, packages) == [("gradir.api", "gradir.tools.opt")]
