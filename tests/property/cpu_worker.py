"""Runs CPU-level checks of one program in a child process, so that a crash or a
hang inside MLIR or the JIT fails one example instead of killing the test session.

    python cpu_worker.py gradcheck PROGRAM.mlir INPUTS.npz WRT   (WRT: "0,2" or "")
    python cpu_worker.py pipeline PROGRAM.mlir PIPELINE

Prints a report; exit status 0 when the check passed, 1 when it failed (with
the reason on stdout), anything else is a crash.
"""
from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass

import numpy as np

EPS = 1e-6
ATOL = 1e-5
RTOL = 1e-3


def grad_function_matches_finite_differences(text: str, inputs, wrt) -> tuple[bool, str]:
    """`@loss_grad` (the program's own `autodiff.grad`) against central
    differences of `@loss`, both compiled for the CPU in f64."""
    import gradir
    from gradir.gradient_check import promote_to_f64
    from gradir.source import load_module

    exe = gradir.compile(promote_to_f64(load_module(text)), target="cpu")
    arguments = [a.astype(np.float64) if a.dtype.kind == "f" else a for a in inputs]
    gradients = exe.call("loss_grad", *arguments)
    lines, ok = [], True
    for position, index in enumerate(wrt):
        numeric = np.empty(arguments[index].shape)
        for entry in np.ndindex(arguments[index].shape):
            shifted = [a.copy() for a in arguments]
            shifted[index][entry] += EPS
            plus = exe.call("loss", *shifted)[0]
            shifted[index][entry] -= 2 * EPS
            minus = exe.call("loss", *shifted)[0]
            numeric[entry] = (float(plus) - float(minus)) / (2 * EPS)
        analytic = gradients[position]
        error = np.abs(analytic - numeric)
        good = bool(np.all(error <= ATOL + RTOL * np.abs(numeric)) and np.all(np.isfinite(analytic)))
        ok &= good
        lines.append(
            f"@loss_grad result {position} (argument {index}): "
            f"{'ok' if good else 'MISMATCH'}, max abs error {error.max(initial=0.0):.3g}"
            + ("" if good else f"\n  analytic {analytic.tolist()}\n  numeric  {numeric.tolist()}")
        )
    return ok, "\n".join(lines)


def gradcheck_main(program: str, inputs_path: str, wrt_text: str) -> int:
    import gradir

    text = open(program).read()
    with np.load(inputs_path) as archive:
        inputs = [archive[f"arg{i}"] for i in range(len(archive.files))]
    wrt = [int(i) for i in wrt_text.split(",")] if wrt_text else []
    try:
        result = gradir.gradcheck(text, "loss", inputs, wrt, allow_vacuous=True)  # random programs: some arguments do not matter
        own_ok, own_report = grad_function_matches_finite_differences(text, inputs, wrt)
    except gradir.GradirError as error:
        print(f"gradir rejected a valid program: {error}")
        return 1
    print(result.report())
    print(own_report)
    return 0 if result.ok and own_ok else 1


def pipeline_main(program: str, pipeline: str) -> int:
    """`autodiff-opt PROGRAM --pipeline PIPELINE`, then MLIR parses and verifies the output."""
    import contextlib
    import io

    from gradir.tools.autodiff_opt import main

    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        status = main([program, "--pipeline", pipeline])
    if status != 0:
        print(f"autodiff-opt exited {status}: {stderr.getvalue().strip()}")
        return 1
    from mlir import ir

    with ir.Context():
        try:
            module = ir.Module.parse(stdout.getvalue())
        except Exception as error:  # MLIR's parse error
            print(f"MLIR cannot parse the {pipeline} pipeline's output: {error}")
            return 1
        if not module.operation.verify():
            print(f"the {pipeline} pipeline's output does not verify")
            return 1
        names = {op.operation.name for op in module.body.operations}
    if pipeline == "cpu" and "llvm.func" not in names:
        print(f"no llvm.func in the cpu pipeline's output: {sorted(names)}")
        return 1
    return 0


@dataclass
class WorkerResult:
    passed: bool
    report: str


def run_worker(*arguments: str, timeout: float) -> WorkerResult:
    """Run this file in a child process; a crash or a timeout is a failed check.

    `timeout` bounds the child's CPU time (so a loaded machine does not turn
    slowness into failures); wall-clock time is bounded at five times that."""
    import resource
    import signal

    def limit_cpu_time() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (int(timeout), int(timeout) + 5))

    command = [sys.executable, __file__, *arguments]
    hang = f"no result after {timeout:.0f} s of CPU time (a hang?): {' '.join(arguments)}"
    try:
        completed = subprocess.run(
            command, capture_output=True, text=True, timeout=5 * timeout,
            preexec_fn=limit_cpu_time,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return WorkerResult(False, f"{hang} (wall-clock limit)")
    if completed.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return WorkerResult(False, hang)
    if completed.returncode in (0, 1):
        return WorkerResult(completed.returncode == 0, completed.stdout + completed.stderr)
    return WorkerResult(
        False,
        f"the check crashed (exit status {completed.returncode}, a negative status is a "
        f"signal):\n{completed.stdout}{completed.stderr[-3000:]}",
    )


if __name__ == "__main__":
    mode, *rest = sys.argv[1:]
    sys.exit(gradcheck_main(*rest) if mode == "gradcheck" else pipeline_main(*rest))
