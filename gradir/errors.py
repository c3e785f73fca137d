"""The exceptions gradir raises: one family, so callers can catch `gradir.GradirError`.

Every error renders as one line, `file:line:col: error: message` when it has a
source location, which the CLIs print as is (tracebacks only with `--debug`).
"""
from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the errors are raised where xDSL is not installed too (`gradir.load`)
    from xdsl.ir import Operation


class GradirError(Exception):
    """Base class of every error gradir reports to a user."""

    def __init__(self, message: str, location: str | None = None):
        super().__init__(message)
        self.message = message
        self.location = location

    def __str__(self) -> str:
        if self.location:
            return f"{self.location}: error: {self.message}"
        return f"error: {self.message}"


class SourceError(GradirError):
    """Malformed or invalid IR: a parse error or a verifier failure."""


class DifferentiationError(GradirError):
    """An op on the active path cannot be differentiated, or an entry op is malformed."""


class RuleError(GradirError):
    """A derivative rule (YAML entry or Python registration) is invalid."""


class PipelineError(GradirError):
    """An unknown pass or pipeline, or a lowering stage that failed."""


class AllocationError(GradirError, MemoryError):
    """Compiled code asked for memory the C library would not give (at run time)."""


class RunTimeCheckError(GradirError):
    """Compiled code met, at run time, an operation its inputs make undefined: an index out
    of bounds, an integer division by zero (`cpu_backend.run_time_checks`)."""


class ArgumentError(GradirError):
    """Wrong number, shape or dtype of arguments passed to a compiled function, or a bad
    value of an API parameter: `parameter` names it where one is to blame (`"functions"`),
    so that a caller that spells it otherwise (`autodiff-run`'s `--entry`) can say so."""

    def __init__(self, message: str, location: str | None = None, *, parameter: str | None = None):
        super().__init__(message, location)
        self.parameter = parameter


class NoFunctionError(ArgumentError, AttributeError):
    """`exe.name` where the program has no public function `name`: an `ArgumentError`
    like every gradir error, and an `AttributeError`, as Python's `getattr`, `hasattr`
    and `copy` expect of a missing attribute."""


class TargetError(GradirError):
    """The requested target cannot run here (no CUDA driver, no ptxas, ...)."""


class InternalError(GradirError):
    """A bug in gradir or in a library it calls, met during an API call. It is still a
    `GradirError`, so that a caller catches one family (README "Errors"); the exception
    that was raised is chained as `__cause__`, with its traceback."""

    @classmethod
    def wrapping(cls, error: BaseException) -> GradirError:
        if isinstance(error, RecursionError):  # what parsing did not refuse (source.MAX_OP_NESTING)
            return SourceError("nesting too deep: Python's recursion limit was reached")
        detail = " ".join(str(error).split()) or type(error).__name__
        return cls(f"internal error ({type(error).__name__}): {detail} (a bug in gradir; the original "
                   "exception and its traceback are chained as __cause__)")  # fmt: skip


def reports_internal_errors(function):
    """Make `function`, a public API entry point, raise only `GradirError`s: anything else
    it lets escape (a bug here or in xDSL, MLIR or NumPy) becomes an `InternalError`.
    KeyboardInterrupt and SystemExit are not `Exception`s and pass as they are, and so does
    the TypeError of a call Python could not make (an unknown keyword), as README says."""

    @functools.wraps(function)
    def reporting(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except GradirError:
            raise
        except Exception as error:
            if isinstance(error, TypeError) and error.__traceback__.tb_next is None:
                raise  # the call itself failed (a keyword the function does not take): Python's own error
            raise InternalError.wrapping(error) from error

    return reporting


def location_of(op: Operation | None) -> str | None:
    """`file:line:col` of an op (recorded by `gradir.source.parse_module`), if known."""
    from xdsl.dialects.builtin import FileLineColLoc

    while op is not None:
        loc = op.location
        if isinstance(loc, FileLineColLoc):
            return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
        op = op.parent_op()
    return None


def error_at(cls: type[GradirError], op: Operation | None, message: str) -> GradirError:
    """Build an error of class `cls` located at `op` (or its nearest located ancestor)."""
    return cls(message, location_of(op))
