"""Watching a compile (`gradir/instrumentation.py`): the timing report (`gradir.timing()`,
`--timing`), the `GRADIR_LOG` log, the progress line on a terminal and `--quiet`. The CLI's
IR printing and report format are in lit_tests/tools/autodiff_opt_watching.mlir."""
import os
import pathlib
import pty
import subprocess
import sys
import threading

import pytest

import gradir
from gradir.instrumentation import Observer, observing, stage
from gradir.mlir_bridge import pass_names

BIN = pathlib.Path(sys.executable).parent
EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
PRODUCT = EXAMPLES / "product.mlir"


def program(scale: float) -> str:
    """A distinct program per `scale`, so that no compile comes from the process's cache."""
    return f"""
func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {{
  %k = arith.constant dense<{scale}> : tensor<4xf64>
  %y = autodiff.mul %x, %k : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %z = autodiff.tanh %y : tensor<4xf64>
  return %z : tensor<4xf64>
}}
func.func @g(%x: tensor<4xf64>, %c: tensor<4xf64>) -> tensor<4xf64> {{
  %d:2 = autodiff.vjp @f(%x, %c) {{wrt = array<i64: 0>}} : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return %d#1 : tensor<4xf64>
}}
"""


def test_timing_reports_every_stage_of_a_compile_nested_and_in_order():
    with gradir.timing() as report:
        gradir.compile(program(1.25))
    stages = [(s.name, s.depth) for s in report.stages()]
    names = [name for name, _ in stages]
    for expected in ("parse", "verify", "autodiff-reverse", "convert-autodiff-to-linalg", "mlir-parse",
                     "cpu-tensor", "cpu-bufferize", "cpu-checks", "cpu-loops", "cpu-llvm", "cpu-jit"):  # fmt: skip
        assert expected in names, names
    order = [names.index(n) for n in ("parse", "autodiff-reverse", "cpu-tensor", "cpu-bufferize", "cpu-llvm", "cpu-jit")]
    assert order == sorted(order), names
    assert ("lift-cf-to-scf, lower-affine, inline", 1) in stages  # an MLIR pass list, inside cpu-tensor
    assert stages[names.index("lift-cf-to-scf, lower-affine, inline") - 1 :][0][0] in ("cpu-tensor", "lift-cf-to-scf, lower-affine, inline")
    top = [s for s in report.stages() if s.depth == 0]
    assert report.total_seconds == pytest.approx(sum(s.seconds for s in top))
    assert all(s.seconds >= 0 and s.count >= 1 for s in report.stages())
    verify = next(s for s in report.stages() if s.name == "verify")
    assert verify.count > 1  # before the passes and between every two: added up, one line
    text = str(report)
    assert "gradir execution time report" in text and "Total Execution Time" in text
    assert "verify (" in text and " runs)" in text
    assert text.rstrip().endswith("(100.0%)  Total")


NOT_DIFFERENTIABLE = """
func.func private @ext(tensor<4xf64>) -> tensor<4xf64>
func.func @f(%x: tensor<4xf64>) -> tensor<f64> {
  %y = func.call @ext(%x) : (tensor<4xf64>) -> tensor<4xf64>
  %l = autodiff.sum %y : tensor<4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
func.func @g(%x: tensor<4xf64>) -> tensor<4xf64> {
  %d = autodiff.grad @f(%x) : (tensor<4xf64>) -> tensor<4xf64>
  return %d : tensor<4xf64>
}"""


def test_a_failing_compile_ends_its_stages_and_the_next_one_starts_at_the_top():
    """A pass that raises must not leave its stage open: the next compile's stages would
    then nest under it (at depth 1) in every report of the thread."""
    with gradir.timing() as failed:
        with pytest.raises(gradir.DifferentiationError, match="callee @ext has no body"):
            gradir.compile(NOT_DIFFERENTIABLE)
    assert [(s.name, s.depth, s.count) for s in failed.stages()] == [
        ("parse", 0, 1), ("verify", 0, 1), ("lift-control-flow", 0, 1), ("autodiff-jacobian", 0, 1), ("autodiff-vmap", 0, 1),
        ("autodiff-reverse", 0, 1),
    ]  # fmt: skip  (the input's verification; the result's never came)

    class Depths(Observer):
        seen: list = []

        def begin(self, name, depth, ir):
            self.seen.append((name, depth))

    with observing(Depths()):
        with pytest.raises(gradir.GradirError):
            with stage("outer"):
                raise gradir.PipelineError("boom")
        gradir.compile(program(1.5))
    assert Depths.seen[0] == ("outer", 0)
    assert ("parse", 0) in Depths.seen and ("cpu-jit", 0) in Depths.seen


def test_timing_reports_are_kept_per_thread():
    reports = {}

    def compile_in_thread(scale):
        with gradir.timing() as report:
            gradir.compile(program(scale))
        reports[scale] = report

    with gradir.timing() as here:
        threads = [threading.Thread(target=compile_in_thread, args=(scale,)) for scale in (2.5, 3.5)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert here.stages() == []  # the compiles ran in the other threads
    for report in reports.values():
        names = [s.name for s in report.stages()]
        assert names.count("parse") == 1 and "cpu-jit" in names


def test_pass_names_summarise_an_mlir_pipeline():
    assert pass_names("builtin.module(func.func(convert-linalg-to-loops), lower-affine{x=1 y={z}})") == (
        "convert-linalg-to-loops, lower-affine"
    )
    long = ", ".join(f"pass-number-{i}" for i in range(20))
    assert pass_names(long).endswith("...") and len(pass_names(long)) == 72


def child(*command, env=None):
    return subprocess.run(command, capture_output=True, text=True, timeout=300, env=env, cwd=EXAMPLES)


def test_gradir_log_prints_a_line_per_stage_on_stderr_and_nothing_without_it():
    script = "import gradir; gradir.compile('product.mlir')"
    logged = child(sys.executable, "-c", script, env={**os.environ, "GRADIR_LOG": "INFO"})
    assert logged.returncode == 0, logged.stderr
    lines = logged.stderr.splitlines()
    assert any(line.startswith("gradir: parse: ") and line.endswith(" s") for line in lines), lines
    assert any(line.startswith("gradir:   lift-cf-to-scf, lower-affine, inline: ") for line in lines), lines  # nested: indented
    assert any(line.startswith("gradir: cpu-jit: ") for line in lines), lines
    quiet = child(sys.executable, "-c", script, env={k: v for k, v in os.environ.items() if k != "GRADIR_LOG"})
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr
    for off in ("0", "off"):
        switched_off = child(sys.executable, "-c", script, env={**os.environ, "GRADIR_LOG": off})
        assert switched_off.returncode == 0 and switched_off.stderr == "", (off, switched_off.stderr)


@pytest.mark.parametrize("tool,arguments,stage_name", [
    ("autodiff-run", ("--entry", "df"), "cpu-jit"),
    ("autodiff-gradcheck", ("--entry", "f"), "finite differences"),
])  # fmt: skip
def test_run_and_gradcheck_print_a_timing_report(tool, arguments, stage_name):
    result = child(str(BIN / tool), str(PRODUCT), *arguments, "--timing")
    assert result.returncode == 0, result.stderr
    assert "gradir execution time report" in result.stderr
    assert f"  {stage_name}" in result.stderr
    assert "execution time" not in result.stdout


def on_a_terminal(*command) -> tuple[int, bytes]:
    """Run `command` with stderr on a pseudo-terminal (stdout on a pipe); its stderr bytes."""
    primary, secondary = pty.openpty()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=secondary, cwd=EXAMPLES)
    os.close(secondary)
    written = b""
    while True:
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        written += chunk
    os.close(primary)
    return process.wait(timeout=300), written


def test_a_terminal_shows_one_progress_line_cleared_at_the_end():
    status, written = on_a_terminal(str(BIN / "autodiff-run"), str(PRODUCT), "--entry", "df", "--seed", "1")
    assert status == 0, written
    assert b"\r\x1b[Kautodiff-run: parse (" in written
    assert b"autodiff-run: cpu-llvm > " in written  # nested stages, outer first
    assert written.endswith(b"\r\x1b[K")  # nothing left on the line
    assert b"\n" not in written  # one line, rewritten in place


def test_quiet_shows_no_progress_line_on_a_terminal():
    status, written = on_a_terminal(str(BIN / "autodiff-run"), str(PRODUCT), "--entry", "df", "--quiet")
    assert status == 0, written
    assert written == b""
