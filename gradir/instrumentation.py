"""Watching a compile: a timing report, the IR around each pass, progress, a log.

Every xDSL pass gradir runs (a `-p` list, a named pipeline's passes), every
MLIR 22 pass list (`mlir_bridge.run_pipeline`, `apply_schedule`) and the coarse
steps around them (parse, verify, the CPU stages, the JIT) is a *stage*. Stages
nest, and each one is reported to the observers active where it runs:

- `TimingReport` (`gradir.timing()`, the CLIs' `--timing`): wall time per stage,
  as mlir-opt's `--mlir-timing` prints it;
- `IRPrinter` (`--print-ir-before-all` / `--print-ir-after-all`): the module
  before or after each pass, headed as mlir-opt heads it; MLIR 22's own passes
  print through MLIR's IR printing (`PassManager.enable_ir_printing`);
- `Progress` (the CLIs, when stderr is a terminal and `--quiet` is not given): one
  status line naming the stage that runs now, cleared at the end;
- the `gradir` logger (`GRADIR_LOG=INFO`, or the application's own `logging`
  set-up): one line per finished stage with its time.

Observers live in a context variable, so threads compiling at once keep their
reports apart. With no observer but the logger, a stage costs two clock reads.
"""
from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TextIO

IRText = Callable[[], str]
"""The module's text, printed only if an observer asks for it."""

LOGGER = logging.getLogger("gradir")


class Observer:
    """Told when each stage begins and ends (`depth`: how many stages enclose it)."""

    prints_ir_before = False
    prints_ir_after = False

    def begin(self, name: str, depth: int, ir: IRText | None) -> None:
        pass

    def end(self, name: str, depth: int, seconds: float, ir: IRText | None, failed: bool) -> None:
        pass

    def close(self) -> None:
        pass


class _LogObserver(Observer):
    """A line per finished stage on the `gradir` logger (INFO), a line per started one (DEBUG)."""

    def begin(self, name, depth, ir):
        if LOGGER.isEnabledFor(logging.DEBUG):
            LOGGER.debug("%s%s ...", "  " * depth, name)

    def end(self, name, depth, seconds, ir, failed):
        if LOGGER.isEnabledFor(logging.INFO):
            LOGGER.info("%s%s: %.4f s%s", "  " * depth, name, seconds, " (failed)" if failed else "")


def _log_from_environment() -> None:
    """`GRADIR_LOG=INFO` (or DEBUG, a level name or number) logs stages on stderr, where the
    application has not configured the `gradir` logger itself; `0`, `off`, `no`, `false`
    or nothing log nothing."""
    level = os.environ.get("GRADIR_LOG", "").strip()
    if level.lower() in ("", "0", "off", "no", "false", "none") or LOGGER.handlers:
        return
    resolved = logging.getLevelName(level.upper()) if not level.isdigit() else int(level)
    if not isinstance(resolved, int):
        resolved = logging.INFO  # GRADIR_LOG=1, yes, ...: the stage times
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("gradir: %(message)s"))
    LOGGER.addHandler(handler)
    LOGGER.setLevel(resolved)


_log_from_environment()
_OBSERVERS: ContextVar[tuple[Observer, ...]] = ContextVar("gradir_observers", default=(_LogObserver(),))
_DEPTH: ContextVar[int] = ContextVar("gradir_stage_depth", default=0)


@contextmanager
def observing(*observers: Observer) -> Iterator[None]:
    """Report the stages run inside the block to `observers` too; each is closed at the end."""
    token = _OBSERVERS.set(_OBSERVERS.get() + observers)
    try:
        yield
    finally:
        _OBSERVERS.reset(token)
        for observer in observers:
            observer.close()


def ir_printing() -> tuple[bool, bool]:
    """Whether some active observer prints the IR before, and after, each pass (for the
    MLIR 22 pass managers, which print it themselves)."""
    observers = _OBSERVERS.get()
    return (
        any(observer.prints_ir_before for observer in observers),
        any(observer.prints_ir_after for observer in observers),
    )


class OpenStage:
    """A stage that has begun; `finish` ends it (once)."""

    def __init__(self, name: str, ir: IRText | None):
        self.name, self.ir = name, ir
        self.observers = _OBSERVERS.get()
        self.depth = _DEPTH.get()
        self._token = _DEPTH.set(self.depth + 1)
        for observer in self.observers:
            observer.begin(name, self.depth, ir)
        self.start = time.perf_counter()

    def finish(self, failed: bool = False) -> None:
        if self._token is None:
            return
        seconds = time.perf_counter() - self.start
        _DEPTH.reset(self._token)
        self._token = None
        for observer in self.observers:
            observer.end(self.name, self.depth, seconds, None if failed else self.ir, failed)


@contextmanager
def stage(name: str, ir: IRText | None = None) -> Iterator[None]:
    """Run the block as the stage `name`; `ir` gives the module's text for IR printing."""
    opened = OpenStage(name, ir)
    try:
        yield
    except BaseException:
        opened.finish(failed=True)
        raise
    opened.finish()


class _PassStages:
    """The callback xDSL's `PassPipeline` calls before the first pass, between two passes
    and after the last (previous pass, module, next pass): each pass becomes a stage, and
    `after_each(previous, module, next)` (gradir's verifier) runs after each pass (not
    before the first: no pass has made anything yet, and a stage there would count a
    verification that never ran)."""

    def __init__(self, after_each: Callable | None):
        self.after_each = after_each
        self.current: OpenStage | None = None

    def __call__(self, previous, module, following) -> None:
        self.finish_current()
        if self.after_each is not None and previous is not None:
            with stage("verify"):
                self.after_each(previous, module, following)
        if following is not None:
            self.current = OpenStage(following.name, lambda: str(module))

    def finish_current(self, failed: bool = False) -> None:
        if self.current is not None:
            self.current.finish(failed)
            self.current = None


def apply_passes(ctx, module, passes, after_each: Callable | None = None) -> None:
    """Run xDSL `passes` on `module` in place with xDSL's `PassPipeline`, each pass a stage."""
    from xdsl.passes import PassPipeline

    stages = _PassStages(after_each)
    try:
        PassPipeline(tuple(passes), stages).apply(ctx, module)
    except RecursionError:
        # Parsing refuses input nested too deep (`gradir.source.MAX_OP_NESTING`); this is
        # nesting a pass made, which the Python API must report as a GradirError too.
        from gradir.errors import PipelineError

        raise PipelineError(
            "nesting too deep for gradir's passes, which recurse once per level "
            "(Python's recursion limit was reached)"
        ) from None
    finally:
        stages.finish_current(failed=True)  # a pass that raised: its stage ends, failed


# ---- timing ---------------------------------------------------------------------------------


@dataclass
class TimedStage:
    name: str
    depth: int
    seconds: float = 0.0
    count: int = 0
    children: list[TimedStage] = field(default_factory=list)


class TimingReport(Observer):
    """Wall time per stage, stages of the same name under the same parent added up (the
    MLIR 22 CPU pipeline runs `canonicalize, cse` several times); `str()` is the report."""

    def __init__(self) -> None:
        self.root = TimedStage("Total", -1)
        self._open: list[TimedStage] = [self.root]

    def begin(self, name, depth, ir):
        parent = self._open[-1]
        node = next((child for child in parent.children if child.name == name), None)
        if node is None:
            node = TimedStage(name, len(self._open) - 1)
            parent.children.append(node)
        self._open.append(node)

    def end(self, name, depth, seconds, ir, failed):
        if len(self._open) > 1:
            node = self._open.pop()
            node.seconds += seconds
            node.count += 1

    @property
    def total_seconds(self) -> float:
        return sum(child.seconds for child in self.root.children)

    def stages(self) -> list[TimedStage]:
        """Every stage, parents before their children, in the order they first ran."""
        found: list[TimedStage] = []
        pending = list(reversed(self.root.children))
        while pending:
            node = pending.pop()
            found.append(node)
            pending.extend(reversed(node.children))
        return found

    def __str__(self) -> str:
        total = self.total_seconds
        rule = "===" + "-" * 73 + "==="
        lines = [
            rule,
            "gradir execution time report".center(len(rule)).rstrip(),
            rule,
            f"  Total Execution Time: {total:.4f} seconds",
            "",
            "  ----Wall Time----  ----Name----",
        ]
        for node in self.stages():
            share = 100.0 * node.seconds / total if total > 0 else 0.0
            runs = f" ({node.count} runs)" if node.count > 1 else ""
            lines.append(f"  {node.seconds:9.4f} ({share:5.1f}%)  {'  ' * node.depth}{node.name}{runs}")
        lines.append(f"  {total:9.4f} (100.0%)  Total")
        return "\n".join(lines) + "\n"


@contextmanager
def timing() -> Iterator[TimingReport]:
    """`with gradir.timing() as report: exe = gradir.compile(...)`, then `print(report)`:
    where the compile spent its time, stage by stage."""
    report = TimingReport()
    with observing(report):
        yield report


# ---- IR printing ----------------------------------------------------------------------------


class IRPrinter(Observer):
    """The module before and/or after each pass, on `stream`, headed as mlir-opt heads it.
    Stages that contain passes (and print nothing themselves) are left out."""

    def __init__(self, stream: TextIO, before: bool, after: bool):
        self.stream = stream
        self.prints_ir_before, self.prints_ir_after = before, after

    def begin(self, name, depth, ir):
        if self.prints_ir_before and ir is not None:
            self._print("Before", name, ir)

    def end(self, name, depth, seconds, ir, failed):
        if self.prints_ir_after and ir is not None:
            self._print("After", name, ir)

    def _print(self, when: str, name: str, ir: IRText) -> None:
        self.stream.write(f"// -----// IR Dump {when} {name} //----- //\n{ir().rstrip()}\n\n")
        self.stream.flush()


# ---- progress -------------------------------------------------------------------------------


class Progress(Observer):
    """One status line on a terminal, `label: stage > inner stage (elapsed)`, rewritten as
    stages begin and cleared at the end. A line of text, not a bar: how many stages a compile
    runs is not known in advance. (Written here, not with `rich` or `tqdm`: twenty lines
    against a dependency.)"""

    def __init__(self, stream: TextIO, label: str):
        self.stream, self.label = stream, label
        self.start = time.perf_counter()
        self.path: list[str] = []
        self.shown = False

    def begin(self, name, depth, ir):
        del self.path[depth:]
        self.path.append(name)
        elapsed = time.perf_counter() - self.start
        text = f"{self.label}: {' > '.join(self.path)} ({elapsed:.1f} s)"
        width = _terminal_width(self.stream)
        self.stream.write("\r\x1b[K" + text[: width - 1])
        self.stream.flush()
        self.shown = True

    def end(self, name, depth, seconds, ir, failed):
        del self.path[depth:]

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def _terminal_width(stream: TextIO) -> int:
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError):
        columns = 0
    return columns if columns > 0 else 80  # a terminal that does not say (a fresh pty) has 0


def shows_progress(stream: TextIO) -> bool:
    """Whether `stream` is a terminal that a status line will not garble."""
    try:
        return stream.isatty() and os.environ.get("TERM", "") != "dumb"
    except (AttributeError, ValueError):
        return False
