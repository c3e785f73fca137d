"""MLIR 22's named elementwise linalg ops gradir defines (`linalg.abs`, `ceil`, `erf`,
`floor`, `negf`, `reciprocal`, `round`, `rsqrt`, `square`, `tanh`, `div`, `powf`,
`div_unsigned`) compute what MLIR says through the CPU pipeline: values against NumPy
(integer `div` truncating, `div_unsigned` reading the bits as unsigned); `floor`, `ceil`
and `round` have a derivative of exactly zero in both modes (PyTorch's convention, and
`derivatives.yaml`'s), not merely a small one. Their derivatives elsewhere are checked
against central differences in `test_named_linalg.py` (cases `named_*`)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import gradir

SHAPE = (3, 5)
T = "tensor<3x5xf64>"
I = "tensor<3x5xi32>"

UNARY = {
    "abs": np.abs,
    "ceil": np.ceil,
    "erf": np.vectorize(math.erf),
    "floor": np.floor,
    "negf": np.negative,
    "reciprocal": np.reciprocal,
    "round": lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5),  # half away from zero, as math.round
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "square": np.square,
    "tanh": np.tanh,
}
BINARY = {"div": np.divide, "powf": np.power}
STEPS = ("floor", "ceil", "round")


def _program() -> str:
    """Functions are prefixed (`op_floor`): one named `floor` would clash with the libm
    declaration the CPU pipeline adds for `math.floor`."""
    text = ""
    for name in UNARY:
        text += f"""
func.func @op_{name}(%x: {T}) -> {T} {{
  %e = tensor.empty() : {T}
  %r = linalg.{name} ins(%x : {T}) outs(%e : {T}) -> {T}
  return %r : {T}
}}"""
    for name in BINARY:
        text += f"""
func.func @op_{name}(%x: {T}, %y: {T}) -> {T} {{
  %e = tensor.empty() : {T}
  %r = linalg.{name} ins(%x, %y : {T}, {T}) outs(%e : {T}) -> {T}
  return %r : {T}
}}"""
    for name in ("div", "div_unsigned"):
        text += f"""
func.func @{name}_i32(%x: {I}, %y: {I}) -> {I} {{
  %e = tensor.empty() : {I}
  %r = linalg.{name} ins(%x, %y : {I}, {I}) outs(%e : {I}) -> {I}
  return %r : {I}
}}"""
    for name in STEPS:
        # the step op between two smooth ones, so that a nonzero rule would show
        text += f"""
func.func @loss_{name}(%x: {T}) -> tensor<f64> {{
  %e = tensor.empty() : {T}
  %s = math.sin %x : {T}
  %r = linalg.{name} ins(%s : {T}) outs(%e : {T}) -> {T}
  %q = arith.mulf %r, %x : {T}
  %l = autodiff.sum %q : {T} -> tensor<f64>
  return %l : tensor<f64>
}}
func.func @step_{name}(%x: {T}) -> {T} {{
  %e = tensor.empty() : {T}
  %s = math.sin %x : {T}
  %r = linalg.{name} ins(%s : {T}) outs(%e : {T}) -> {T}
  return %r : {T}
}}
func.func @grad_{name}(%x: {T}) -> {T} {{
  %g = autodiff.grad @loss_{name}(%x) : ({T}) -> {T}
  return %g : {T}
}}
func.func @jvp_{name}(%x: {T}, %t: {T}) -> {T} {{
  %r, %dr = autodiff.jvp @step_{name}(%x, %t) : ({T}, {T}) -> ({T}, {T})
  return %dr : {T}
}}"""
    return text


@pytest.fixture(scope="module")
def program():
    return gradir.compile(_program(), target="cpu")


RNG = np.random.default_rng(5)


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_values(program, name):
    # Halves included: where round's ties go (away from zero) shows.
    x = np.concatenate([RNG.uniform(0.1, 3.0, 10), [0.5, 1.5, 2.5, 0.25, 1.75]]).reshape(SHAPE)
    if name not in ("rsqrt", "reciprocal"):
        x = x * np.where(np.arange(x.size).reshape(SHAPE) % 2 == 0, 1.0, -1.0)
    got = np.asarray(program.call(f"op_{name}", x)).reshape(SHAPE)
    np.testing.assert_allclose(got, UNARY[name](x), rtol=1e-12, atol=0)


@pytest.mark.parametrize("name", list(BINARY))
def test_binary_values(program, name):
    x, y = RNG.uniform(0.5, 2.0, SHAPE), RNG.uniform(-2.0, 2.0, SHAPE)
    got = np.asarray(program.call(f"op_{name}", x, y)).reshape(SHAPE)
    np.testing.assert_allclose(got, BINARY[name](x, y), rtol=1e-12, atol=0)


def test_integer_divisions(program):
    x = RNG.integers(-100, 100, SHAPE).astype(np.int32)
    y = RNG.integers(1, 9, SHAPE).astype(np.int32) * np.where(RNG.random(SHAPE) < 0.5, 1, -1).astype(np.int32)
    signed = np.asarray(program.call("div_i32", x, y)).reshape(SHAPE)
    np.testing.assert_array_equal(signed, np.trunc(x / y).astype(np.int32))  # divsi rounds toward zero
    unsigned = np.asarray(program.call("div_unsigned_i32", x, y)).reshape(SHAPE)
    expected = (x.view(np.uint32) // y.view(np.uint32)).view(np.int32)
    np.testing.assert_array_equal(unsigned, expected)


@pytest.mark.parametrize("name", STEPS)
def test_steps_have_an_exactly_zero_derivative(program, name):
    x = RNG.uniform(-3.0, 3.0, SHAPE)
    step = UNARY[name](np.sin(x))
    np.testing.assert_array_equal(np.asarray(program.call(f"step_{name}", x)).reshape(SHAPE), step)
    # d/dx sum(step(sin x) * x) = step(sin x): the step's own derivative adds exactly nothing
    np.testing.assert_array_equal(np.asarray(program.call(f"grad_{name}", x)).reshape(SHAPE), step)
    tangent = RNG.uniform(-1.0, 1.0, SHAPE)
    np.testing.assert_array_equal(np.asarray(program.call(f"jvp_{name}", x, tangent)).reshape(SHAPE), 0.0)
