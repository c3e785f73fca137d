"""What the property tests share: budgets from the environment, hypothesis
settings, running `autodiff-opt` in-process, and running passes with
verification after each one.

Budgets (see `scripts/fuzz` for the long run):
  GRADIR_PROPERTY_EXAMPLES   examples per property (default 25)
  GRADIR_GRADCHECK_EXAMPLES  examples of the CPU gradcheck property (default 6)
  GRADIR_PROPERTY_RANDOM=1   explore new programs each run instead of the fixed
                             CI sequence (hypothesis prints a reproducing blob)
  GRADIR_PROPERTY_SHRINK=1   also shrink failures of the checks that run in a
                             child process (slow: every attempt compiles)
  GRADIR_PROPERTY_TIMEOUT    CPU seconds one child-process check may take (default 120)
"""

from __future__ import annotations

import contextlib
import io
import os
import pathlib
import tempfile
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, Phase, settings
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline
from xdsl.printer import Printer

from gradir.source import make_context, parse_module
from gradir.verify import verify_module

ROOT = pathlib.Path(__file__).resolve().parents[2]


def budget(variable: str, default: int) -> int:
    """A positive integer budget from the environment."""
    value = int(os.environ.get(variable, default))
    if value < 1:
        raise ValueError(f"{variable} must be a positive integer, got {value}")
    return value


def property_settings(default_examples: int, variable: str = "GRADIR_PROPERTY_EXAMPLES"):
    """Hypothesis settings: a fixed example sequence in CI (derandomized), no
    deadline (compile times vary), and a reproducing blob on failure."""
    return settings(
        max_examples=budget(variable, default_examples),
        derandomize=os.environ.get("GRADIR_PROPERTY_RANDOM", "0") != "1",
        deadline=None,
        print_blob=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def child_process_settings(default_examples: int, variable: str):
    """Settings of properties checked in a child process (CPU compile and run):
    no shrinking unless asked for, since each attempt costs a compilation."""
    phases = [Phase.explicit, Phase.reuse, Phase.generate]
    if os.environ.get("GRADIR_PROPERTY_SHRINK", "0") == "1":
        phases.append(Phase.shrink)
    return settings(property_settings(default_examples, variable), phases=phases)


def child_timeout() -> float:
    return float(budget("GRADIR_PROPERTY_TIMEOUT", 120))


def batch_failures(
    seeds: list[int], script: str, generate, failed=lambda result: result["status"] != "ok", options=()
) -> list[str]:
    """Checks the programs of `seeds` with `script` (`standard_gradcheck.py`, `named_vmap.py`,
    ...; given `options`) in a child process: a message with the program's text for each
    result `failed` says is one, and one for a crash."""
    from standard_gradcheck import run_batch_in_child

    results, crash = run_batch_in_child(
        seeds, cpu_seconds=max(child_timeout(), 30 * len(seeds)), script=script, options=tuple(options)
    )
    failures = [
        f"seed {r['seed']}: {r['status']}\n{r['report']}\n{generate(r['seed']).text}" for r in results if failed(r)
    ]
    return failures + ([crash] if crash else [])


@dataclass
class OptResult:
    status: int
    stdout: str
    stderr: str


def run_opt(text: str, *arguments: str, filename: str = "generated.mlir") -> OptResult:
    """`autodiff-opt FILE ARGUMENTS` in-process on `text` written to a temporary file."""
    from gradir.tools.autodiff_opt import main

    with tempfile.TemporaryDirectory() as directory:
        path = pathlib.Path(directory) / filename
        path.write_text(text)
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            status = main([str(path), *arguments])
    return OptResult(status, stdout.getvalue(), stderr.getvalue())


def expect_success(result: OptResult, text: str) -> str:
    """The output of a run that must succeed, or a failure quoting the program."""
    assert result.status == 0 and result.stderr == "", (
        f"autodiff-opt failed on a valid program:\n{result.stderr}\nprogram:\n{text}"
    )
    return result.stdout


def parse(text: str, filename: str = "generated.mlir") -> ModuleOp:
    """Parse and verify (with located one-line errors)."""
    module = parse_module(make_context(), text, filename)
    verify_module(module)
    return module


def print_module(module: ModuleOp, generic: bool = False) -> str:
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=generic).print_op(module)
    return stream.getvalue() + "\n\n"  # as autodiff-opt prints it


def available_passes() -> dict:
    from gradir.compilation import available_passes as passes

    return passes()


def run_passes(module: ModuleOp, names: tuple[str, ...], program_text: str = "") -> ModuleOp:
    """Run `names` in order on `module` (in place), verifying the IR after each pass;
    a failure names the pass and quotes the program it started from."""
    passes = available_passes()
    ctx = make_context()
    for name in names:
        try:
            PassPipeline((passes[name]()(),)).apply(ctx, module)
            verify_module(module, f"after pass '{name}'")
        except Exception as error:
            raise AssertionError(
                f"pass '{name}' failed: {type(error).__name__}: {error}\n"
                f"program:\n{program_text}\nIR before the failing pass is lost; rerun "
                f"`autodiff-opt FILE -p {','.join(names)}` to reproduce"
            ) from error
    return module
