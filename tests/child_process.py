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
