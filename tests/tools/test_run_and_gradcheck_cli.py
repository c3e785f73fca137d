"""autodiff-run and autodiff-gradcheck as programs."""
import pathlib
import subprocess
import sys

import numpy as np

BIN = pathlib.Path(sys.executable).parent
PRODUCT = pathlib.Path(__file__).resolve().parents[2] / "examples" / "product.mlir"


def run(tool, *args):
    return subprocess.run([str(BIN / tool), *map(str, args)], capture_output=True, text=True, timeout=300)


def test_autodiff_run_prints_and_saves_results(tmp_path):
    a, b = tmp_path / "a.npy", tmp_path / "b.npy"
    np.save(a, np.array([1.0, 2.0, 3.0, 4.0], np.float32))
    np.save(b, np.full(4, 2.0, np.float32))
    out = tmp_path / "out.npz"
    result = run("autodiff-run", PRODUCT, "--entry", "df", "--inputs", a, b, "--output", out)
    assert result.returncode == 0, result.stderr
    assert "result0: float32 [4]" in result.stdout
    saved = np.load(out)
    np.testing.assert_allclose(saved["result0"], 2 * np.array([1, 2, 3, 4]) * 2)  # d/da = 2ab
    np.testing.assert_allclose(saved["result1"], np.array([1, 4, 9, 16]) + 1)  # d/db = a^2 + 1


def test_autodiff_run_wrong_arguments_is_one_line(tmp_path):
    a = tmp_path / "a.npy"
    np.save(a, np.ones(3, np.float64))
    result = run("autodiff-run", PRODUCT, "--entry", "df", "--inputs", a, a)
    assert result.returncode == 1 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and "argument" in result.stderr


def test_autodiff_gradcheck_passes_and_reports_every_argument():
    result = run("autodiff-gradcheck", PRODUCT, "--entry", "f", "--wrt", "0,1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "vjp gradient of argument 0: ok" in result.stdout
    assert "vjp gradient of argument 1: ok" in result.stdout
    assert "jvp tangent of result 0: ok" in result.stdout
    assert result.stdout.strip().endswith("passed")


def test_autodiff_gradcheck_exits_1_on_a_mismatch():
    # An absurd tolerance cannot be met by finite differences: the tool must say so.
    result = run("autodiff-gradcheck", PRODUCT, "--entry", "f", "--atol", "0", "--rtol", "0", "--eps", "1e-2")
    assert result.returncode == 1
    assert "MISMATCH" in result.stdout and "FAILED" in result.stdout


def test_autodiff_gradcheck_bad_wrt_is_a_usage_error():
    result = run("autodiff-gradcheck", PRODUCT, "--entry", "f", "--wrt", "zero")
    assert result.returncode == 1
    assert result.stderr.startswith("error: --wrt expects comma-separated integers")


def test_autodiff_gradcheck_errors_name_the_users_file_and_line(tmp_path):
    """gradcheck rewrites the program (f64 promotion, wrappers) and parses it
    again; its errors must still point into the user's file."""
    program = tmp_path / "unsupported.mlir"
    program.write_text(
        "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %y = math.exp %x : tensor<4xf32>\n"
        '  %r = "test.op"(%y) : (tensor<4xf32>) -> tensor<4xf32>\n'
        "  return %r : tensor<4xf32>\n"
        "}\n"
    )
    result = run("autodiff-gradcheck", program, "--entry", "f")
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.strip() == f"{program}:3:3: error: differentiation of 'test.op' is not supported"


def test_autodiff_gradcheck_promotes_float_casts_consistently(tmp_path):
    """f16 -> f32 becomes f64 -> f64 under promotion: the cast is dropped, not left invalid."""
    program = tmp_path / "cast.mlir"
    program.write_text(
        "func.func @f(%x: tensor<4xf16>) -> tensor<4xf32> {\n"
        "  %y = arith.extf %x : tensor<4xf16> to tensor<4xf32>\n"
        "  %z = math.exp %y : tensor<4xf32>\n"
        "  %w = arith.truncf %z : tensor<4xf32> to tensor<4xf16>\n"
        "  %v = arith.extf %w : tensor<4xf16> to tensor<4xf32>\n"
        "  return %v : tensor<4xf32>\n"
        "}\n"
    )
    result = run("autodiff-gradcheck", program, "--entry", "f")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "vjp gradient of argument 0: ok" in result.stdout
