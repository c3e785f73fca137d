"""The error contract (README "Errors") as checks, and the case types of the hostile suite.

A CLI case runs a tool's `main(argv)` in this process with file-descriptor capture (so
that anything LLVM writes to fd 2 is seen too) and checks: exit status 1, nothing on
stdout, exactly one line on stderr, `file:line:col: error:` where the case names a
location and `error:` otherwise, never a traceback or an "internal error", and no
output file. A case marked `isolated` runs as a subprocess instead, which also checks
that no signal ended it. An API case checks that the call raises the named
`GradirError` subclass with a one-line message.
"""
from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent

TOOLS = {
    "opt": "gradir.tools.autodiff_opt",
    "run": "gradir.tools.autodiff_run",
    "gradcheck": "gradir.tools.autodiff_gradcheck",
}
COMMANDS = {"opt": "autodiff-opt", "run": "autodiff-run", "gradcheck": "autodiff-gradcheck"}

FileContent = str | bytes | Callable[[Path], None]
"""Text, bytes, or a function that writes the file at the path it gets."""


@dataclass(frozen=True)
class CliCase:
    """One bad invocation of a CLI. `argv` may name `{tmp}` (the case's folder, where
    `files` are written) and `{root}` (the repository)."""

    id: str
    tool: str
    argv: tuple[str, ...]
    expect: str
    """A substring of the error line (after `error: `)."""
    location: str | None = None
    """A regular expression the line must start with before `: error:` (`f.mlir:3:\\d+`),
    relative to `{tmp}`; None: the line must start with `error:`."""
    files: Mapping[str, FileContent] = field(default_factory=dict)
    absent: tuple[str, ...] = ()
    """Paths (under `{tmp}`) that must not exist afterwards (output files)."""
    isolated: bool = False
    """Run as a subprocess (for inputs that could end the process)."""
    memory_cap: int | None = None
    """With `isolated`: the subprocess's address-space limit in bytes (`ulimit -v`)."""


@dataclass(frozen=True)
class ApiCase:
    """One bad use of the Python API: `call(tmp)` must raise `error` (a `GradirError`
    subclass) whose one-line message contains `expect`."""

    id: str
    call: Callable[[Path], object]
    error: type
    expect: str
    files: Mapping[str, FileContent] = field(default_factory=dict)


def write_files(tmp: Path, files: Mapping[str, FileContent]) -> None:
    for name, content in files.items():
        path = tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if callable(content):
            content(path)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


def expand(argv: tuple[str, ...], tmp: Path) -> list[str]:
    return [a.replace("{tmp}", str(tmp)).replace("{root}", str(ROOT)) for a in argv]


def run_in_process(case: CliCase, argv: list[str], capfd) -> tuple[int, str, str]:
    import importlib

    main = importlib.import_module(TOOLS[case.tool]).main
    try:
        status = main(argv)
    except SystemExit as exit:  # argparse's usage errors, as the installed script would end
        status = exit.code if isinstance(exit.code, int) else 1
    out, err = capfd.readouterr()
    return status, out, err


def run_isolated(case: CliCase, argv: list[str], cwd: Path) -> tuple[int, str, str]:
    def cap_memory() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (case.memory_cap, case.memory_cap))

    done = subprocess.run(
        [str(BIN / COMMANDS[case.tool]), *argv],
        capture_output=True, text=True, timeout=120, cwd=cwd,
        preexec_fn=cap_memory if case.memory_cap else None,
    )  # fmt: skip
    return done.returncode, done.stdout, done.stderr


LOCATED = re.compile(r"^(?P<where>.+?:\d+:\d+): error: ")


def check_cli_contract(case: CliCase, tmp: Path, status: int, out: str, err: str) -> str:
    """Assert the contract; return the error line."""
    assert status == 1, f"exit status {status} (a negative one is a signal)\nstderr: {err}"
    assert out == "", f"stdout is not empty: {out[:500]!r}"
    lines = err.splitlines()
    assert len(lines) == 1, f"{len(lines)} lines on stderr:\n{err[:2000]}"
    (line,) = lines
    assert "Traceback" not in line and "internal error" not in line, line
    if case.location is None:
        assert line.startswith("error: "), f"expected no location: {line}"
    else:
        match = LOCATED.match(line)
        assert match, f"expected a location: {line}"
        where = match["where"].replace(str(tmp) + "/", "")
        assert re.fullmatch(case.location, where), f"location {where!r} is not {case.location!r}"
    assert case.expect in line, f"{case.expect!r} not in {line!r}"
    for name in case.absent:
        assert not (tmp / name).exists(), f"output {name} was written"
    return line
