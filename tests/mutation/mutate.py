#!/usr/bin/env python3
"""Mutation testing for gradir: how many deliberately broken versions of the source
does the test suite catch?

For each target file (tests/mutation/targets.toml) the harness lists every mutant its
operators can make, samples a fixed number with a fixed seed, and for each one writes
the mutated file in place (the package is an editable install, so tests import it),
runs the tests that should catch it, and restores the file, also on Ctrl-C, SIGTERM
or an exception; a journal in the output folder restores it after a hard kill.

Test selection: one coverage run of the unmutated code (coverage_map_plugin.py)
records which test executes which line; a mutant runs, with `-x`, only the tests of
its group's pytest selection that execute its lines (fastest first; a line run at
import time selects the whole selection; a line run by a module-scoped fixture
selects the tests using it), then its group's lit selection with --max-failures 1.
`--confirm-survivors N` reruns N survivors against the whole pytest selection, to
measure what this narrowing misses.

Operators (skipping docstrings, f-strings, string concatenation, logging calls,
type hints, `if TYPE_CHECKING`, `__all__`, and lines marked `# pragma: no mutate`):
  arithmetic   + <-> -, * <-> /, // -> *, % -> *, ** -> *, << <-> >>, & <-> |, ^ -> |,
               augmented assignments likewise, unary minus removed
  compare      == <-> !=, < <-> <=, > <-> >=, is <-> is not, in <-> not in
  boolean      and <-> or
  not          `not x` -> `x`
  constant     0 <-> 1, other integers n -> n + 1, 0.0 <-> 1.0, other floats x -> x + 1,
               True <-> False
  if-swap      `if c:` -> `if not (c):` (the branches swap), `a if c else b` likewise
  return-none  `return x` -> `return None`
  delete       a simple statement (call, assignment, assert, break, continue) -> `pass`
  raise        `raise E` -> `pass` (the error path runs on)

Usage: bash scripts/mutation [options]   (see --help)
"""
from __future__ import annotations

import argparse
import ast
import copy
import dataclasses
import datetime
import difflib
import hashlib
import importlib.util
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from collections import Counter, defaultdict
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent

# --------------------------------------------------------------------------------------
# Configuration


@dataclasses.dataclass
class Group:
    name: str
    sources: list[str]  # repository-relative paths of the files to mutate
    pytest: list[str]
    lit: list[str]
    per_file: int


@dataclasses.dataclass
class Config:
    seed: int
    lit_jobs: int
    timeout_factor: float
    groups: list[Group]
    text: str

    def group_of(self, path: str) -> Group:
        return next(group for group in self.groups if path in group.sources)


def load_config(path: Path, per_file_override: int | None) -> Config:
    text = path.read_text()
    data = tomllib.loads(text)
    defaults = data.get("defaults", {})
    groups = []
    for entry in data["group"]:
        excluded = {str(p.relative_to(ROOT)) for pattern in entry.get("exclude", []) for p in ROOT.glob(pattern)}
        sources = sorted(
            {str(p.relative_to(ROOT)) for pattern in entry["sources"] for p in ROOT.glob(pattern)} - excluded
        )
        if not sources:
            sys.exit(f"mutation: group {entry['name']!r}: no file matches {entry['sources']} (did files move?)")
        for selection in entry.get("pytest", []) + entry.get("lit", []):
            if not (ROOT / selection.split("::")[0]).exists():
                sys.exit(f"mutation: group {entry['name']!r}: test selection {selection!r} does not exist")
        groups.append(
            Group(
                name=entry["name"],
                sources=sources,
                pytest=list(entry.get("pytest", [])),
                lit=list(entry.get("lit", [])),
                per_file=per_file_override or entry.get("per_file", defaults.get("per_file", 5)),
            )
        )
    return Config(
        seed=defaults.get("seed", 0),
        lit_jobs=defaults.get("lit_jobs", 1),
        timeout_factor=defaults.get("timeout_factor", 3.0),
        groups=groups,
        text=text,
    )


# --------------------------------------------------------------------------------------
# Mutants


@dataclasses.dataclass
class Mutant:
    path: str
    line: int
    col: int
    operator: str
    before: str  # for the report
    after: str
    start: int  # byte offsets of the replaced span in the original file
    end: int
    replacement: str
    lines: list[int]  # lines whose coverage selects the tests

    @property
    def id(self) -> str:
        digest = hashlib.sha1(f"{self.start}:{self.end}:{self.replacement}".encode()).hexdigest()[:8]
        return f"{self.path}:{self.line}:{self.col}:{self.operator}:{digest}"

    def apply(self, original: bytes) -> bytes:
        return original[: self.start] + self.replacement.encode() + original[self.end :]

    def change(self) -> str:
        return f"{self.operator}: `{self.before}` -> `{self.after}`"


ARITHMETIC = {
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Mult,
    ast.Mod: ast.Mult, ast.Pow: ast.Mult, ast.LShift: ast.RShift, ast.RShift: ast.LShift,
    ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd, ast.BitXor: ast.BitOr,
}
COMPARE = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
    ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In,
}
OPERATOR_TEXT = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
    ast.LShift: "<<", ast.RShift: ">>", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^",
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
    ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
}
LOGGING_NAMES = {"log", "logger", "logging", "_log", "_logger", "LOG", "LOGGER"}
LOGGING_METHODS = {"debug", "info", "warning", "warn", "error", "exception", "critical", "log"}
DELETABLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Assert, ast.Delete, ast.Break, ast.Continue)


def _short(text: str, limit: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_stringish(node: ast.AST) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)))


def _is_logging_call(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    base = node.func.value
    return isinstance(base, ast.Name) and base.id in LOGGING_NAMES and node.func.attr in LOGGING_METHODS


def _is_docstring(statement: ast.stmt, parent: ast.AST) -> bool:
    body = getattr(parent, "body", None)
    return (
        isinstance(statement, ast.Expr)
        and _is_stringish(statement.value)
        and isinstance(parent, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and bool(body)
        and body[0] is statement
    )


class MutantFinder:
    """Lists the mutants of one file as source splices (the rest of the file is untouched)."""

    def __init__(self, path: str, source: bytes):
        self.path = path
        self.source = source
        self.tree = ast.parse(source)
        self.line_starts = [0]
        for line in source.splitlines(keepends=True):
            self.line_starts.append(self.line_starts[-1] + len(line))
        self.lines = source.decode().splitlines()
        self.skipped: set[int] = set()
        self._mark_skipped()

    # -- spans
    def offset(self, line: int, col: int) -> int:
        return self.line_starts[line - 1] + col  # ast columns are UTF-8 byte offsets

    def span(self, node: ast.AST) -> tuple[int, int]:
        return self.offset(node.lineno, node.col_offset), self.offset(node.end_lineno, node.end_col_offset)

    def text(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.source[start:end].decode()

    def wrapped(self, node: ast.AST) -> str:
        return f"({self.text(node)})"

    # -- what is never mutated
    def _skip_subtree(self, node: ast.AST | None) -> None:
        if node is not None:
            for child in ast.walk(node):
                self.skipped.add(id(child))

    def _mark_skipped(self) -> None:
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._skip_subtree(node.returns)
                arguments = node.args
                for argument in arguments.posonlyargs + arguments.args + arguments.kwonlyargs + [
                    arguments.vararg, arguments.kwarg
                ]:
                    if argument is not None:
                        self._skip_subtree(argument.annotation)
            elif isinstance(node, ast.AnnAssign):
                self._skip_subtree(node.annotation)
            elif isinstance(node, (ast.JoinedStr, ast.match_case)):
                self._skip_subtree(node.pattern if isinstance(node, ast.match_case) else node)
            elif _is_logging_call(node):
                self._skip_subtree(node)
            elif isinstance(node, ast.If) and (
                "TYPE_CHECKING" in ast.unparse(node.test) or "__main__" in ast.unparse(node.test)
            ):
                self._skip_subtree(node)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and t.id in ("__all__", "__slots__") for t in targets):
                    self._skip_subtree(node)
            elif isinstance(node, (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal)):
                self._skip_subtree(node)
            elif isinstance(node, ast.BinOp) and (
                _is_stringish(node.left) or _is_stringish(node.right)
            ) and isinstance(node.op, (ast.Add, ast.Mod)):
                self._skip_subtree(node)  # message building
        for number, line in enumerate(self.lines, start=1):
            if "pragma: no mutate" in line:
                for node in ast.walk(self.tree):
                    if getattr(node, "lineno", None) == number:
                        self.skipped.add(id(node))

    # -- mutants
    def mutants(self) -> list[Mutant]:
        found: list[Mutant] = []
        parents: dict[int, ast.AST] = {}
        for parent in ast.walk(self.tree):
            for child in ast.iter_child_nodes(parent):
                parents[id(child)] = parent
        for node in ast.walk(self.tree):
            if id(node) in self.skipped:
                continue
            found.extend(self._mutants_of(node, parents.get(id(node))))
        # Identical results from different operators count once; results must compile.
        unique: dict[bytes, Mutant] = {}
        for mutant in found:
            mutated = mutant.apply(self.source)
            if mutated == self.source or mutated in unique:
                continue
            try:
                compile(mutated, self.path, "exec")
            except SyntaxError:
                continue
            unique[mutated] = mutant
        return sorted(unique.values(), key=lambda m: (m.line, m.col, m.operator, m.replacement))

    def _make(self, node, operator, replacement, before, after, span=None, lines=None) -> Mutant:
        start, end = span or self.span(node)
        return Mutant(
            path=self.path,
            line=node.lineno,
            col=node.col_offset,
            operator=operator,
            before=_short(before),
            after=_short(after),
            start=start,
            end=end,
            replacement=replacement,
            lines=lines or list(range(node.lineno, node.end_lineno + 1)),
        )

    def _mutants_of(self, node: ast.AST, parent: ast.AST | None) -> Iterator[Mutant]:
        if isinstance(node, ast.BinOp) and type(node.op) in ARITHMETIC:
            new = ARITHMETIC[type(node.op)]
            shown = copy.copy(node)
            shown.op = new()
            yield self._make(
                node, "arithmetic",
                f"({self.wrapped(node.left)} {OPERATOR_TEXT[new]} {self.wrapped(node.right)})",
                ast.unparse(node), ast.unparse(shown),
            )
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and not isinstance(node.operand, ast.Constant):
            yield self._make(node, "arithmetic", self.wrapped(node.operand), ast.unparse(node), ast.unparse(node.operand))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            yield self._make(node, "not", self.wrapped(node.operand), ast.unparse(node), ast.unparse(node.operand))
        elif isinstance(node, ast.Compare):
            for index, op in enumerate(node.ops):
                new_ops = list(node.ops)
                new_ops[index] = COMPARE[type(op)]()
                parts = [self.wrapped(node.left)]
                for new_op, comparator in zip(new_ops, node.comparators):
                    parts += [OPERATOR_TEXT[type(new_op)], self.wrapped(comparator)]
                shown = copy.copy(node)
                shown.ops = new_ops
                yield self._make(node, "compare", f"({' '.join(parts)})", ast.unparse(node), ast.unparse(shown))
        elif isinstance(node, ast.BoolOp):
            new = " or " if isinstance(node.op, ast.And) else " and "
            shown = copy.copy(node)
            shown.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
            yield self._make(
                node, "boolean", "(" + new.join(self.wrapped(v) for v in node.values) + ")",
                ast.unparse(node), ast.unparse(shown),
            )
        elif isinstance(node, ast.Constant) and not _is_stringish(node) and node.value is not None and node.value is not Ellipsis:
            value = node.value
            if isinstance(value, bool):
                new_value = not value
            elif isinstance(value, int):
                new_value = {0: 1, 1: 0}.get(value, value + 1)
            elif isinstance(value, float):
                new_value = {0.0: 1.0, 1.0: 0.0}.get(value, value + 1.0)
            else:
                return
            yield self._make(node, "constant", repr(new_value), repr(value), repr(new_value))
        elif isinstance(node, ast.IfExp):
            yield self._make(
                node, "if-swap",
                f"({self.wrapped(node.body)} if not {self.wrapped(node.test)} else {self.wrapped(node.orelse)})",
                ast.unparse(node), f"... if not ({ast.unparse(node.test)}) else ...",
            )
        elif isinstance(node, ast.If):
            yield self._make(
                node.test, "if-swap", f"not {self.wrapped(node.test)}",
                f"if {ast.unparse(node.test)}:", f"if not ({ast.unparse(node.test)}):",
                lines=[node.lineno, *range(node.test.lineno, node.test.end_lineno + 1)],
            )
        if isinstance(node, ast.stmt):
            yield from self._statement_mutants(node, parent)

    def _statement_mutants(self, node: ast.stmt, parent: ast.AST | None) -> Iterator[Mutant]:
        first_line = ast.unparse(node).splitlines()[0] if not isinstance(node, ast.Raise) else ast.unparse(node)
        if isinstance(node, ast.Return) and node.value is not None and not (
            isinstance(node.value, ast.Constant) and node.value.value is None
        ):
            yield self._make(node, "return-none", "return None", first_line, "return None")
        elif isinstance(node, ast.Raise):
            yield self._make(node, "raise", "pass", first_line, "pass")
        elif isinstance(node, ast.AugAssign) and type(node.op) in ARITHMETIC:
            new = ARITHMETIC[type(node.op)]
            shown = copy.copy(node)
            shown.op = new()
            yield self._make(
                node, "arithmetic", f"{self.text(node.target)} {OPERATOR_TEXT[new]}= {self.wrapped(node.value)}",
                ast.unparse(node), ast.unparse(shown),
            )
        if isinstance(node, DELETABLE) and parent is not None and not _is_docstring(node, parent):
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                return  # `...` or a bare string: nothing to delete
            if isinstance(node, ast.AnnAssign) and node.value is None:
                return
            yield self._make(node, "delete", "pass", first_line, "pass")


def sample(mutants: list[Mutant], count: int, seed: int, path: str) -> list[Mutant]:
    """`count` mutants of one file. Seeded by the file's name, not its folder: a file
    that moves unchanged keeps its sample."""
    # Operators take turns (in a shuffled order), so that five mutants of a file are five
    # kinds of fault rather than mostly statement deletions, the most numerous kind.
    generator = random.Random(f"{seed}:{Path(path).name}")
    by_operator: dict[str, list[Mutant]] = defaultdict(list)
    for mutant in mutants:
        by_operator[mutant.operator].append(mutant)
    queues = [generator.sample(group, len(group)) for _, group in sorted(by_operator.items())]
    generator.shuffle(queues)
    chosen: list[Mutant] = []
    while len(chosen) < count and any(queues):
        for queue in queues:
            if queue and len(chosen) < count:
                chosen.append(queue.pop())
    return sorted(chosen, key=lambda m: (m.line, m.col))


# --------------------------------------------------------------------------------------
# Running things


def child_environment() -> dict[str, str]:
    environment = dict(os.environ)
    environment.pop("COVERAGE_PROCESS_START", None)
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    environment["PATH"] = f"{VENV / 'bin'}{os.pathsep}{environment.get('PATH', '')}"
    return environment


def run_process(command: list[str], timeout: float | None, log: Path, environment=None) -> tuple[str, int, float]:
    """Runs `command` in its own process group; returns ("ok" | "timeout", exit status, seconds)."""
    start = time.monotonic()
    with open(log, "w") as output:
        process = subprocess.Popen(
            command, cwd=ROOT, stdout=output, stderr=subprocess.STDOUT,
            env=environment or child_environment(), start_new_session=True,
        )
        try:
            status = process.wait(timeout=timeout)
            return "ok", status, time.monotonic() - start
        except subprocess.TimeoutExpired:
            return "timeout", -1, time.monotonic() - start
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def tail(log: Path, lines: int = 6) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def pycache_of(path: Path) -> Path:
    return Path(importlib.util.cache_from_source(str(path)))


class MutatedFile:
    """Writes a mutant over its file and puts the original back on exit, whatever happens.

    The original is also copied to OUT/backup with a journal entry, so that a run killed
    with SIGKILL is repaired by the next start (`recover`). Compiled bytecode of the file
    is removed before and after, so no process can import a stale .pyc."""

    def __init__(self, mutant: Mutant, out: Path):
        self.path = ROOT / mutant.path
        self.mutant = mutant
        self.journal = out / "in-flight.json"
        self.backup = out / "backup" / mutant.path

    def __enter__(self) -> "MutatedFile":
        self.original = self.path.read_bytes()
        self.stat = self.path.stat()
        self.backup.parent.mkdir(parents=True, exist_ok=True)
        self.backup.write_bytes(self.original)
        self.journal.write_text(json.dumps({"path": str(self.path), "backup": str(self.backup)}))
        pycache_of(self.path).unlink(missing_ok=True)
        self.path.write_bytes(self.mutant.apply(self.original))
        return self

    def __exit__(self, *exc) -> None:
        self.path.write_bytes(self.original)
        os.utime(self.path, ns=(self.stat.st_atime_ns, self.stat.st_mtime_ns))
        pycache_of(self.path).unlink(missing_ok=True)
        self.journal.unlink(missing_ok=True)


def recover(out: Path) -> None:
    journal = out / "in-flight.json"
    if journal.exists():
        entry = json.loads(journal.read_text())
        path, backup = Path(entry["path"]), Path(entry["backup"])
        if backup.exists() and path.read_bytes() != backup.read_bytes():
            shutil.copyfile(backup, path)
            pycache_of(path).unlink(missing_ok=True)
            print(f"mutation: restored {path} from {backup} (an earlier run was killed mid-mutant)")
        journal.unlink()


def in_selection(node_id: str, selection: list[str]) -> bool:
    for entry in selection:
        entry = entry.rstrip("/")
        if node_id == entry or node_id.startswith(entry + "/") or node_id.startswith(entry + "::"):
            return True
    return False


# --------------------------------------------------------------------------------------
# Baseline: unmutated timings and the coverage map


@dataclasses.dataclass
class Baseline:
    outcomes: dict[str, dict]  # node id -> outcome, duration, fixtures
    lines: dict[str, dict[int, list[str]]]  # file -> line -> contexts
    lit_seconds: dict[str, float]  # group -> seconds
    pytest_seconds: float


def baseline_key(config: Config) -> str:
    """Identifies the checkout's content (blobs in the index + uncommitted changes) and
    the config; the harness's own files are left out, so fixing it keeps the cache."""
    outside_harness = [".", ":!tests/mutation", ":!scripts/mutation"]
    blobs = subprocess.run(["git", "ls-files", "-s", "--", *outside_harness], cwd=ROOT, capture_output=True, text=True).stdout
    diff = subprocess.run(["git", "diff", "HEAD", "--", *outside_harness], cwd=ROOT, capture_output=True, text=True).stdout
    return hashlib.sha256((blobs + diff + config.text).encode()).hexdigest()[:12]


def compute_baseline(config: Config, out: Path, fresh: bool) -> Baseline:
    folder = out / f"baseline-{baseline_key(config)}"
    saved = folder / "baseline.json"
    if saved.exists() and not fresh:
        data = json.loads(saved.read_text())
        print(f"mutation: reusing the unmutated run in {folder}")
        return Baseline(
            data["outcomes"], {f: {int(k): v for k, v in lines.items()} for f, lines in data["lines"].items()},
            data["lit_seconds"], data["pytest_seconds"],
        )
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    sources = [str(ROOT / path) for group in config.groups for path in group.sources]
    rc_file = folder / "coveragerc"
    rc_file.write_text(
        "[run]\nparallel = true\n"
        f"data_file = {folder / 'coverage' / 'data'}\n"
        "context = ${GRADIR_MUTATION_CONTEXT-}\n"
        "include =\n" + "".join(f"    {path}\n" for path in sources)
    )
    (folder / "coverage").mkdir()
    selections = list(dict.fromkeys(entry for group in config.groups for entry in group.pytest))
    environment = child_environment()
    environment.pop("PYTHONDONTWRITEBYTECODE")
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), environment.get("PYTHONPATH", "")]))
    environment["GRADIR_MUTATION_COVERAGE_RC"] = str(rc_file)
    environment["GRADIR_MUTATION_OUTCOMES"] = str(folder / "outcomes.json")
    print(f"mutation: unmutated run of {' '.join(selections)} under coverage ...", flush=True)
    _, status, pytest_seconds = run_process(
        [str(VENV / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "coverage_map_plugin",
         *selections],
        None, folder / "pytest.log", environment,
    )
    outcomes = json.loads((folder / "outcomes.json").read_text()) if (folder / "outcomes.json").exists() else {}
    failed = [node for node, entry in outcomes.items() if entry["outcome"] == "failed"]
    if status != 0 or failed:
        sys.exit(
            f"mutation: the unmutated pytest selection fails (exit {status}); a harness or checkout bug:\n"
            + "\n".join(failed[:20]) + "\n" + tail(folder / "pytest.log", 20)
        )
    print(f"mutation: {len(outcomes)} tests pass unmutated in {pytest_seconds:.0f} s (under coverage)")

    import coverage  # the project's venv has it (scripts/mutation installs it)

    measured = coverage.Coverage(config_file=str(rc_file))
    measured.combine()
    data = measured.get_data()
    lines: dict[str, dict[int, list[str]]] = {}
    for path in sources:
        by_line = data.contexts_by_lineno(path)
        lines[str(Path(path).relative_to(ROOT))] = {line: sorted(set(c)) for line, c in by_line.items()}

    lit_seconds = {}
    for group in config.groups:
        if not group.lit:
            continue
        _, status, seconds = run_process(
            [str(VENV / "bin" / "lit"), "-q", "-j", str(config.lit_jobs), *group.lit],
            None, folder / f"lit-{group.name}.log",
        )
        if status != 0:
            sys.exit(f"mutation: lit {' '.join(group.lit)} fails unmutated:\n{tail(folder / f'lit-{group.name}.log', 20)}")
        lit_seconds[group.name] = seconds
        print(f"mutation: lit {' '.join(group.lit)} passes unmutated in {seconds:.0f} s")
    saved.write_text(json.dumps(
        {"outcomes": outcomes, "lines": lines, "lit_seconds": lit_seconds, "pytest_seconds": pytest_seconds}
    ))
    return Baseline(outcomes, lines, lit_seconds, pytest_seconds)


def covering_tests(mutant: Mutant, group: Group, baseline: Baseline) -> tuple[list[str], bool]:
    """The group's tests that execute the mutant's lines, fastest first; True when a line
    runs at import time (then every test of the selection is a candidate)."""
    by_line = baseline.lines.get(mutant.path, {})
    contexts = {context for line in mutant.lines for context in by_line.get(line, [])}
    selected = {
        node for node, entry in baseline.outcomes.items()
        if entry["outcome"] == "passed" and in_selection(node, group.pytest)
        and (node in contexts or any(fixture in contexts for fixture in entry["fixtures"]))
    }
    return order_tests(selected, baseline), "" in contexts


def order_tests(nodes: set[str], baseline: Baseline) -> list[str]:
    """Test files with the least to run first (a mutant is killed soonest), each file's
    tests in their usual order (module-scoped fixtures are set up once)."""
    by_file: dict[str, list[str]] = defaultdict(list)
    for node in baseline.outcomes:  # the unmutated run's order
        if node in nodes:
            by_file[node.split("::")[0]].append(node)
    files = sorted(by_file, key=lambda f: sum(baseline.outcomes[n]["duration"] for n in by_file[f]))
    return [node for file in files for node in by_file[file]]


# --------------------------------------------------------------------------------------
# One mutant


def run_mutant(mutant: Mutant, config: Config, baseline: Baseline, out: Path, full: bool = False) -> dict:
    group = config.group_of(mutant.path)
    tests, at_import = covering_tests(mutant, group, baseline)
    logs = out / "logs"
    logs.mkdir(exist_ok=True)
    result = {"id": mutant.id, "path": mutant.path, "line": mutant.line, "operator": mutant.operator,
              "change": mutant.change(), "group": group.name, "tests": len(tests), "at_import": at_import}
    started = time.monotonic()
    with MutatedFile(mutant, out):
        if full or at_import:
            # A line run at import time can change what any test sees: the whole selection.
            everything = {n for n, e in baseline.outcomes.items() if e["outcome"] == "passed" and in_selection(n, group.pytest)}
            arguments = order_tests(everything, baseline)
        else:
            arguments = tests
        budget = sum(baseline.outcomes[node]["duration"] for node in arguments)
        if arguments:
            argument_file = out / "pytest-arguments.txt"
            argument_file.write_text("\n".join(arguments) + "\n")
            timeout = config.timeout_factor * (budget + 10) + 30
            kind, status, _ = run_process(
                [str(VENV / "bin" / "python"), "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                 f"@{argument_file}"],
                timeout, logs / "pytest.log",
            )
            log_text = (logs / "pytest.log").read_text(errors="replace")
            if kind == "timeout":
                result.update(status="timeout", by="pytest")
            elif status == 4 and "found no collectors" in log_text:
                # A test module no longer imports: pytest calls the node ids unusable.
                result.update(status="killed", by="pytest", detail="collection error: " + tail(logs / "pytest.log", 2))
            elif status in (4, 5):
                result.update(status="error", by="pytest", detail=tail(logs / "pytest.log"))
            elif status != 0:
                result.update(status="killed", by="pytest", detail=tail(logs / "pytest.log", 3))
        if "status" not in result and group.lit:
            timeout = config.timeout_factor * baseline.lit_seconds.get(group.name, 60) + 30
            kind, status, _ = run_process(
                [str(VENV / "bin" / "lit"), "-q", "--max-failures", "1", "-j", str(config.lit_jobs), *group.lit],
                timeout, logs / "lit.log",
            )
            if kind == "timeout":
                result.update(status="timeout", by="lit")
            elif status != 0:
                result.update(status="killed", by="lit", detail=tail(logs / "lit.log", 3))
        if "status" not in result:
            result["status"] = "survived" if arguments else "survived-uncovered"
    result["seconds"] = round(time.monotonic() - started, 1)
    return result


# --------------------------------------------------------------------------------------
# Report

KILLED = ("killed",)
COUNTED = ("killed", "timeout", "survived", "survived-uncovered")


def rate(counts: Counter) -> str:
    total = sum(counts[s] for s in COUNTED)
    if not total:
        return "-"
    return f"{100 * (counts['killed'] + counts['timeout']) / total:.0f}%"


def write_report(path: Path, config: Config, baseline: Baseline, plan: dict[str, list[Mutant]],
                 candidates: dict[str, int], results: dict[str, dict], wall: float, args) -> None:
    per_file = {file: Counter(results[m.id]["status"] for m in mutants if m.id in results) for file, mutants in plan.items()}
    per_group: dict[str, Counter] = defaultdict(Counter)
    for file, counts in per_file.items():
        per_group[config.group_of(file).name] += counts
    total = sum(per_group.values(), Counter())
    out = []
    head = subprocess.run(["git", "log", "-1", "--format=%h %s"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    out.append(f"# Mutation report ({datetime.date.today()})\n")
    out.append(f"- code: `{head}` ({ROOT})")
    out.append(f"- command: `bash scripts/mutation {' '.join(sys.argv[1:])}`")
    out.append(f"- seed {config.seed}; mutants per file: " + ", ".join(f"{g.name} {g.per_file}" for g in config.groups))
    out.append(f"- time: the mutants' runs add up to {sum(r.get('seconds', 0) for r in results.values()) / 60:.0f} min "
               f"(this invocation: {wall / 60:.0f} min, survivor confirmation included); the unmutated pytest run "
               f"under coverage took {baseline.pytest_seconds:.0f} s")
    out.append(f"- **overall kill rate {rate(total)}**: {sum(total[s] for s in COUNTED)} mutants, {total['killed']} killed, "
               f"{total['timeout']} timeout, {total['survived']} survived ({total['survived-uncovered']} more in code "
               f"no pytest test of the selection executes), {total['error']} harness errors (not counted)")
    out.append("- kill rate = (killed + timeout) / (killed + timeout + survived + survived-uncovered)\n")
    out.append("## Unmutated test selections\n")
    out.append("| group | pytest selection | tests | seconds (sum, under coverage) | lit selection | lit seconds |")
    out.append("| --- | --- | --- | --- | --- | --- |")
    for group in config.groups:
        nodes = [n for n in baseline.outcomes if in_selection(n, group.pytest)]
        out.append(f"| {group.name} | {' '.join(group.pytest)} | {len(nodes)} | "
                   f"{sum(baseline.outcomes[n]['duration'] for n in nodes):.0f} | {' '.join(group.lit)} | "
                   f"{baseline.lit_seconds.get(group.name, 0):.0f} |")
    out.append("\n## Per area\n")
    out.append("| area | mutants | killed | timeout | survived | survived, not executed by pytest | kill rate |")
    out.append("| --- | --- | --- | --- | --- | --- | --- |")
    for group in config.groups:
        c = per_group[group.name]
        out.append(f"| {group.name} | {sum(c[s] for s in COUNTED)} | {c['killed']} | {c['timeout']} | {c['survived']} | "
                   f"{c['survived-uncovered']} | {rate(c)} |")
    out.append(f"| **all** | {sum(total[s] for s in COUNTED)} | {total['killed']} | {total['timeout']} | "
               f"{total['survived']} | {total['survived-uncovered']} | **{rate(total)}** |")
    out.append("\n## Per file\n")
    out.append("| file | candidates | run | killed | timeout | survived | not executed | kill rate |")
    out.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for file, mutants in plan.items():
        c = per_file[file]
        out.append(f"| {file} | {candidates[file]} | {sum(c[s] for s in COUNTED)} | {c['killed']} | {c['timeout']} | "
                   f"{c['survived']} | {c['survived-uncovered']} | {rate(c)} |")
    by_operator: dict[str, Counter] = defaultdict(Counter)
    for result in results.values():
        by_operator[result["operator"]][result["status"]] += 1
    out.append("\n## Per operator\n")
    out.append("| operator | mutants | kill rate |")
    out.append("| --- | --- | --- |")
    for operator, c in sorted(by_operator.items()):
        out.append(f"| {operator} | {sum(c[s] for s in COUNTED)} | {rate(c)} |")
    confirmed = [r for r in results.values() if "confirmed" in r]
    if confirmed:
        flipped = [r for r in confirmed if r["status"] == "killed"]
        out.append(f"\n{len(confirmed)} survivors were rerun against the whole pytest selection "
                   f"(`--confirm-survivors`): {len(flipped)} were then killed (counted as killed above)"
                   + ("".join(f"\n- {r['path']}:{r['line']}: {r['change']}" for r in flipped)))
    for title, statuses in (
        ("Surviving mutants", ("survived",)),
        ("Surviving mutants in code no test of the pytest selection executes (lit ran)", ("survived-uncovered",)),
        ("Timeouts (counted as killed)", ("timeout",)),
        ("Harness errors (not counted)", ("error",)),
    ):
        rows = [(m, results[m.id]) for mutants in plan.values() for m in mutants
                if m.id in results and results[m.id]["status"] in statuses]
        if not rows:
            continue
        out.append(f"\n## {title} ({len(rows)})\n")
        for mutant, result in rows:
            extra = ""
            if result["status"] == "survived":
                extra = (" (line runs at import: the whole selection ran)" if result.get("at_import")
                         else f" ({result['tests']} tests execute it)")
            out.append(f"- {mutant.path}:{mutant.line}: {mutant.change()}{extra}")
    out.append("\nShow one mutant's diff: `bash scripts/mutation --show FILE:LINE` (lists the sampled mutants of that line).")
    path.write_text("\n".join(out) + "\n")


# --------------------------------------------------------------------------------------
# Main


def git_clean(paths: list[str]) -> bool:
    return subprocess.run(["git", "diff", "--quiet", "--", *paths], cwd=ROOT).returncode == 0


def plan_mutants(config: Config, only: list[str]) -> tuple[dict[str, list[Mutant]], dict[str, int]]:
    plan, candidates = {}, {}
    for group in config.groups:
        for path in group.sources:
            if only and not any(Path(path).match(pattern) or path.startswith(pattern) for pattern in only):
                continue
            mutants = MutantFinder(path, (ROOT / path).read_bytes()).mutants()
            candidates[path] = len(mutants)
            plan[path] = sample(mutants, group.per_file, config.seed, path)
    return plan, candidates


def main() -> int:
    parser = argparse.ArgumentParser(prog="scripts/mutation", description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", type=Path, default=HERE / "targets.toml", help="targets and test selections")
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("GRADIR_MUTATION_OUT", "/tmp/gradir-mutation")),
                        help="results folder (default $GRADIR_MUTATION_OUT or /tmp/gradir-mutation)")
    parser.add_argument("--report", default="mutation-report.md", help="report file name inside --out")
    parser.add_argument("--per-file", type=int, help="mutants sampled per file (overrides targets.toml)")
    parser.add_argument("--seed", type=int, help="sampling seed (overrides targets.toml)")
    parser.add_argument("--only", nargs="*", default=[], help="restrict to files matching these globs or prefixes")
    parser.add_argument("--max-mutants", type=int, help="stop after this many mutants (smoke test)")
    parser.add_argument("--resume", action="store_true", help="keep the results already in the results file")
    parser.add_argument("--fresh-baseline", action="store_true", help="redo the unmutated coverage run")
    parser.add_argument("--confirm-survivors", type=int, default=0, metavar="N",
                        help="rerun N survivors (sampled) against the whole pytest selection")
    parser.add_argument("--list", action="store_true", help="list the sampled mutants and exit")
    parser.add_argument("--report-only", action="store_true",
                        help="rewrite the report from the results file (and the cached unmutated run); runs nothing")
    parser.add_argument("--show", metavar="FILE:LINE", help="print the diffs of the sampled mutants of a line and exit")
    args = parser.parse_args()

    config = load_config(args.config, args.per_file)
    if args.seed is not None:
        config.seed = args.seed
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    recover(out)
    plan, candidates = plan_mutants(config, args.only)
    all_mutants = [m for mutants in plan.values() for m in mutants]

    if args.list or args.show:
        for mutant in all_mutants:
            if args.show and f"{mutant.path}:{mutant.line}" != args.show:
                continue
            print(f"{mutant.path}:{mutant.line}: {mutant.change()}")
            if args.show:
                original = (ROOT / mutant.path).read_text().splitlines(keepends=True)
                mutated = mutant.apply((ROOT / mutant.path).read_bytes()).decode().splitlines(keepends=True)
                sys.stdout.writelines(difflib.unified_diff(original, mutated, mutant.path, mutant.path + " (mutant)"))
        print(f"{len(all_mutants)} mutants sampled from {sum(candidates.values())} candidates in {len(plan)} files")
        return 0

    targets = [path for group in config.groups for path in group.sources]
    if not git_clean(targets):
        sys.exit("mutation: the target files have uncommitted changes; commit or stash them first "
                 "(the harness restores files to what they were, and checks `git diff --quiet` at the end)")

    def terminate(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, terminate)
    signal.signal(signal.SIGHUP, terminate)

    baseline = compute_baseline(config, out, args.fresh_baseline)
    results_file = out / (Path(args.report).stem + ".jsonl")
    results: dict[str, dict] = {}
    if (args.resume or args.report_only) and results_file.exists():
        for line in results_file.read_text().splitlines():
            entry = json.loads(line)
            results[entry["id"]] = entry
        # Harness errors are retried (the harness may have been fixed since).
        if not args.report_only:
            results = {key: entry for key, entry in results.items() if entry["status"] != "error"}
    elif results_file.exists():
        results_file.unlink()
    todo = [m for m in all_mutants if m.id not in results][: args.max_mutants]
    if args.report_only:
        todo, args.confirm_survivors = [], 0
    print(f"mutation: {len(all_mutants)} mutants sampled from {sum(candidates.values())} candidates in "
          f"{len(plan)} files; {len(todo)} to run", flush=True)
    started = time.monotonic()
    interrupted = False
    try:
        for number, mutant in enumerate(todo, start=1):
            result = run_mutant(mutant, config, baseline, out)
            results[mutant.id] = result
            with open(results_file, "a") as stream:
                stream.write(json.dumps(result) + "\n")
            elapsed = time.monotonic() - started
            print(f"[{number}/{len(todo)} {elapsed / 60:.0f} min] {result['status']:<18} {result['seconds']:>6.0f}s "
                  f"{mutant.path}:{mutant.line}: {mutant.change()}", flush=True)
        survivors = [r for r in results.values() if r["status"] == "survived" and "confirmed" not in r]
        if args.confirm_survivors and survivors:
            chosen = random.Random(config.seed).sample(survivors, min(args.confirm_survivors, len(survivors)))
            by_id = {m.id: m for m in all_mutants}
            for number, entry in enumerate(chosen, start=1):
                if entry["id"] not in by_id:
                    continue
                again = run_mutant(by_id[entry["id"]], config, baseline, out, full=True)
                entry["confirmed"] = again["status"]
                if again["status"] in ("killed", "timeout"):
                    entry.update(status=again["status"], by=again.get("by"), detail=again.get("detail"),
                                 note="killed only by the whole selection")
                with open(results_file, "a") as stream:
                    stream.write(json.dumps(entry) + "\n")
                print(f"[confirm {number}/{len(chosen)}] {again['status']:<18} {entry['path']}:{entry['line']}: "
                      f"{entry['change']}", flush=True)
    except KeyboardInterrupt:
        interrupted = True
        print("mutation: interrupted; the mutated file was restored; rerun with --resume to continue", file=sys.stderr)
    finally:
        wall = time.monotonic() - started
        report = out / args.report
        write_report(report, config, baseline, plan, candidates, results, wall, args)
        print(f"mutation: report written to {report}")
        if not git_clean(targets):
            print("mutation: ERROR: `git diff --quiet` fails on the target files after the run", file=sys.stderr)
            return 2
        print("mutation: `git diff --quiet` holds: every mutated file is restored")
    return 130 if interrupted else 0


VENV = Path(os.environ.get("GRADIR_VENV", ROOT / ".venv")).resolve()

if __name__ == "__main__":
    sys.exit(main())
