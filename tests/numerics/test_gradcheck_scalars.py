"""`gradir.gradcheck` with scalar arguments and results.

Float scalars can be in `wrt` (perturbed like a 1-element tensor) and float scalar
results are checked; integer and index arguments get small seeded random values and
are never differentiated. The finite-difference machinery is checked against
hand-written vjp/jvp functions, and end to end through reverse and forward mode of
float scalars.
"""
import numpy as np
import pytest
from xdsl.dialects.func import FuncOp

import gradir
from gradir.cpu_backend.cpu_runtime import CpuExecutable
from gradir.errors import ArgumentError
from gradir.gradient_check import (
    SMALL_INTEGERS,
    GradChecker,
    _wrapper_functions,
    checked_wrt,
    random_inputs,
)
from gradir.source import load_module


SCALE = """
func.func @scale(%x: f32, %t: tensor<3xf32>, %n: index, %k: i32) -> (f32, tensor<3xf32>) {
  %s = tensor.splat %x : tensor<3xf32>
  %m = arith.mulf %s, %t : tensor<3xf32>
  %y = arith.mulf %x, %x : f32
  return %y, %m : f32, tensor<3xf32>
}
"""


def function(source: str, name: str) -> FuncOp:
    return next(op for op in load_module(source).ops if isinstance(op, FuncOp) and op.sym_name.data == name)


def test_wrappers_give_scalars_scalar_cotangents_and_tangents():
    vjp, jvp = _wrapper_functions(function(SCALE, "scale"), [0, 1]).split("}\n", 1)
    signature = "%a0: f32, %a1: tensor<3xf32>, %a2: index, %a3: i32, %e0: f32, %e1: tensor<3xf32>"
    assert f"func.func @__gradcheck_vjp_scale({signature}) -> (f32, tensor<3xf32>, f32, tensor<3xf32>)" in vjp
    assert (
        "autodiff.vjp @scale(%a0, %a1, %a2, %a3, %e0, %e1) {wrt = array<i64: 0, 1>} : "
        "(f32, tensor<3xf32>, index, i32, f32, tensor<3xf32>) -> (f32, tensor<3xf32>, f32, tensor<3xf32>)"
    ) in vjp
    assert f"func.func @__gradcheck_jvp_scale({signature}) -> (f32, tensor<3xf32>, f32, tensor<3xf32>)" in jvp
    assert "autodiff.jvp @scale(%a0, %a1, %a2, %a3, %e0, %e1) {wrt = array<i64: 0, 1>}" in jvp


def test_default_wrt_is_every_float_argument_scalar_or_tensor():
    assert checked_wrt(function(SCALE, "scale"), None) == (0, 1)
    assert checked_wrt(function(SCALE, "scale"), [1]) == (1,)


@pytest.mark.parametrize("wrt, index", [([2], 2), ([0, 3], 3), ([4], 4)])
def test_integer_and_index_arguments_are_never_in_wrt(wrt, index):
    with pytest.raises(ArgumentError, match=f"wrt index {index} does not name a float tensor or float scalar argument of @scale"):
        gradir.gradcheck(SCALE, "scale", wrt=wrt)


def test_integer_results_get_no_derivative():
    """Enzyme's multiret test: the vjp ignores the i32 result's cotangent (drawn non-zero),
    the jvp gives it a zero tangent; only the float results are compared."""
    source = """
    func.func @square(%x: f64, %y: i32, %z: tensor<3xf32>) -> (f64, i32, tensor<3xf32>, tensor<2xi64>) {
      %x2 = arith.mulf %x, %x : f64
      %y2 = arith.muli %y, %y : i32
      %z2 = arith.mulf %z, %z : tensor<3xf32>
      %k = arith.constant dense<[1, 2]> : tensor<2xi64>
      return %x2, %y2, %z2, %k : f64, i32, tensor<3xf32>, tensor<2xi64>
    }"""
    result = gradir.gradcheck(source, "square")
    assert result.ok, result.report()
    assert [c.what for c in result.checks] == [
        "gradient of argument 0", "gradient of argument 2", "tangent of result 0", "tangent of result 2"
    ]


def test_a_function_with_only_integer_results_has_a_vacuous_gradient():
    source = "func.func @count(%x: f64) -> i32 {\n  %c = arith.constant 1 : i32\n  return %c : i32\n}"
    assert not gradir.gradcheck(source, "count").ok


def test_results_neither_float_nor_integer_cannot_be_checked():
    source = "func.func @buffer(%x: f64, %m: memref<2xf32>) -> memref<2xf32> {\n  return %m : memref<2xf32>\n}"
    with pytest.raises(ArgumentError, match="@buffer must return only float and integer tensors and scalars"):
        gradir.gradcheck(source, "buffer")


def test_random_inputs_for_scalars_and_integers():
    source = """
    func.func @f(%x: f64, %n: index, %k: i32, %b: i1, %s: i8, %t: tensor<2x3xf32>, %u: tensor<4xi16>) -> f64 {
      return %x : f64
    }"""
    inputs = random_inputs(function(source, "f"), seed=3)
    assert [(a.shape, a.dtype) for a in inputs] == [
        ((), np.float64), ((), np.int64), ((), np.int32), ((), np.bool_), ((), np.int8),
        ((2, 3), np.float64), ((4,), np.int16),
    ]
    drawn = np.concatenate([random_inputs(function(source, "f"), seed=k)[5].ravel() for k in range(4)])
    assert np.any(drawn < 0) and np.any(drawn > 0)  # signed floats
    positive = random_inputs(function(source, "f"), seed=3, positive=True)
    assert 0.25 <= positive[0] < 1.25 and np.all((0.25 / np.sqrt(3) <= positive[5]) & (positive[5] < 1.25 / np.sqrt(3)))
    low, high = SMALL_INTEGERS
    assert all(low <= int(v) < high for a in (inputs[1], inputs[2], inputs[4], inputs[6]) for v in a.flat)
    again = random_inputs(function(source, "f"), seed=3)
    assert all(np.array_equal(a, b) for a, b in zip(inputs, again))


# --- the checks themselves, against hand-written derivatives -------------------------------

HAND_WRITTEN = """
func.func @f(%x: f64, %t: tensor<2xf64>, %n: index) -> (f64, tensor<2xf64>) {
  %y = arith.mulf %x, %x : f64
  %s = tensor.splat %x : tensor<2xf64>
  %m = arith.mulf %s, %t : tensor<2xf64>
  return %y, %m : f64, tensor<2xf64>
}
// d/dx: 2x u + <w, t>;  d/dt: x w   for cotangents (u, w)
func.func @__gradcheck_vjp_f(%x: f64, %t: tensor<2xf64>, %n: index, %u: f64, %w: tensor<2xf64>)
    -> (f64, tensor<2xf64>, f64, tensor<2xf64>) {
  %y, %m = func.call @f(%x, %t, %n) : (f64, tensor<2xf64>, index) -> (f64, tensor<2xf64>)
  %two = arith.constant 2.0 : f64
  %twox = arith.mulf %two, %x : f64
  %gx0 = arith.mulf %twox, %u : f64
  %wt = arith.mulf %w, %t : tensor<2xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tensor.extract %wt[%c0] : tensor<2xf64>
  %b = tensor.extract %wt[%c1] : tensor<2xf64>
  %ab = arith.addf %a, %b : f64
  %gx = arith.addf %gx0, %ab : f64
  %s = tensor.splat %x : tensor<2xf64>
  %gt = arith.mulf %s, %w : tensor<2xf64>
  return %y, %m, %gx, %gt : f64, tensor<2xf64>, f64, tensor<2xf64>
}
// tangents (dx, dt): dy = 2x dx;  dm = dx t + x dt
func.func @__gradcheck_jvp_f(%x: f64, %t: tensor<2xf64>, %n: index, %dx: f64, %dt: tensor<2xf64>)
    -> (f64, tensor<2xf64>, f64, tensor<2xf64>) {
  %y, %m = func.call @f(%x, %t, %n) : (f64, tensor<2xf64>, index) -> (f64, tensor<2xf64>)
  %two = arith.constant 2.0 : f64
  %twox = arith.mulf %two, %x : f64
  %dy = arith.mulf %twox, %dx : f64
  %sdx = tensor.splat %dx : tensor<2xf64>
  %p = arith.mulf %sdx, %t : tensor<2xf64>
  %sx = tensor.splat %x : tensor<2xf64>
  %q = arith.mulf %sx, %dt : tensor<2xf64>
  %dm = arith.addf %p, %q : tensor<2xf64>
  return %y, %m, %dy, %dm : f64, tensor<2xf64>, f64, tensor<2xf64>
}
"""


def hand_written_checker(source: str) -> GradChecker:
    """A GradChecker whose vjp/jvp wrappers are written by hand instead of generated (what
    `GradChecker.__init__` compiles cannot differentiate float scalars yet)."""
    checker = GradChecker.__new__(GradChecker)
    checker.executable = CpuExecutable(source)
    checker.callees = {"f": function(source, "f")}
    checker.wrt = {"f": (0, 1)}
    return checker


def test_scalar_arguments_and_results_are_checked_entry_by_entry():
    result = hand_written_checker(HAND_WRITTEN).check("f")
    assert result.ok, result.report()
    described = [check.describe() for check in result.checks]
    assert described[0].startswith("vjp gradient of argument 0: ok") and "at index [] " in described[0]
    assert "; 1 entries)" in described[0]
    assert described[2].startswith("jvp tangent of result 0: ok") and "; 1 entries)" in described[2]
    result = hand_written_checker(HAND_WRITTEN).check("f", [0.75, np.array([1.0, -2.0]), 2])
    assert result.ok, result.report()


def test_a_wrong_scalar_derivative_is_a_mismatch():
    wrong = HAND_WRITTEN.replace("%gx = arith.addf %gx0, %ab : f64", "%gx = arith.subf %gx0, %ab : f64")
    wrong = wrong.replace("%dy = arith.mulf %twox, %dx : f64", "%dy = arith.mulf %x, %dx : f64")
    result = hand_written_checker(wrong).check("f")
    assert not result.ok
    failed = [check.what for check in result.checks if not check.ok]
    assert failed == ["gradient of argument 0", "tangent of result 0"]


# --- end to end (now: integer arguments; with AD of scalars: float scalars) ----------------

INTEGER_ARGUMENTS = """
func.func @f(%t: tensor<4xf32>, %k: i32, %n: index) -> tensor<4xf32> {
  %x = tensor.extract %t[%n] : tensor<4xf32>
  %s = tensor.splat %x : tensor<4xf32>
  %m = arith.mulf %t, %s : tensor<4xf32>
  return %m : tensor<4xf32>
}
"""


def test_integer_and_index_arguments_get_small_random_values():
    result = gradir.gradcheck(INTEGER_ARGUMENTS, "f")
    assert result.ok and result.wrt == (0,), result.report()
    for seed in range(4):  # index values stay valid indices into the 4 elements
        assert gradir.gradcheck(INTEGER_ARGUMENTS, "f", seed=seed).ok


def test_given_inputs_for_integer_and_index_arguments():
    t = np.array([0.5, 1.5, -1.0, 2.0])
    result = gradir.gradcheck(INTEGER_ARGUMENTS, "f", [t, 7, np.array(3)])
    assert result.ok, result.report()
    with pytest.raises(ArgumentError, match="f: argument 2 is 1.5, expected an integer"):
        gradir.gradcheck(INTEGER_ARGUMENTS, "f", [t, 7, 1.5])


SCALAR_CALCULUS = """
func.func @poly(%x: f32, %t: tensor<3xf32>) -> (f32, tensor<3xf32>) {
  %y = arith.mulf %x, %x : f32
  %s = tensor.splat %y : tensor<3xf32>
  %m = arith.mulf %s, %t : tensor<3xf32>
  %e = math.exp %x : f32
  return %e, %m : f32, tensor<3xf32>
}
func.func @loss(%t: tensor<3xf32>) -> f32 {
  %c1 = arith.constant 1 : index
  %x = tensor.extract %t[%c1] : tensor<3xf32>
  %y = math.sin %x : f32
  return %y : f32
}
"""


def test_float_scalar_argument_and_result_end_to_end():
    result = gradir.gradcheck(SCALAR_CALCULUS, "poly")
    assert result.ok and result.wrt == (0, 1), result.report()


def test_float_scalar_result_of_a_tensor_argument_end_to_end():
    result = gradir.gradcheck(SCALAR_CALCULUS, "loss")
    assert result.ok, result.report()
