"""`autodiff-check-numerics` (`gradir.compile(..., check_numerics=True)`, `--check-numerics`):
the first op, forward or backward, whose result holds a NaN or an Inf is an error naming it
and where the user wrote it, as `torch.autograd.detect_anomaly` and JAX's `debug_nans` do.
Before, a NaN gradient came back as a result, exit status 0 and no hint where it started."""
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from xdsl.dialects.cf import AssertOp

import gradir
from gradir.autodiff_pass.check_numerics import AutodiffCheckNumericsPass
from gradir.compilation import lower_to_linalg
from gradir.source import load_module, make_context

PROGRAM = """\
func.func @f(%x: tensor<3xf64>) -> tensor<f64> {
  %r = autodiff.sqrt %x : tensor<3xf64>
  %l = autodiff.log %r : tensor<3xf64>
  %s = autodiff.sum %l : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
func.func @df(%x: tensor<3xf64>) -> tensor<3xf64> {
  %g = autodiff.grad @f(%x) : (tensor<3xf64>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}
func.func @root(%x: tensor<3xf64>) -> tensor<f64> {
  %r = autodiff.sqrt %x : tensor<3xf64>
  %s = autodiff.sum %r : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
func.func @droot(%x: tensor<3xf64>) -> tensor<3xf64> {
  %g = autodiff.grad @root(%x) : (tensor<3xf64>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}
func.func @jroot(%x: tensor<3xf64>, %t: tensor<3xf64>) -> (tensor<f64>, tensor<f64>) {
  %r:2 = autodiff.jvp @root(%x, %t) : (tensor<3xf64>, tensor<3xf64>) -> (tensor<f64>, tensor<f64>)
  return %r#0, %r#1 : tensor<f64>, tensor<f64>
}
func.func @zero_times_inf(%x: tensor<2xf32>) -> tensor<2xf32> {
  %inf = arith.constant dense<0x7F800000> : tensor<2xf32>
  %p = autodiff.mul %x, %inf : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %p : tensor<2xf32>
}
func.func @log_then_times_zero(%x: tensor<2xf64>) -> tensor<2xf64> {
  %zero = arith.constant dense<0.0> : tensor<2xf64>
  %l = autodiff.log %x : tensor<2xf64>
  %p = autodiff.mul %l, %zero : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  return %p : tensor<2xf64>
}
func.func @power(%x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %y = scf.for %i = %c0 to %n step %c1 iter_args(%p = %x) -> (f64) {
    %q = arith.mulf %p, %p : f64
    scf.yield %q : f64
  }
  return %y : f64
}
func.func @logs(%x: tensor<3xf32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]} ins(%x : tensor<3xf32>) outs(%e : tensor<3xf32>) {
  ^bb0(%a: f32, %o: f32):
    %l = math.log %a : f32
    linalg.yield %l : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func @count(%x: tensor<3xi32>) -> tensor<3xi32> {
  %e = tensor.empty() : tensor<3xi32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]} ins(%x : tensor<3xi32>) outs(%e : tensor<3xi32>) {
  ^bb0(%a: i32, %o: i32):
    %s = arith.addi %a, %a : i32
    linalg.yield %s : i32
  } -> tensor<3xi32>
  return %r : tensor<3xi32>
}
"""
@pytest.fixture(scope="module")
def source(tmp_path_factory) -> pathlib.Path:
    path = tmp_path_factory.mktemp("numerics") / "f.mlir"
    path.write_text(PROGRAM)
    return path


@pytest.fixture(scope="module")
def checked(source):
    return gradir.compile(source, check_numerics=True)


@pytest.fixture(scope="module")
def unchecked(source):
    return gradir.compile(source)


def line_of(text: str) -> int:
    """The line of PROGRAM that holds `text` (first one)."""
    return next(number for number, line in enumerate(PROGRAM.splitlines(), 1) if text in line)


def failure(call) -> gradir.RunTimeCheckError:
    with pytest.raises(gradir.RunTimeCheckError) as caught:
        call()
    return caught.value


def test_finite_values_are_unchanged_and_right(checked, unchecked):
    x = np.array([0.5, 1.0, 4.0])
    # f = sum(log(sqrt(x))) = sum(log(x)) / 2, df = 1 / (2x)
    np.testing.assert_allclose(checked.f(x), np.sum(np.log(x)) / 2, rtol=1e-12)
    np.testing.assert_allclose(checked.df(x), 1 / (2 * x), rtol=1e-12)
    np.testing.assert_array_equal(checked.df(x), unchecked.df(x))
    assert checked.power(1.5, 3) == 1.5**8


def test_log_of_zero_in_the_forward_names_the_log(checked, source):
    error = failure(lambda: checked.f(np.array([1.0, 0.0, 2.0])))
    assert error.location == f"{source}:{line_of('autodiff.log %r')}:3"
    assert "an Inf in the result of 'autodiff.log'" in error.message
    assert "@f" in error.message and len(str(error).splitlines()) == 1


def test_an_inf_only_in_the_backward_names_the_backward_at_the_forward_op(checked, unchecked, source):
    """sqrt(0) = 0 is finite; sqrt'(0) = 1 / (2 * 0) is not: the message says backward, and
    points at the user's sqrt (reverse mode gives each grad_of its forward op's location)."""
    x = np.array([0.0, 1.0, 4.0])
    assert float(checked.root(x)) == 3.0  # the forward alone passes
    error = failure(lambda: checked.droot(x))
    sqrt_line = next(n for n, line in enumerate(PROGRAM.splitlines(), 1) if "autodiff.sqrt" in line and n > line_of("@root"))
    assert error.location == f"{source}:{sqrt_line}:3"
    assert "an Inf in the backward of 'autodiff.sqrt' (the result of its 'autodiff.div')" in error.message
    # Off, the same call returns the Inf silently, as before.
    gradient = unchecked.droot(x)
    assert np.isinf(gradient[0]) and np.allclose(gradient[1:], [0.5, 0.25])


def test_an_inf_in_a_forward_mode_tangent_names_the_tangent_at_the_primal_op(checked, source):
    """Forward mode gives each tangent op its primal op's location, named as its tangent."""
    value, tangent = checked.jroot(np.array([1.0, 4.0, 9.0]), np.ones(3))
    np.testing.assert_allclose(tangent, 0.5 + 0.25 + 1 / 6)
    error = failure(lambda: checked.jroot(np.array([0.0, 4.0, 9.0]), np.ones(3)))
    sqrt_line = next(n for n, line in enumerate(PROGRAM.splitlines(), 1) if "autodiff.sqrt" in line and n > line_of("@root"))
    assert error.location == f"{source}:{sqrt_line}:3"
    assert "an Inf in the tangent of 'autodiff.sqrt' (the result of its 'autodiff.div')" in error.message


def test_zero_times_inf_is_a_nan_at_the_multiplication(checked, unchecked, source):
    error = failure(lambda: checked.zero_times_inf(np.array([0.0, 1.0], np.float32)))
    assert error.location == f"{source}:{line_of('autodiff.mul %x, %inf')}:3"
    assert "a NaN in the result of 'autodiff.mul'" in error.message
    # A value holding an Inf and no NaN says Inf.
    assert "an Inf in the result of 'autodiff.mul'" in failure(lambda: checked.zero_times_inf(np.ones(2, np.float32))).message
    assert np.isnan(unchecked.zero_times_inf(np.array([0.0, 1.0], np.float32))[0])


def test_the_first_op_is_reported_not_the_ones_its_value_spoils(checked, source):
    """log(0) = -inf, then -inf * 0 = NaN: the log is named, not the multiplication."""
    error = failure(lambda: checked.log_then_times_zero(np.array([0.0, 1.0])))
    assert error.location == f"{source}:{line_of('autodiff.log %x')}:3"
    assert "an Inf in the result of 'autodiff.log'" in error.message


def test_arguments_holding_nan_or_inf_are_named(checked, source):
    error = failure(lambda: checked.f(np.array([1.0, np.nan, 2.0])))
    assert error.location == f"{source}:1:1"
    assert "a NaN in argument 0 of @f" in error.message
    assert "an Inf in argument 0 of @df" in failure(lambda: checked.df(np.array([1.0, np.inf, 2.0]))).message
    assert "a NaN in argument 0 of @power" in failure(lambda: checked.power(float("nan"), 2)).message


def test_scalar_ops_in_loops_are_checked(checked, source):
    error = failure(lambda: checked.power(10.0, 10))  # 10 ** 1024 overflows f64
    assert error.location == f"{source}:{line_of('arith.mulf %p, %p')}:5"
    assert "an Inf in the result of 'arith.mulf'" in error.message


def test_a_linalg_op_is_checked_whole(checked, source):
    """Standard MLIR: the generic's result is checked (its scalar body is not, element by element)."""
    np.testing.assert_allclose(checked.logs(np.array([1.0, 2.0, 4.0], np.float32)), np.log([1.0, 2.0, 4.0]), rtol=1e-6)
    error = failure(lambda: checked.logs(np.array([1.0, 0.0, 2.0], np.float32)))
    assert error.location == f"{source}:{line_of('%r = linalg.generic')}:3"
    assert "an Inf in the result of 'linalg.generic'" in error.message


def test_integers_are_not_checked(source):
    module = lower_to_linalg(source, check_numerics=True)
    count = next(op for op in module.walk() if getattr(op, "sym_name", None) is not None and op.sym_name.data == "count")
    assert not any(isinstance(op, AssertOp) for op in count.walk())
    power = next(op for op in module.walk() if getattr(op, "sym_name", None) is not None and op.sym_name.data == "power")
    assert sum(isinstance(op, AssertOp) for op in power.walk()) == 4  # the f64 argument and the mulf, NaN and Inf each


def test_off_by_default_nothing_is_added(source, unchecked):
    """No pass, no assertion, no failure function: the generated code is what it was."""
    module = lower_to_linalg(source)
    assert not any(isinstance(op, AssertOp) for op in module.walk())
    assert "check_failed" not in unchecked.llvm_text
    assert "check_failed" in gradir.compile(source, check_numerics=True).llvm_text
    assert np.isinf(unchecked.f(np.array([1.0, 0.0, 2.0])))


def test_the_pass_alone_checks_what_it_should():
    module = load_module(PROGRAM.split("func.func @df")[0], make_context())
    AutodiffCheckNumericsPass().apply(make_context(), module)
    messages = [op.msg.data for op in module.walk() if isinstance(op, AssertOp)]
    assert messages == [
        "a NaN in argument 0 of @f", "an Inf in argument 0 of @f",
        "a NaN in the result of 'autodiff.sqrt'", "an Inf in the result of 'autodiff.sqrt'",
        "a NaN in the result of 'autodiff.log'", "an Inf in the result of 'autodiff.log'",
        "a NaN in the result of 'autodiff.sum'", "an Inf in the result of 'autodiff.sum'",
    ]  # fmt: skip


def test_bad_values_and_targets_are_argument_errors(source):
    with pytest.raises(gradir.ArgumentError, match="check_numerics must be True or False"):
        gradir.compile(source, check_numerics="yes")
    with pytest.raises(gradir.ArgumentError, match="check_numerics is supported on the 'cpu' target only"):
        gradir.compile(source, target="cuda", check_numerics=True)


BIN = pathlib.Path(sys.executable).parent


def run(tool, *args):
    return subprocess.run([str(BIN / tool), *map(str, args)], capture_output=True, text=True, timeout=300)


def test_autodiff_run_check_numerics(source, tmp_path):
    x = tmp_path / "x.npy"
    np.save(x, np.array([0.0, 1.0, 4.0]))
    plain = run("autodiff-run", source, "--entry", "droot", "--inputs", x)
    assert plain.returncode == 0 and "inf" in plain.stdout
    checked = run("autodiff-run", source, "--entry", "droot", "--inputs", x, "--check-numerics")
    assert checked.returncode == 1 and checked.stdout == ""
    lines = checked.stderr.strip().splitlines()
    assert len(lines) == 1, checked.stderr
    assert lines[0].startswith(f"{source}:{line_of('@root') + 1}:3: error: cpu-run: @droot: an Inf in the backward of 'autodiff.sqrt'")


def test_autodiff_opt_check_numerics(source):
    lowered = run("autodiff-opt", source, "--pipeline", "cpu", "--check-numerics")
    assert lowered.returncode == 0, lowered.stderr
    assert "an Inf in the backward of 'autodiff.sqrt'" in lowered.stdout
    assert "check_failed" not in run("autodiff-opt", source, "--pipeline", "cpu").stdout
    grad = run("autodiff-opt", source, "--pipeline", "grad", "--check-numerics")
    assert grad.returncode == 0 and 'cf.assert' in grad.stdout and "autodiff.grad_of" in grad.stdout
    for flags in ([], ["--pipeline", "gpu"]):
        refused = run("autodiff-opt", source, *flags, "--check-numerics")
        assert refused.returncode == 1 and refused.stdout == ""
        assert refused.stderr.startswith("error: --check-numerics only applies with --pipeline grad, linalg or cpu")
