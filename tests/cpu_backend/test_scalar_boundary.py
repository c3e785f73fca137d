"""Scalars at the function boundary of the CPU runtime.

Scalar arguments are passed by value and scalar results come back by value through
`_mlir_ciface_f` (one as its return value, several as a struct behind a pointer passed
first), while tensor results stay out-parameters after the arguments
(`mlir_bridge.host_execution.call_packed`). Each test checks values against NumPy,
so a result read from the wrong place or with the wrong layout shows up.
"""
import numpy as np
import pytest

import gradir
from gradir.cpu_backend.cpu_runtime import CpuExecutable
from gradir.errors import ArgumentError, PipelineError
from gradir.mlir_bridge.host_execution import ScalarSpec, TensorSpec

SCALARS = """
func.func @affine(%x: f64, %a: f64, %b: f64) -> f64 {
  %m = arith.mulf %x, %a : f64
  %r = arith.addf %m, %b : f64
  return %r : f64
}
func.func @power(%x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %one) -> (f64) {
    %m = arith.mulf %acc, %x : f64
    scf.yield %m : f64
  }
  return %r : f64
}
func.func @greater(%x: i32, %y: i32) -> i1 {
  %b = arith.cmpi sgt, %x, %y : i32
  return %b : i1
}
func.func @negate(%b: i1) -> i1 {
  %true = arith.constant true
  %r = arith.xori %b, %true : i1
  return %r : i1
}
func.func @narrow(%x: f32, %h: f16, %k: i8, %s: i16, %l: i64) -> (f32, f16, i8, i16, i64) {
  %x2 = arith.addf %x, %x : f32
  %h2 = arith.mulf %h, %h : f16
  %one8 = arith.constant 1 : i8
  %k2 = arith.addi %k, %one8 : i8
  %one16 = arith.constant 1 : i16
  %s2 = arith.subi %s, %one16 : i16
  %l2 = arith.muli %l, %l : i64
  return %x2, %h2, %k2, %s2, %l2 : f32, f16, i8, i16, i64
}
"""


@pytest.fixture(scope="module")
def scalars() -> CpuExecutable:
    return CpuExecutable(SCALARS)


def test_scalar_signatures(scalars):
    f64, index = ScalarSpec(np.dtype(np.float64), "f64"), ScalarSpec(np.dtype(np.int64), "index")
    assert scalars.signatures["power"].arguments == (f64, index)
    assert scalars.signatures["power"].results == (f64,)
    assert scalars.signatures["greater"].results == (ScalarSpec(np.dtype(np.bool_), "i1"),)
    assert str(index) == "index"


def test_f64_in_and_out(scalars):
    result = scalars.affine(1.5, 2.0, -0.25)
    assert type(result) is np.float64 and result == 2.75
    (result,) = scalars.call("affine", np.float64(3.0), np.array(2.0), np.float32(0.5))
    assert result == 6.5


def test_index_argument_as_loop_bound(scalars):
    for n in (0, 1, 5):
        result = scalars.power(1.5, n)
        assert type(result) is np.float64 and result == 1.5**n
    result = scalars.power(2.0, np.int32(10))  # any integer type, checked against index
    assert result == 1024.0


def test_i32_arguments_and_i1_result(scalars):
    assert scalars.greater(3, -2) is np.True_
    assert scalars.greater(np.int32(-7), 2**31 - 1) is np.False_
    result = scalars.greater(5, 5)
    assert type(result) is np.bool_ and not result
    assert scalars.negate(True) is np.False_
    assert scalars.negate(np.False_) is np.True_
    assert scalars.negate(0) is np.True_  # 0 and 1 are booleans too


def test_every_width_round_trips(scalars):
    x, h, k, s, l = scalars.narrow(np.float32(1.25), 1.5, -128, 32767, -3_000_000_000)
    assert (type(x), type(h), type(k), type(s), type(l)) == (
        np.float32, np.float16, np.int8, np.int16, np.int64
    )
    assert (x, h, k, s, l) == (2.5, 2.25, -127, 32766, 9_000_000_000_000_000_000)


@pytest.mark.parametrize(
    "function, arguments, message",
    [
        ("greater", (2.5, 1), "greater: argument 0 is 2.5, expected an integer (i32)"),
        ("greater", (1, 2**31), "greater: argument 1 is 2147483648, out of the range of i32 [-2147483648, 2147483647]"),
        ("greater", (True, 1), "greater: argument 0 is a bool, expected i32"),
        ("greater", (float("nan"), 1), "greater: argument 0 is nan, expected an integer (i32)"),
        ("greater", ("3", 1), "greater: argument 0 is a str, expected a scalar i32"),
        ("greater", (np.array([1, 2]), 1), "greater: argument 0 has shape (2,), expected a scalar i32"),
        ("affine", (True, 1.0, 1.0), "affine: argument 0 is a bool, expected f64"),
        ("affine", (1.0, 1j, 1.0), "affine: argument 1 is a complex, expected a scalar f64"),
        ("affine", (1.0, 1.0, 10**400), "affine: argument 2 is 10000000000"),
        ("narrow", (1e39, 1.0, 0, 0, 0), "narrow: argument 0 is 1e+39, out of the range of f32"),
        ("narrow", (1.0, 70000.0, 0, 0, 0), "narrow: argument 1 is 70000.0, out of the range of f16"),
        ("narrow", (1.0, 1.0, 128, 0, 0), "narrow: argument 2 is 128, out of the range of i8 [-128, 127]"),
        ("negate", (2,), "negate: argument 0 is 2, expected a bool, 0 or 1 (i1)"),
        ("power", (2.0, -(2**63) - 1), "power: argument 1 is -9223372036854775809, out of the range of index"),
    ],
)
def test_wrong_scalars_are_argument_errors(scalars, function, arguments, message):
    with pytest.raises(ArgumentError) as error:
        scalars.call(function, *arguments)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_integral_floats_are_integers(scalars):
    assert scalars.greater(3.0, np.float32(2.0)) is np.True_
    result = scalars.power(3.0, 2.0)
    assert result == 9.0


MIXED = """
#id = affine_map<(i) -> (i)>
func.func @mixed(%t: tensor<4xf64>, %s: f64, %flag: i1, %u: tensor<2x2xf32>, %n: i32)
    -> (tensor<4xf64>, f64, i1, tensor<2x2xf32>, i32) {
  %e = tensor.empty() : tensor<4xf64>
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%a: f64, %o: f64):
    %m = arith.mulf %a, %s : f64
    linalg.yield %m : f64
  } -> tensor<4xf64>
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.from_elements %zero : tensor<f64>
  %sum = linalg.generic {indexing_maps = [#id, affine_map<(i) -> ()>], iterator_types = ["reduction"]}
      ins(%t : tensor<4xf64>) outs(%e0 : tensor<f64>) {
  ^bb0(%a: f64, %acc: f64):
    %r = arith.addf %a, %acc : f64
    linalg.yield %r : f64
  } -> tensor<f64>
  %total = tensor.extract %sum[] : tensor<f64>
  %true = arith.constant true
  %not = arith.xori %flag, %true : i1
  %doubled = arith.addf %u, %u : tensor<2x2xf32>
  %chosen = arith.select %flag, %doubled, %u : tensor<2x2xf32>
  %one = arith.constant 1 : i32
  %next = arith.addi %n, %one : i32
  return %scaled, %total, %not, %chosen, %next : tensor<4xf64>, f64, i1, tensor<2x2xf32>, i32
}
func.func @two_scalars(%t: tensor<3xf32>, %k: index) -> (index, tensor<3xf32>, f16) {
  %c1 = arith.constant 1 : index
  %k1 = arith.addi %k, %c1 : index
  %h = arith.constant 0.5 : f16
  return %k1, %t, %h : index, tensor<3xf32>, f16
}
func.func @one_scalar_among_tensors(%a: tensor<3xf32>, %b: tensor<3xf32>) -> (tensor<3xf32>, f32, tensor<3xf32>) {
  %c = arith.constant 2.5 : f32
  %s = arith.addf %a, %b : tensor<3xf32>
  return %b, %c, %s : tensor<3xf32>, f32, tensor<3xf32>
}
"""


@pytest.fixture(scope="module")
def mixed() -> CpuExecutable:
    return CpuExecutable(MIXED)


def test_mixed_scalar_and_tensor_arguments_and_results(mixed):
    t = np.array([1.0, -2.0, 3.5, 0.25])
    u = np.arange(4, dtype=np.float32).reshape(2, 2)
    for flag in (True, False):
        scaled, total, negated, chosen, next_n = mixed.mixed(t, 3.0, flag, u, 41)
        np.testing.assert_array_equal(scaled, t * 3.0)
        assert type(total) is np.float64 and total == t.sum()
        assert type(negated) is np.bool_ and negated == (not flag)
        np.testing.assert_array_equal(chosen, u + u if flag else u)
        assert type(next_n) is np.int32 and next_n == 42
    assert mixed.signatures["mixed"].results[3] == TensorSpec((2, 2), np.dtype(np.float32))


def test_several_scalar_results_around_a_tensor(mixed):
    t = np.array([1.0, 2.0, 3.0], np.float32)
    k, same, half = mixed.two_scalars(t, 7)
    assert type(k) is np.int64 and k == 8
    np.testing.assert_array_equal(same, t)
    assert type(half) is np.float16 and half == 0.5


def test_one_scalar_result_between_tensor_results(mixed):
    a, b = np.ones(3, np.float32), np.arange(3, dtype=np.float32)
    first, scalar, last = mixed.one_scalar_among_tensors(a, b)
    np.testing.assert_array_equal(first, b)
    assert type(scalar) is np.float32 and scalar == 2.5
    np.testing.assert_array_equal(last, a + b)


def test_bool_for_a_float_zero_d_tensor_is_an_error():
    source = "func.func @id(%x: tensor<f32>) -> tensor<f32> {\n  return %x : tensor<f32>\n}"
    exe = CpuExecutable(source)
    assert exe.id(3) == 3.0
    with pytest.raises(ArgumentError, match="id: argument 0 is a bool, expected tensor<f32>"):
        exe.id(True)


def test_index_tensors_at_the_boundary():
    source = """
    func.func @shift(%t: tensor<3xindex>, %k: index) -> tensor<3xindex> {
      %e = tensor.empty() : tensor<3xindex>
      %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                           iterator_types = ["parallel"]}
          ins(%t : tensor<3xindex>) outs(%e : tensor<3xindex>) {
      ^bb0(%a: index, %o: index):
        %s = arith.addi %a, %k : index
        linalg.yield %s : index
      } -> tensor<3xindex>
      return %r : tensor<3xindex>
    }
    """
    exe = CpuExecutable(source)
    assert str(exe.signatures["shift"].arguments[0]) == "tensor<3xindex>"
    result = exe.shift(np.array([1, 2, 3]), 10)
    assert result.dtype == np.int64
    np.testing.assert_array_equal(result, [11, 12, 13])


def test_unsupported_boundary_types_are_named():
    source = "func.func @v(%x: vector<4xf32>) -> vector<4xf32> {\n  return %x : vector<4xf32>\n}"
    with pytest.raises(PipelineError, match=r"v: argument 0 has type vector<4xf32>; supported: ranked tensors and scalars of f16"):
        CpuExecutable(source)


# --- a gradient function over scalars, written as reverse mode will generate it -----------

PRODUCT_WITH_SCALE = """
func.func @loss(%s: f64, %t: tensor<3xf64>, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f64) {
    %x = tensor.extract %t[%i] : tensor<3xf64>
    %p = arith.mulf %x, %s : f64
    %q = arith.mulf %p, %x : f64
    %a = arith.addf %acc, %q : f64
    scf.yield %a : f64
  }
  return %r : f64
}
func.func @loss_vjp_0_1(%s: f64, %t: tensor<3xf64>, %n: index, %cotangent: f64) -> (f64, f64, tensor<3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %loss = func.call @loss(%s, %t, %n) : (f64, tensor<3xf64>, index) -> f64
  %zeros = tensor.splat %zero : tensor<3xf64>
  %gs, %gt = scf.for %i = %c0 to %n step %c1 iter_args(%as = %zero, %at = %zeros) -> (f64, tensor<3xf64>) {
    %x = tensor.extract %t[%i] : tensor<3xf64>
    %xx = arith.mulf %x, %x : f64
    %ds = arith.mulf %cotangent, %xx : f64
    %as2 = arith.addf %as, %ds : f64
    %two = arith.constant 2.0 : f64
    %sx = arith.mulf %s, %x : f64
    %d = arith.mulf %two, %sx : f64
    %dx = arith.mulf %cotangent, %d : f64
    %at2 = tensor.insert %dx into %at[%i] : tensor<3xf64>
    scf.yield %as2, %at2 : f64, tensor<3xf64>
  }
  return %loss, %gs, %gt : f64, f64, tensor<3xf64>
}
func.func @loss_grad_0_1(%s: f64, %t: tensor<3xf64>, %n: index) -> (f64, tensor<3xf64>) {
  %one = arith.constant 1.0 : f64
  %loss, %gs, %gt = func.call @loss_vjp_0_1(%s, %t, %n, %one) : (f64, tensor<3xf64>, index, f64) -> (f64, f64, tensor<3xf64>)
  return %gs, %gt : f64, tensor<3xf64>
}
"""


def test_hand_written_gradient_functions_with_scalar_arguments():
    exe = gradir.compile(PRODUCT_WITH_SCALE, target="cpu")
    t = np.array([0.5, -1.0, 2.0])
    for n in (0, 2, 3):
        loss = exe.loss(1.5, t, n)
        assert np.isclose(loss, 1.5 * np.sum(t[:n] ** 2))
        loss, grad_s, grad_t = exe.loss_vjp_0_1(1.5, t, n, 2.0)
        assert type(grad_s) is np.float64 and np.isclose(grad_s, 2.0 * np.sum(t[:n] ** 2))
        np.testing.assert_allclose(grad_t, np.where(np.arange(3) < n, 2.0 * 2 * 1.5 * t, 0.0))
        grad_s, grad_t = exe.loss_grad_0_1(1.5, t, n)
        assert np.isclose(grad_s, np.sum(t[:n] ** 2))
        np.testing.assert_allclose(grad_t, np.where(np.arange(3) < n, 2 * 1.5 * t, 0.0))
