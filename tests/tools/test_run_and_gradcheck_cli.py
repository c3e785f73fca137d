"""autodiff-run and autodiff-gradcheck as programs."""
import pathlib
import subprocess
import sys

import numpy as np
import pytest

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


def test_autodiff_run_without_inputs_draws_seeded_ones(tmp_path):
    """As gradcheck does: the same inputs for the same seed, others for another, and said so."""
    out = tmp_path / "out.npz"
    first = run("autodiff-run", PRODUCT, "--entry", "df", "--output", out)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("inputs: random, seed 0 (floats standard normal / sqrt(fan-in)")
    a = np.random.default_rng(0).standard_normal(4).astype(np.float32)
    b = np.random.default_rng(0).standard_normal(8)[4:].astype(np.float32)
    np.testing.assert_allclose(np.load(out)["result1"], a * a + 1, rtol=1e-5)
    np.testing.assert_allclose(np.load(out)["result0"], 2 * a * b, rtol=1e-5)
    assert run("autodiff-run", PRODUCT, "--entry", "df").stdout == first.stdout
    assert run("autodiff-run", PRODUCT, "--entry", "df", "--seed", "1").stdout != first.stdout
    empty = run("autodiff-run", PRODUCT, "--entry", "df", "--inputs")
    assert empty.returncode == 1 and "expected 2 arguments, got 0" in empty.stderr


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


def test_autodiff_gradcheck_max_entries_samples_each_argument():
    result = run("autodiff-gradcheck", PRODUCT, "--entry", "f", "--wrt", "0,1", "--max-entries", "3")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("(analytic") == 3 and result.stdout.count("; 3 entries)") == 2, result.stdout
    bad = run("autodiff-gradcheck", PRODUCT, "--entry", "f", "--max-entries", "0")
    assert bad.returncode == 1 and bad.stderr == "error: --max-entries must be >= 1, got 0\n", bad.stderr


def test_gradcheck_max_entries_checks_that_many_entries():
    import gradir

    assert [c.checked_entries for c in gradir.gradcheck(PRODUCT, "f", wrt=[0], max_entries=2, modes=("vjp",)).checks] == [2]
    with pytest.raises(gradir.ArgumentError, match="max_entries must be >= 1"):
        gradir.gradcheck(PRODUCT, "f", max_entries=0)


def test_gradcheck_compiles_the_other_functions_only_where_they_are_called():
    """gradcheck's module keeps public only what it calls (the checked function and its
    wrappers); the functions the autodiff passes make and the user's others are inlined into
    them, not compiled again. `compile` keeps them public, as the contract says."""
    import gradir
    from gradir.gradient_check import GradChecker

    checker = GradChecker(PRODUCT, [("f", None)])
    assert sorted(checker.executable.signatures) == ["__gradcheck_jvp_f", "__gradcheck_vjp_f", "f"]
    assert {"f_grad_0_1", "f_vjp_0_1"} <= set(gradir.compile(PRODUCT).signatures)


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


SCALARS = """
func.func @f(%x: f64, %n: index, %t: tensor<2xf32>) -> (f64, tensor<2xf32>, i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f64
  %p = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %one) -> (f64) {
    %m = arith.mulf %acc, %x : f64
    scf.yield %m : f64
  }
  %big = arith.cmpf ogt, %p, %one : f64
  %d = arith.addf %t, %t : tensor<2xf32>
  return %p, %d, %big : f64, tensor<2xf32>, i1
}
"""


def test_autodiff_run_scalars_from_zero_d_npy_files(tmp_path):
    program = tmp_path / "scalars.mlir"
    program.write_text(SCALARS)
    x, n, t = tmp_path / "x.npy", tmp_path / "n.npy", tmp_path / "t.npy"
    np.save(x, 1.5)
    np.save(n, 3)
    np.save(t, np.array([1.0, -2.0], np.float32))
    out = tmp_path / "out.npz"
    result = run("autodiff-run", program, "--entry", "f", "--inputs", x, n, t, "--output", out)
    assert result.returncode == 0, result.stderr
    assert "result0: float64 []\n3.375\n" in result.stdout
    assert "result2: bool []\nTrue\n" in result.stdout
    saved = np.load(out)
    assert saved["result0"].shape == () and saved["result0"] == 1.5**3
    np.testing.assert_array_equal(saved["result1"], [2.0, -4.0])
    assert saved["result2"].dtype == np.bool_ and saved["result2"][()]


def test_autodiff_run_rejects_a_fractional_index(tmp_path):
    program = tmp_path / "scalars.mlir"
    program.write_text(SCALARS)
    x, n, t = tmp_path / "x.npy", tmp_path / "n.npy", tmp_path / "t.npy"
    np.save(x, 1.5)
    np.save(n, 2.5)
    np.save(t, np.zeros(2, np.float32))
    result = run("autodiff-run", program, "--entry", "f", "--inputs", x, n, t)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.strip() == "error: f: argument 1 is 2.5, expected an integer (index)"


INDEXED = """
func.func @f(%t: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %x = tensor.extract %t[%n] : tensor<4xf32>
  %s = tensor.splat %x : tensor<4xf32>
  %m = arith.mulf %t, %s : tensor<4xf32>
  return %m : tensor<4xf32>
}
"""


def test_autodiff_gradcheck_index_argument_random_or_given(tmp_path):
    program = tmp_path / "indexed.mlir"
    program.write_text(INDEXED)
    result = run("autodiff-gradcheck", program, "--entry", "f")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "gradcheck of @f (wrt [0]): passed" in result.stdout
    t, n = tmp_path / "t.npy", tmp_path / "n.npy"
    np.save(t, np.array([0.5, 1.0, -1.5, 2.0], np.float32))
    np.save(n, 2)
    result = run("autodiff-gradcheck", program, "--entry", "f", "--inputs", t, n)
    assert result.returncode == 0, result.stdout + result.stderr
    result = run("autodiff-gradcheck", program, "--entry", "f", "--wrt", "1")
    assert result.returncode == 1
    assert result.stderr.strip() == "error: wrt index 1 does not name a float tensor or float scalar argument of @f"


def test_autodiff_gradcheck_float_scalar_argument_and_result(tmp_path):
    program = tmp_path / "scalar.mlir"
    program.write_text(
        "func.func @f(%x: f32, %t: tensor<3xf32>) -> f32 {\n"
        "  %c0 = arith.constant 0 : index\n"
        "  %e = tensor.extract %t[%c0] : tensor<3xf32>\n"
        "  %y = arith.mulf %x, %e : f32\n"
        "  %z = math.sin %y : f32\n"
        "  return %z : f32\n"
        "}\n"
    )
    result = run("autodiff-gradcheck", program, "--entry", "f", "--wrt", "0,1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "vjp gradient of argument 0: ok" in result.stdout and "jvp tangent of result 0: ok" in result.stdout
