"""`arith` and `math` ops on tensors of dynamic shape, and splats to one
(`autodiff_pass/dynamic_elementwise.py`), are differentiated as the `linalg.generic`s they
mean: gradcheck (f64 central differences, vjp and jvp, through the CPU pipeline) at two
sizes of the same compiled program, inside a loop too, and a second derivative. Before, each
was refused ("differentiation of 'math.exp' on tensors of dynamic shape ... is not supported
yet")."""

import numpy as np
import pytest
from pass_support import fresh_context, run_passes

import gradir
from gradir.source import load_module

T = "tensor<?x?xf64>"
PROGRAM = f"""
func.func @f(%x: {T}, %y: {T}) -> ({T}, {T}) {{
  %c0 = arith.constant 0 : index
  %s = arith.addf %x, %y : {T}
  %d = arith.subf %x, %y : {T}
  %p = arith.mulf %s, %d : {T}
  %q = arith.divf %p, %y : {T}
  %e = math.exp %q : {T}
  %t = math.tanh %x : {T}
  %l = math.log %y : {T}
  %r = math.sqrt %y : {T}
  %m = arith.maximumf %t, %l : {T}
  %n = arith.negf %m : {T}
  %w = math.powf %r, %x : {T}
  %big = arith.cmpf ogt, %x, %y : {T}
  %pick = arith.select %big, %e, %n : tensor<?x?xi1>, {T}
  %a0 = arith.mulf %pick, %w : {T}
  %k = arith.constant 0.0 : f64
  %flip = tensor.extract %x[%c0, %c0] : {T}
  %sign = arith.cmpf ogt, %flip, %k : f64
  %a = arith.select %sign, %a0, %e : {T}
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %loop = scf.for %i = %c0 to %c3 step %c1 iter_args(%state = %x) -> ({T}) {{
    %u = math.sin %state : {T}
    %v = arith.mulf %u, %y : {T}
    scf.yield %v : {T}
  }}
  return %a, %loop : {T}, {T}
}}
"""


def inputs(rows: int, columns: int, seed: int) -> list[np.ndarray]:
    """x in [-1, 1], y in [0.5, 1.5], and no element of x within 0.05 of y's (the select's
    kink) nor of tanh(x) within 0.05 of log(y) (the maximum's)."""
    rng = np.random.default_rng(seed)
    while True:
        x, y = rng.uniform(-1, 1, (rows, columns)), rng.uniform(0.5, 1.5, (rows, columns))
        if np.min(np.abs(x - y)) > 0.05 and np.min(np.abs(np.tanh(x) - np.log(y))) > 0.05:
            return [x, y]


def expected(x: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
    q = (x + y) * (x - y) / y
    pick = np.where(x > y, np.exp(q), -np.maximum(np.tanh(x), np.log(y)))
    state = x
    for _ in range(3):
        state = np.sin(state) * y
    product = pick * np.sqrt(y) ** x
    return [product if x[0, 0] > 0 else np.exp(q), state]


@pytest.mark.parametrize("shape", [(2, 3), (5, 4)])
def test_elementwise_ops_on_dynamic_shapes_match_central_differences(shape):
    x, y = inputs(*shape, seed=shape[0])  # x[0, 0] < 0 at (2, 3), > 0 at (5, 4): both branches
    exe = gradir.compile(PROGRAM)
    for got, want in zip(exe.f(x, y), expected(x, y)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    result = gradir.gradcheck(PROGRAM, "f", [x, y])
    assert result.ok, result.report()


def test_a_second_derivative_through_them():
    """The Hessian of a sum of `exp(x) * sin(x)` along the diagonal (grad of grad)."""
    text = """
func.func @g(%x: tensor<?xf64>) -> f64 {
  %e = math.exp %x : tensor<?xf64>
  %s = math.sin %x : tensor<?xf64>
  %p = arith.mulf %e, %s : tensor<?xf64>
  %zero = arith.constant 0.0 : f64
  %init = tensor.empty() : tensor<f64>
  %acc = linalg.fill ins(%zero : f64) outs(%init : tensor<f64>) -> tensor<f64>
  %sum = linalg.reduce { arith.addf } ins(%p : tensor<?xf64>) outs(%acc : tensor<f64>) dimensions = [0]
  %r = tensor.extract %sum[] : tensor<f64>
  return %r : f64
}
func.func @dg(%x: tensor<?xf64>) -> tensor<?xf64> {
  %g = autodiff.grad @g(%x) {wrt = array<i64: 0>} : (tensor<?xf64>) -> tensor<?xf64>
  return %g : tensor<?xf64>
}"""
    x = np.linspace(-1.0, 1.0, 5)
    np.testing.assert_allclose(gradir.compile(text).dg(x), np.exp(x) * (np.sin(x) + np.cos(x)), rtol=1e-12)
    result = gradir.gradcheck(text, "dg", [x])
    assert result.ok, result.report()


def test_the_users_function_keeps_its_ops():
    """Only the derivative's copy of the primal is rewritten."""
    text = (
        PROGRAM
        + f"""
func.func @df(%x: {T}, %y: {T}, %ca: {T}, %cb: {T}) -> ({T}, {T}) {{
  %r:4 = autodiff.vjp @f(%x, %y, %ca, %cb) {{wrt = array<i64: 0, 1>}} : ({T}, {T}, {T}, {T}) -> ({T}, {T}, {T}, {T})
  return %r#2, %r#3 : {T}, {T}
}}"""
    )
    ctx = fresh_context()
    module = run_passes(ctx, load_module(text, ctx), "autodiff-reverse")
    printed = {op.sym_name.data: str(op) for op in module.ops if hasattr(op, "sym_name")}
    assert "math.exp" in printed["f"] and "linalg.generic" not in printed["f"]
    assert any("linalg.generic" in body and "math.exp" in body for name, body in printed.items() if name != "f")


SPLAT = """
func.func @f(%x: tensor<?xf64>) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf64>
  %v = tensor.extract %x[%c0] : tensor<?xf64>
  %s = tensor.splat %v[%n] : tensor<?xf64>
  %p = arith.mulf %s, %x : tensor<?xf64>
  return %p : tensor<?xf64>
}"""


@pytest.mark.parametrize("size", [3, 6])
def test_a_splat_of_an_active_scalar_to_a_dynamic_shape(size):
    """`x[0] * x`: the splat's gradient is the sum of its cotangent, into x[0]."""
    x = np.random.default_rng(size).uniform(0.5, 1.5, size)
    np.testing.assert_allclose(gradir.compile(SPLAT).f(x), x[0] * x, rtol=1e-14)
    result = gradir.gradcheck(SPLAT, "f", [x])
    assert result.ok, result.report()
