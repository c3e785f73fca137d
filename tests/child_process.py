"""Run a Python script in a child process: for code that could end the test session
(a segmentation fault, an abort, a hang) if it regressed."""
from __future__ import annotations

import pathlib
import subprocess
import sys


def run_python(script: str, cwd: pathlib.Path, timeout: float = 300) -> str:
    """What `script` printed; a failed assertion naming its stderr (or its exit status,
    a signal's negative number) unless it exited 0. A `subprocess.TimeoutExpired` past
    `timeout` seconds. `cwd`: away from a checkout, since `python -c` puts its working
    directory first on sys.path, where a checkout's gradir/ folder would hide the
    installed package (CI installs it non-editable)."""
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout, cwd=cwd)
    assert completed.returncode == 0, completed.stderr[-2000:] or f"exit status {completed.returncode}"
    return completed.stdout


WITHOUT_COMPILER_STACK = """
import sys

class NoCompilerStack:
    '''Every import of xdsl or mlir fails, as on a machine that lacks them.'''

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("xdsl", "mlir"):
            raise ImportError(f"{name} is blocked in this process")
        return None

sys.meta_path.insert(0, NoCompilerStack())
"""
"""A script's first lines that make every import of xdsl or mlir fail: for code that must
run where only NumPy is (exported libraries, `gradir.load`, the device check's runner)."""
