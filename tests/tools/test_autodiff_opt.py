"""autodiff-opt as a program: exit codes, output streams, the xdsl-opt entry point."""
import pathlib
import shutil
import subprocess
import sys

import pytest

from gradir.tools.autodiff_opt import main

BIN = pathlib.Path(sys.executable).parent
GOOD = """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = autodiff.exp %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def run(tool, *args, stdin=None):
    return subprocess.run(
        [str(BIN / tool), *args], input=stdin, capture_output=True, text=True, timeout=120
    )


def test_good_input_prints_module(tmp_path):
    path = tmp_path / "good.mlir"
    path.write_text(GOOD)
    result = run("autodiff-opt", str(path))
    assert result.returncode == 0, result.stderr
    assert "autodiff.exp %a : tensor<4xf32>" in result.stdout
    assert result.stderr == ""


@pytest.mark.parametrize("name", ["good.txt", "good"])
def test_any_file_name_is_read_as_mlir(tmp_path, name):
    """Like mlir-opt: the file name's ending does not pick a parser (xDSL's
    default reported an 'internal error' for an unknown extension)."""
    path = tmp_path / name
    path.write_text(GOOD)
    result = run("autodiff-opt", str(path))
    assert result.returncode == 0, result.stderr
    assert "autodiff.exp %a : tensor<4xf32>" in result.stdout


def test_reads_stdin():
    result = run("autodiff-opt", stdin=GOOD)
    assert result.returncode == 0 and "autodiff.exp" in result.stdout


def test_bad_input_is_one_line_without_traceback(tmp_path):
    path = tmp_path / "bad.mlir"
    path.write_text(GOOD.replace("tensor<4xf32>\n  return", "tensor<5xf32>\n  return"))
    result = run("autodiff-opt", str(path))
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{path}:3:")
    assert "Traceback" not in result.stderr


def test_failure_leaves_no_output_file(tmp_path):
    path = tmp_path / "bad.mlir"
    path.write_text("func.func @f( {")
    out = tmp_path / "out.mlir"
    result = run("autodiff-opt", str(path), "-o", str(out))
    assert result.returncode == 1
    assert not out.exists()


def test_output_file_written_on_success(tmp_path):
    path = tmp_path / "good.mlir"
    path.write_text(GOOD)
    out = tmp_path / "out.mlir"
    assert run("autodiff-opt", str(path), "-o", str(out)).returncode == 0
    assert "autodiff.exp" in out.read_text()


def test_main_returns_status(tmp_path, capsys):
    path = tmp_path / "good.mlir"
    path.write_text(GOOD)
    assert main([str(path)]) == 0
    assert main([str(path), "--pipeline", "nope"]) == 1
    assert "unknown pipeline 'nope'" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("xdsl-opt", path=str(BIN)) is None, reason="xdsl-opt not installed")
def test_plain_xdsl_opt_sees_the_dialect_once():
    """The xdsl.universe entry point registers the dialect (and does not crash by registering twice)."""
    result = run("xdsl-opt", stdin=GOOD)
    assert result.returncode == 0, result.stderr
    assert "autodiff.exp" in result.stdout


def test_functions_keeps_only_the_named_functions_public():
    """`--functions`: the linalg result marks the others private; the cpu pipeline then makes
    machine code for the named ones only (not for @f, whose gradient was named)."""
    product = str(pathlib.Path(__file__).resolve().parents[2] / "examples" / "product.mlir")
    linalg = run("autodiff-opt", product, "--pipeline", "linalg", "--functions", "df")
    assert linalg.returncode == 0, linalg.stderr
    assert "func.func @df(" in linalg.stdout
    for other in ("f", "f_vjp_0_1", "f_grad_0_1"):
        assert f"func.func private @{other}(" in linalg.stdout, other
    llvm = run("autodiff-opt", product, "--pipeline", "cpu", "--functions", "f_grad_0_1")
    assert llvm.returncode == 0, llvm.stderr
    defined = {line.split("@")[1].split("(")[0] for line in llvm.stdout.splitlines() if "llvm.func @__gradir_" in line}
    assert defined == {"__gradir_f_grad_0_1"}, defined
