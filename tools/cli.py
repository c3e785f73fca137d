"""What every gradir CLI shares: one-line errors, exit status 1, `--debug` tracebacks, and
watching the work (`--timing`, a progress line on a terminal, `--quiet`)."""
from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from gradir.errors import GradirError, InternalError


def description(docstring: str) -> str:
    """A tool's `--help` description: its docstring's first paragraph, whole (its first
    line alone stopped mid-sentence)."""
    return " ".join(docstring.strip().split("\n\n")[0].split())


class OneLineArgumentParser(argparse.ArgumentParser):
    """Usage errors as one `error:` line and exit status 1, like every other error."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(1, f"error: {message} (see --help)\n")


def add_watching_flags(parser: argparse.ArgumentParser) -> None:
    """`--timing` (its destination is xDSL's `--time-passes`, which autodiff-opt keeps as a
    second spelling) and `-q/--quiet`."""
    parser.add_argument(
        "--timing", "--mlir-timing", dest="time_passes", action="store_true",
        help="at the end, print on stderr where the time went, stage by stage and pass by "
        "pass (as mlir-opt's --mlir-timing)",
    )  # fmt: skip
    parser.add_argument(
        "-q", "--quiet", action="store_true",
        help="no progress line (one is shown on stderr while compiling, only when stderr is a terminal)",
    )  # fmt: skip


@contextmanager
def watching(args: argparse.Namespace, label: str) -> Iterator[None]:
    """Run the block with the observers the flags ask for: a timing report printed at the end
    (even when the work failed, as mlir-opt does), IR before/after each pass on stderr, and a
    progress line where stderr is a terminal, not `--quiet`, and no IR is being printed."""
    from gradir.instrumentation import IRPrinter, Progress, TimingReport, observing, shows_progress

    before = getattr(args, "print_ir_before_all", False)
    after = getattr(args, "print_ir_after_all", False) or getattr(args, "print_between_passes", False)
    report = TimingReport() if getattr(args, "time_passes", False) else None
    observers = [observer for observer in (report,) if observer is not None]
    if before or after:
        observers.append(IRPrinter(sys.stderr, before, after))
    elif not getattr(args, "quiet", False) and shows_progress(sys.stderr):
        observers.append(Progress(sys.stderr, label))
    try:
        with observing(*observers):
            yield
    finally:
        if report is not None:
            sys.stderr.write(str(report))


def run_cli(body: Callable[[list[str]], int | None], argv: Sequence[str] | None) -> int:
    """Run `body(argv)`; turn any exception into one line on stderr and status 1."""
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    try:
        status = body(argv) or 0
        sys.stdout.flush()  # a closed pipe shows here, not in Python's shutdown
        return status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return _reader_went_away()
    except SystemExit:
        raise
    except BaseException as error:  # xDSL raises some errors outside `Exception`'s family
        if debug:
            traceback.print_exc()
        print(one_line_message(error), file=sys.stderr)
        return 1


SIGPIPE_STATUS = 141
"""What a shell reports for a program that SIGPIPE ended (128 + 13), as `mlir-opt | head` does."""


def _reader_went_away() -> int:
    """The reader of stdout closed it (`autodiff-opt f.mlir | head`): stop quietly, as programs
    that die of SIGPIPE do, instead of an error line and Python's "Exception ignored" note when
    it flushes stdout at exit (which this prevents by pointing stdout at /dev/null)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    return SIGPIPE_STATUS


def one_line_message(error: BaseException) -> str:
    """The single line a user sees for `error`."""
    if isinstance(error, InternalError) and error.__cause__ is not None:
        error = error.__cause__  # an API call's bug: said as the CLI says its own
    if isinstance(error, GradirError):
        return " ".join(str(error).split())
    if isinstance(error, (OSError, UnicodeDecodeError)):
        return f"error: {error}"
    if isinstance(error, RecursionError):  # what parsing did not refuse (gradir.source.MAX_OP_NESTING)
        return (
            "error: nesting too deep: Python's recursion limit was reached "
            "(rerun with --debug for a traceback)"
        )
    # A bug in gradir or a library: still one line.
    detail = " ".join(str(error).split()) or type(error).__name__
    return (
        f"error: internal error ({type(error).__name__}): {detail} "
        "(rerun with --debug for a traceback)"
    )


def entry_name(text: str) -> str:
    """`--entry` as a symbol name: `f`, `@f`, `"my loss"` and `@"my loss"` (spelled as in
    MLIR) all name the function the MLIR text calls `@f` / `@"my loss"`."""
    name = text[1:] if text.startswith("@") else text
    if len(name) >= 2 and name.startswith('"') and name.endswith('"'):
        name = name[1:-1]
    return name
