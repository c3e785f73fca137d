"""lit configuration: runs every `.mlir` test under lit_tests/ with the
`autodiff-opt` and `filecheck` of the active virtualenv (or of PATH)."""
import os
import shutil
import sys

import lit.formats

config.name = "gradir"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = ["lit.cfg.py", "Inputs"]

# Prefer the tools next to the Python running lit (the project's venv).
bin_dir = os.path.dirname(sys.executable)
path = os.pathsep.join([bin_dir, os.environ.get("PATH", "")])
config.environment["PATH"] = path
for tool in ("autodiff-opt", "filecheck"):
    if shutil.which(tool, path=path) is None:
        lit_config.fatal(f"'{tool}' not found on PATH; install the project with `pip install -e .[test]`")
config.substitutions.append(("%python", sys.executable))
