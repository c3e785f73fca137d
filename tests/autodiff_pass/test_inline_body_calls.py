"""`func.call` inside a `linalg.generic` body: the callee is inlined in the
derivative's copy of the primal, then differentiated as body code (both modes,
checked numerically in float64 through the CPU pipeline)."""
import numpy as np
import pytest

import gradir
from gradir.compilation import lower_to_linalg
from gradir.errors import GradirError

NESTED_CALLS = """
func.func @softplus(%v: f64) -> f64 {
  %e = math.exp %v : f64
  %one = arith.constant 1.0 : f64
  %s = arith.addf %e, %one : f64
  %l = math.log %s : f64
  return %l : f64
}
func.func @scaled(%v: f64, %w: f64) -> f64 {
  %p = func.call @softplus(%v) : (f64) -> f64
  %q = arith.mulf %p, %w : f64
  return %q : f64
}
func.func @f(%x: tensor<5xf64>, %w: tensor<5xf64>) -> tensor<5xf64> {
  %e = tensor.empty() : tensor<5xf64>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x, %w : tensor<5xf64>, tensor<5xf64>) outs(%e : tensor<5xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %r = func.call @scaled(%a, %b) : (f64, f64) -> f64
    %s = arith.mulf %r, %a : f64
    linalg.yield %s : f64
  } -> tensor<5xf64>
  return %y : tensor<5xf64>
}
"""


def test_a_body_calling_nested_scalar_functions_is_differentiated_in_both_modes():
    rng = np.random.default_rng(3)
    inputs = [rng.uniform(-1.5, 1.5, 5), rng.uniform(0.5, 2.0, 5)]
    result = gradir.gradcheck(NESTED_CALLS, "f", inputs=inputs)
    assert result.ok, result.report()
    exe = gradir.compile(NESTED_CALLS.replace("func.func @f(", "func.func @g(") + """
func.func @grad(%x: tensor<5xf64>, %w: tensor<5xf64>, %ct: tensor<5xf64>) -> (tensor<5xf64>, tensor<5xf64>) {
  %r:3 = autodiff.vjp @g(%x, %w, %ct) {wrt = array<i64: 0, 1>} : (tensor<5xf64>, tensor<5xf64>, tensor<5xf64>) -> (tensor<5xf64>, tensor<5xf64>, tensor<5xf64>)
  return %r#1, %r#2 : tensor<5xf64>, tensor<5xf64>
}""", target="cpu")
    x, w = inputs
    dx, dw = exe.call("grad", x, w, np.ones(5))
    softplus = np.log1p(np.exp(x))
    sigmoid = 1 / (1 + np.exp(-x))
    np.testing.assert_allclose(dx, w * (sigmoid * x + softplus), rtol=1e-12)
    np.testing.assert_allclose(dw, softplus * x, rtol=1e-12)


def test_a_recursive_call_in_a_body_is_a_located_error():
    program = """
func.func @loop(%v: f64) -> f64 {
  %r = func.call @loop(%v) : (f64) -> f64
  return %r : f64
}
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x : tensor<3xf64>) outs(%x : tensor<3xf64>) {
  ^bb0(%a: f64, %o: f64):
    %r = func.call @loop(%a) : (f64) -> f64
    linalg.yield %r : f64
  } -> tensor<3xf64>
  return %y : tensor<3xf64>
}
func.func @g(%x: tensor<3xf64>, %t: tensor<3xf64>) -> tensor<3xf64> {
  %y, %dy = autodiff.jvp @f(%x, %t) : (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  return %dy : tensor<3xf64>
}
"""
    with pytest.raises(GradirError, match=r":3:3: .*@loop.*more than 32 deep"):
        lower_to_linalg(program)
