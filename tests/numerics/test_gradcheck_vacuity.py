"""gradcheck cannot pass by comparing zeros, draws inputs that exercise the function,
and steps relative to each input (issue "Feels like mlir-opt and torch.autograd", 1)."""
import numpy as np
import pytest

import gradir
from gradir.gradient_check import POSITIVE_INPUTS, SIGNED_INPUTS, fan_in, random_inputs, relative_step
from gradir.source import load_module

SATURATED = """
func.func @f(%x: tensor<4xf64>, %w: tensor<4xf64>) -> tensor<f64> {
  %p = autodiff.mul %x, %w : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %big = arith.constant dense<40.0> : tensor<4xf64>
  %q = autodiff.add %p, %big : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %t = autodiff.tanh %q : tensor<4xf64>
  %s = autodiff.sum %t : tensor<4xf64> -> tensor<f64>
  return %s : tensor<f64>
}
"""
"""tanh(x w + 40): 1 to within 1e-34 wherever x and w are small, so its gradients are 0."""

UNUSED = """
func.func @f(%x: tensor<3xf64>, %unused: tensor<3xf64>) -> tensor<f64> {
  %s = autodiff.sum %x : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
"""

LOG = """
func.func @f(%x: tensor<5xf64>) -> tensor<f64> {
  %l = autodiff.log %x : tensor<5xf64>
  %s = autodiff.sum %l : tensor<5xf64> -> tensor<f64>
  return %s : tensor<f64>
}
"""

MLP = """
func.func @f(%x: tensor<8x64xf64>, %w: tensor<64x32xf64>) -> tensor<f64> {
  %h = autodiff.matmul %x, %w : (tensor<8x64xf64>, tensor<64x32xf64>) -> tensor<8x32xf64>
  %t = autodiff.tanh %h : tensor<8x32xf64>
  %s = autodiff.sum %t : tensor<8x32xf64> -> tensor<f64>
  return %s : tensor<f64>
}
"""
"""A tanh layer with 64 inputs: saturated (every tanh 1, gradients 0) at inputs in [0.25, 1.25)."""

LARGE = """
func.func @f(%x: f64) -> f64 {
  %y = arith.mulf %x, %x : f64
  return %y : f64
}
"""


def test_a_saturated_function_is_vacuous_and_fails():
    result = gradir.gradcheck(SATURATED, "f")
    assert not result.ok
    assert all(check.vacuous for check in result.checks)
    assert "vjp gradient of argument 0: VACUOUS" in result.report()
    assert "this check proves nothing" in result.report()
    assert result.report().endswith("FAILED")


def test_allowing_vacuous_checks_passes_them_and_says_so():
    result = gradir.gradcheck(SATURATED, "f", allow_vacuous=True)
    assert result.ok
    assert "vjp gradient of argument 0: vacuous (allowed)" in result.report()


def test_an_argument_that_does_not_matter_is_named():
    result = gradir.gradcheck(UNUSED, "f")
    assert not result.ok
    assert [check.what for check in result.checks if check.vacuous] == ["gradient of argument 1"]
    assert gradir.gradcheck(UNUSED, "f", wrt=[0]).ok


def test_a_wrong_gradient_near_zero_is_still_a_mismatch():
    """Vacuity does not hide an analytic value the numbers contradict: a gradient of 5e-5
    where finite differences say 0 fails (10 atol is the bound, atol the tolerance)."""
    from gradir.gradient_check import _compare

    check = _compare("vjp", "g", np.array([5e-5]), np.array([0.0]), [(0,)], 1e-5, 1e-3, allow_vacuous=True)
    assert check.vacuous and not check.ok


def test_default_inputs_exercise_a_tanh_layer():
    result = gradir.gradcheck(MLP, "f")
    assert result.ok, result.report()
    assert result.inputs == SIGNED_INPUTS
    assert not any(check.vacuous for check in result.checks)
    # The old inputs, for the record: this layer saturates and every check is vacuous.
    old = [np.random.default_rng(0).uniform(0.25, 1.25, shape) for shape in ((8, 64), (64, 32))]
    assert all(check.vacuous for check in gradir.gradcheck(MLP, "f", old).checks if check.mode == "vjp")


def test_inputs_turn_positive_where_the_function_is_not_finite():
    result = gradir.gradcheck(LOG, "f")
    assert result.ok, result.report()
    assert result.inputs == POSITIVE_INPUTS
    assert result.report().startswith(f"inputs: {POSITIVE_INPUTS}\n")


def test_given_inputs_are_reported_as_given():
    result = gradir.gradcheck(LOG, "f", [np.arange(1.0, 6.0)])
    assert result.inputs == "given" and not result.report().startswith("inputs:")


def test_random_floats_are_scaled_by_fan_in():
    function = next(op for op in load_module(MLP).walk() if op.name == "func.func")
    x, w = random_inputs(function, seed=0)
    assert fan_in(x.shape) == 64 and fan_in(w.shape) == 32 and fan_in((5,)) == 1
    assert abs(np.std(x) - 1 / 8) < 0.03 and abs(np.std(w) - 1 / np.sqrt(32)) < 0.03


def test_the_step_is_relative_to_large_inputs():
    """At 1e12 an absolute step of 1e-6 is below half an ulp: x + eps == x, the difference
    quotient was 0 and the check of d(x^2)/dx = 2e12 failed."""
    assert relative_step(1e-6, 1e12) == pytest.approx(1e6) and relative_step(1e-6, 0.5) == 1e-6
    result = gradir.gradcheck(LARGE, "f", [np.float64(1e12)])
    assert result.ok, result.report()


def test_allow_vacuous_must_be_a_boolean():
    with pytest.raises(gradir.ArgumentError, match="allow_vacuous must be True or False"):
        gradir.gradcheck(LOG, "f", allow_vacuous="yes")
