"""What the random standard-MLIR programs (`test_standard_programs.py`) found,
each minimised to a small program: a regression test per fixed bug, a strict
xfail per open one (it turns red the day the bug is fixed, so the mark is
removed then)."""
import numpy as np
import pytest

import gradir
from gradir.source import load_module

# ---- fixed: a linalg.generic with several results did not read back ----------------------------

TWO_RESULTS = """
func.func @f(%x: tensor<3x4xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %zero = arith.constant dense<0.0> : tensor<3xf32>
  %low = arith.constant dense<-5.0> : tensor<3xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x4xf32>) outs(%zero, %low : tensor<3xf32>, tensor<3xf32>) {
  ^bb0(%a: f32, %sum: f32, %max: f32):
    %s = math.sin %a : f32
    %t = arith.addf %sum, %s : f32
    %m = arith.maximumf %s, %max : f32
    linalg.yield %t, %m : f32, f32
  } -> (tensor<3xf32>, tensor<3xf32>)
  return %r#0, %r#1 : tensor<3xf32>, tensor<3xf32>
}
"""


def test_a_generic_with_two_results_reads_back_and_gradchecks():
    """xDSL 0.74 prints `-> (t1, t2)` (as MLIR does) but parsed only `-> t1, t2`:
    `gradir.gradcheck`, which reparses the program it promotes to f64, failed on
    every generic with two results ("Expected '->'", at the line after it)."""
    module = load_module(TWO_RESULTS)
    assert "-> (tensor<3xf32>, tensor<3xf32>)" in str(module)
    assert str(load_module(str(module))) == str(module)
    x = np.array([[0.1, 0.9, -0.4, 0.3], [1.2, -0.2, 0.5, 0.05], [-0.7, 0.6, 0.2, 1.0]])
    result = gradir.gradcheck(TWO_RESULTS, "f", inputs=[x])
    assert result.ok, result.report()


# ---- fixed: fusion read a broadcast producer's init after writing it (a wrong value, no error) ----

READ_INIT_THEN_BROADCAST = """
func.func @f(%x: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<3xf32> {
  %p = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%c : tensor<4xf32>) outs(%x : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %zero = arith.constant dense<0.0> : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%p : tensor<4xf32>) outs(%zero : tensor<3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}
"""
X, C = np.array([1.0, 2.0, 3.0, 4.0], np.float32), np.array([0.5, 0.25, 1.0, 2.0], np.float32)


def test_a_producer_that_reads_its_init_fuses_into_a_broadcasting_consumer():
    """p = x + c written into x's place (the body reads its init), then
    r[i] = sum_j p[j]: MLIR 22's elementwise fusion kept the init as an output of
    the fused loop nest, indexed by j only, so each i read the p of the previous
    one: r = [8, 12, 16] for x = c = ones(4). Now the init is made an input first
    (`mlir_bridge.tensor_stage.move_read_inits_to_inputs`)."""
    (r,) = gradir.compile(READ_INIT_THEN_BROADCAST).f(X, C)
    np.testing.assert_allclose(r, np.full(3, (X + C).sum()), rtol=1e-6)


def test_the_same_on_the_gpu_pipeline():
    """The GPU pipeline fuses the same way (before the fix: a Python ValueError
    while mapping the fused reduction)."""
    (r,) = gradir.compile(READ_INIT_THEN_BROADCAST, target="cuda").emulate("f", X, C)
    np.testing.assert_allclose(r, np.full(3, (X + C).sum()), rtol=1e-6)


# Where the property test met it: reverse mode writes the gradient of a reduction's
# input as `zero + cotangent` into a `dense<0.0>` init (a body that reads its init),
# consumed by the reverse of `y[j] = sum_i tanh(x[i])`: x[i]'s gradient came out
# (i + 1) times too large, jvp right.
BROADCAST_SUM_THEN_SUM = """
func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<3xf32>) outs(%zero : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.tanh %a : f32
    %s = arith.addf %o, %t : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %init = arith.constant dense<0.5> : tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%y : tensor<4xf32>) outs(%init : tensor<f32>) {
  ^bb0(%b: f32, %acc: f32):
    %n = arith.addf %acc, %b : f32
    linalg.yield %n : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}
"""


def test_the_gradient_through_a_broadcast_reduction_and_a_sum():
    x = np.array([-0.5, 0.2, 0.6])
    result = gradir.gradcheck(BROADCAST_SUM_THEN_SUM, "f", inputs=[x])
    assert result.ok, result.report()
    exe = gradir.compile(BROADCAST_SUM_THEN_SUM + """
func.func @g(%x: tensor<3xf32>) -> tensor<3xf32> {
  %d = autodiff.grad @f(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %d : tensor<3xf32>
}""")
    (gradient,) = exe.g(x.astype(np.float32))
    np.testing.assert_allclose(gradient, 4 * (1 - np.tanh(x) ** 2), rtol=1e-5)


# ---- fixed: contracting a max reduction's candidates made its gradient NaN ---------------------

ROW_MAX = """
func.func @f(%x: tensor<64x3xf64>, %w: tensor<64x3xf64>) -> tensor<64xf64> {
  %init = arith.constant dense<-6.0> : tensor<64xf64>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : tensor<64x3xf64>, tensor<64x3xf64>) outs(%init : tensor<64xf64>) {
  ^bb0(%a: f64, %b: f64, %acc: f64):
    %s = math.sin %a : f64
    %p = arith.mulf %s, %b : f64
    %q = arith.addf %p, %b : f64
    %n = arith.maximumf %q, %acc : f64
    linalg.yield %n : f64
  } -> tensor<64xf64>
  return %m : tensor<64xf64>
}
func.func @g(%x: tensor<64x3xf64>, %w: tensor<64x3xf64>) -> (tensor<64x3xf64>, tensor<64x3xf64>) {
  %ct = arith.constant dense<1.0> : tensor<64xf64>
  %r:3 = autodiff.vjp @f(%x, %w, %ct) : (tensor<64x3xf64>, tensor<64x3xf64>, tensor<64xf64>) -> (tensor<64xf64>, tensor<64x3xf64>, tensor<64x3xf64>)
  return %r#1, %r#2 : tensor<64x3xf64>, tensor<64x3xf64>
}
"""


def test_a_max_reduction_of_products_has_finite_gradients():
    """The CPU pipeline marked every addf/mulf of a reduction body `contract`,
    so LLVM fused `sin(a) * b + b` into an FMA in the forward max, 1 ulp from
    the same candidate recomputed (uncontracted) by reverse mode, which then
    counted no candidate equal to the maximum and divided the cotangent by
    zero: 21 of these 64 rows had NaN gradients. Only combiners (and a product
    feeding one) are marked now."""
    rng = np.random.default_rng(0)
    x, w = rng.uniform(-1, 1, (64, 3)), rng.uniform(-1, 1, (64, 3))
    dx, dw = gradir.compile(ROW_MAX).g(x, w)
    winner = np.argmax(np.sin(x) * w + w, axis=1)
    expected_dx = np.zeros_like(x)
    expected_dx[np.arange(64), winner] = (np.cos(x) * w)[np.arange(64), winner]
    np.testing.assert_allclose(dx, expected_dx, rtol=1e-12, atol=1e-14)
    expected_dw = np.zeros_like(w)
    expected_dw[np.arange(64), winner] = (np.sin(x) + 1)[np.arange(64), winner]
    np.testing.assert_allclose(dw, expected_dw, rtol=1e-12, atol=1e-14)
