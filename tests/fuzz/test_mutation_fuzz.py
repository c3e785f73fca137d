"""Mutation fuzzing of `autodiff-opt` and `autodiff-run` (see `mutations.py` for
the oracle and the budgets, `scripts/fuzz` for the long run)."""
import os
import pathlib
import random
import sys

import numpy as np

from mutations import Mutator, check_opt, run_limited, seeds

BIN = pathlib.Path(sys.executable).parent
MUTATIONS = int(os.environ.get("GRADIR_FUZZ_MUTATIONS", 600))
RUN_MUTATIONS = int(os.environ.get("GRADIR_FUZZ_RUN_MUTATIONS", 6))
SEED = int(os.environ.get("GRADIR_FUZZ_SEED", 0))
TIMEOUT = float(os.environ.get("GRADIR_FUZZ_TIMEOUT", 20))
FINDINGS_DIRECTORY = os.environ.get("GRADIR_FUZZ_FINDINGS")
"""Where to write each distinct finding's input (default: nowhere)."""

OPTION_SETS = (
    (),
    ("--print-op-generic",),
    ("-p", "autodiff-reverse,autodiff-forward,autodiff-specialize-zero"),
    ("--pipeline", "grad"),
    ("--pipeline", "linalg"),
)


def report(findings, tried: int) -> str:
    distinct = {}
    for finding in findings:
        distinct.setdefault(finding.signature(), finding)
    if FINDINGS_DIRECTORY:
        directory = pathlib.Path(FINDINGS_DIRECTORY)
        directory.mkdir(parents=True, exist_ok=True)
        for index, finding in enumerate(distinct.values()):
            (directory / f"finding{index}.mlir").write_bytes(finding.data)
            (directory / f"finding{index}.txt").write_text(finding.describe())
    shown = "\n\n".join(f.describe() for f in list(distinct.values())[:5])
    return (
        f"{len(findings)} of {tried} fuzzed inputs broke the oracle "
        f"({len(distinct)} distinct; seed {SEED}):\n\n{shown}"
    )


def test_seeds_are_valid_inputs_or_clean_errors():
    """The unmutated seeds already satisfy the oracle (so findings come from mutations)."""
    corpus = seeds()
    assert len(corpus) > 20
    findings = [
        finding
        for seed in corpus
        if (finding := check_opt(seed.text.encode(), (), TIMEOUT, seed.origin, "none"))
    ]
    assert not findings, report(findings, len(corpus))


def test_autodiff_opt_survives_mutated_inputs():
    corpus = seeds()
    rng = random.Random(SEED)
    mutator = Mutator(rng, corpus)
    findings = []
    for _ in range(MUTATIONS):
        seed = rng.choice(corpus)
        data, edits = mutator.mutate(seed.text)
        options = rng.choice(OPTION_SETS)
        finding = check_opt(data, options, TIMEOUT, seed.origin, edits)
        if finding:
            findings.append(finding)
    assert not findings, report(findings, MUTATIONS)


RUN_TIMEOUT = float(os.environ.get("GRADIR_FUZZ_RUN_TIMEOUT", 120))
"""CPU seconds for one `autodiff-run` (it compiles with MLIR)."""


def run_tool(tool: str, *arguments: str, cpu_seconds: float):
    return run_limited([str(BIN / tool), *arguments], cpu_seconds)


def test_subprocess_runs_of_mutated_inputs(tmp_path):
    """A few mutations through the installed `autodiff-opt` binary, with `-o`:
    exit 0 or 1, one line, no traceback, and no output file after a failure."""
    corpus = seeds()
    rng = random.Random(SEED + 1)
    mutator = Mutator(rng, corpus)
    failures = []
    for index in range(8):
        seed = rng.choice(corpus)
        data, edits = mutator.mutate(seed.text)
        source, output = tmp_path / f"in{index}.mlir", tmp_path / f"out{index}.mlir"
        source.write_bytes(data)
        result = run_tool("autodiff-opt", str(source), "-o", str(output), cpu_seconds=TIMEOUT)
        problem = None
        if result is None:
            problem = f"no result within {TIMEOUT:.0f} s of CPU time"
        elif result.returncode not in (0, 1):
            problem = f"exit status {result.returncode}"
        elif "Traceback" in result.stderr or "internal error" in result.stderr:
            problem = "a traceback or internal error"
        elif result.returncode == 1 and (output.exists() or result.stdout):
            problem = "output left behind after a failure"
        elif result.returncode == 1 and len(result.stderr.strip().splitlines()) != 1:
            problem = "more than one stderr line"
        elif result.returncode == 0 and not output.exists():
            problem = "exit 0 without the output file"
        if problem:
            stderr = result.stderr if result else ""
            failures.append(f"{problem} ({seed.origin}; {edits}):\n{stderr}")
    assert not failures, "\n".join(failures)


RUN_SEED = """\
func.func @loss(%w: tensor<3x4xf32>, %x: tensor<4xf32>, %c: tensor<3x1xi1>) -> tensor<f32> {
  %0 = autodiff.mul %w, %x : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %1 = autodiff.tanh %0 : tensor<3x4xf32>
  %2 = autodiff.select %c, %1, %0 : (tensor<3x1xi1>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %3 = autodiff.sum %2 : tensor<3x4xf32> -> tensor<f32>
  func.return %3 : tensor<f32>
}
func.func @entry(%w: tensor<3x4xf32>, %x: tensor<4xf32>, %c: tensor<3x1xi1>) -> (tensor<3x4xf32>, tensor<4xf32>) {
  %g:2 = autodiff.grad @loss(%w, %x, %c) : (tensor<3x4xf32>, tensor<4xf32>, tensor<3x1xi1>) -> (tensor<3x4xf32>, tensor<4xf32>)
  func.return %g#0, %g#1 : tensor<3x4xf32>, tensor<4xf32>
}
"""


def test_autodiff_run_survives_mutated_programs(tmp_path):
    """`autodiff-run` on mutations of a small program, with inputs of the
    original signature: a clean one-line error or a result, never a crash."""
    rng = random.Random(SEED + 2)
    mutator = Mutator(rng, seeds())
    inputs = []
    for index, array in enumerate(
        (np.ones((3, 4), np.float32), np.ones(4, np.float32), np.ones((3, 1), np.bool_))
    ):
        inputs.append(str(tmp_path / f"arg{index}.npy"))
        np.save(inputs[-1], array)
    failures = []
    for index in range(RUN_MUTATIONS):
        data, edits = mutator.mutate(RUN_SEED)
        source = tmp_path / f"run{index}.mlir"
        source.write_bytes(data)
        result = run_tool(
            "autodiff-run", str(source), "--entry", "entry", "--inputs", *inputs,
            cpu_seconds=RUN_TIMEOUT,
        )  # fmt: skip
        if result is None:
            failures.append(f"no result within {RUN_TIMEOUT:.0f} s of CPU time ({edits})")
        elif result.returncode not in (0, 1):
            failures.append(f"exit status {result.returncode} ({edits}):\n{result.stderr[-2000:]}")
        elif "Traceback" in result.stderr or "internal error" in result.stderr:
            failures.append(f"traceback or internal error ({edits}):\n{result.stderr[-2000:]}")
        elif result.returncode == 1 and len(result.stderr.strip().splitlines()) != 1:
            failures.append(f"more than one stderr line ({edits}):\n{result.stderr[-2000:]}")
    assert not failures, "\n\n".join(failures)
