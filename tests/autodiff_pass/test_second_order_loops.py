"""Second-order derivatives through control flow: a gradient function whose
reversed loops and branches hold grad_of/autograd_add/autograd_zero, itself
differentiated in both modes (forward over reverse, reverse over reverse).

`gradcheck` of a gradient function checks its vjp and jvp, i.e. Hessian
products, against central differences of the gradient (float64, CPU
pipeline); the Hessian-vector products are also compared with each other."""
import numpy as np
import pytest

import gradir

LOOP = """
func.func @f(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %y = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> tensor<3xf64> {
    %m = autodiff.mul %a, %w : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    %t = autodiff.tanh %m : tensor<3xf64>
    %u = autodiff.add %t, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    scf.yield %u : tensor<3xf64>
  }
  %s = autodiff.sum %y : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
func.func @gx(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> {
  %g = autodiff.grad @f(%x, %w) {wrt = array<i64: 0>} : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}
func.func @hvp_forward(%x: tensor<3xf64>, %w: tensor<3xf64>, %v: tensor<3xf64>) -> tensor<3xf64> {
  %g, %hv = autodiff.jvp @gx(%x, %w, %v) {wrt = array<i64: 0>} : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  return %hv : tensor<3xf64>
}
func.func @g_dot_v(%x: tensor<3xf64>, %w: tensor<3xf64>, %v: tensor<3xf64>) -> tensor<f64> {
  %g = func.call @gx(%x, %w) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %p = autodiff.mul %g, %v : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %s = autodiff.sum %p : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
func.func @hvp_reverse(%x: tensor<3xf64>, %w: tensor<3xf64>, %v: tensor<3xf64>) -> tensor<3xf64> {
  %hv = autodiff.grad @g_dot_v(%x, %w, %v) {wrt = array<i64: 0>} : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %hv : tensor<3xf64>
}
"""

BRANCH = """
func.func @f(%x: tensor<3xf64>, %c: tensor<i1>) -> tensor<f64> {
  %p = tensor.extract %c[] : tensor<i1>
  %y = scf.if %p -> tensor<3xf64> {
    %e = autodiff.exp %x : tensor<3xf64>
    %m = autodiff.mul %e, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    scf.yield %m : tensor<3xf64>
  } else {
    %s = autodiff.sin %x : tensor<3xf64>
    scf.yield %s : tensor<3xf64>
  }
  %s = autodiff.sum %y : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
func.func @gx(%x: tensor<3xf64>, %c: tensor<i1>) -> tensor<3xf64> {
  %g = autodiff.grad @f(%x, %c) {wrt = array<i64: 0>} : (tensor<3xf64>, tensor<i1>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}
"""

# A while loop (counted first, its stacks sized at run time).
WHILE = """
func.func @f(%xt: tensor<1xf64>, %wt: tensor<1xf64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %x = tensor.extract %xt[%c0] : tensor<1xf64>
  %w = tensor.extract %wt[%c0] : tensor<1xf64>
  %r:2 = scf.while (%i = %c0, %a = %x) : (index, f64) -> (index, f64) {
    %go = arith.cmpi slt, %i, %c3 : index
    scf.condition(%go) %i, %a : index, f64
  } do {
  ^bb0(%j: index, %b: f64):
    %next = arith.addi %j, %c1 : index
    %m = arith.mulf %b, %w : f64
    %s = math.sin %m : f64
    %t = arith.addf %s, %x : f64
    scf.yield %next, %t : index, f64
  }
  %out = tensor.from_elements %r#1 : tensor<f64>
  return %out : tensor<f64>
}
func.func @gx(%xt: tensor<1xf64>, %wt: tensor<1xf64>) -> tensor<1xf64> {
  %g = autodiff.grad @f(%xt, %wt) {wrt = array<i64: 0>} : (tensor<1xf64>, tensor<1xf64>) -> tensor<1xf64>
  return %g : tensor<1xf64>
}
"""

HVP_WHILE = """
func.func @hvp(%xt: tensor<1xf64>, %wt: tensor<1xf64>, %v: tensor<1xf64>) -> tensor<1xf64> {
  %g, %hv = autodiff.jvp @gx(%xt, %wt, %v) {wrt = array<i64: 0>} : (tensor<1xf64>, tensor<1xf64>, tensor<1xf64>) -> (tensor<1xf64>, tensor<1xf64>)
  return %hv : tensor<1xf64>
}
"""

X, W, V = np.array([0.7, 1.1, -0.4]), np.array([0.9, -1.2, 1.5]), np.array([0.3, -0.5, 0.8])


def test_hessian_of_a_loop_by_gradcheck_of_its_gradient():
    """vjp and jvp of the gradient function (reverse over reverse, forward over
    reverse) against central differences of the gradient, w.r.t. x and w."""
    result = gradir.gradcheck(LOOP, "gx", inputs=[X, W], wrt=[0, 1])
    assert result.ok, result.report()


def test_hessian_vector_products_through_a_loop():
    executable = gradir.compile(LOOP)
    forward = executable.hvp_forward(X, W, V)
    reverse = executable.hvp_reverse(X, W, V)
    eps = 1e-5
    plus = executable.gx(X + eps * V, W)
    minus = executable.gx(X - eps * V, W)
    numeric = (plus - minus) / (2 * eps)
    np.testing.assert_allclose(forward, numeric, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(reverse, forward, rtol=1e-10, atol=1e-12)
    assert np.abs(forward).max() > 0.1  # not a zero-vs-zero check


@pytest.mark.parametrize("taken", [True, False])
def test_hessian_of_a_branch(taken):
    result = gradir.gradcheck(BRANCH, "gx", inputs=[X, np.array(taken)], wrt=[0])
    assert result.ok, result.report()


def test_second_order_through_a_while_loop():
    """A while loop's trip count is known only at run time, so its cache stacks have a
    dynamic shape (`tensor<?xf64>`): differentiated again, they are dynamic iteration
    arguments of the forward loop. This was a located error before dynamic shapes."""
    x, w, v = np.array([0.7]), np.array([0.9]), np.array([0.6])
    result = gradir.gradcheck(WHILE, "gx", inputs=[x, w], wrt=[0, 1])
    assert result.ok, result.report()
    executable = gradir.compile(WHILE + HVP_WHILE)
    eps = 1e-6
    numeric = (executable.gx(x + eps * v, w) - executable.gx(x - eps * v, w)) / (2 * eps)
    np.testing.assert_allclose(executable.hvp(x, w, v), numeric, rtol=1e-7)
    assert np.abs(numeric).max() > 0.1


def test_second_order_through_run_time_bounds():
    text = LOOP.replace(
        "%c3 = arith.constant 3 : index",
        "%c3 = tensor.dim %x, %c0 : tensor<3xf64>",
    )
    result = gradir.gradcheck(text, "gx", inputs=[X, W], wrt=[0, 1])
    assert result.ok, result.report()
    executable = gradir.compile(text)
    np.testing.assert_allclose(executable.hvp_reverse(X, W, V), executable.hvp_forward(X, W, V), rtol=1e-10)


CHECKPOINTED = """
func.func @f(%x: tensor<3xf64>, %w: tensor<3xf64>, %s0: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %y:2 = scf.for %i = %c0 to %c6 step %c1 iter_args(%a = %x, %s = %s0) -> (tensor<3xf64>, f64) {
    %m = arith.mulf %a, %w : tensor<3xf64>
    %t = math.tanh %m : tensor<3xf64>
    %e = tensor.extract %t[%c1] : tensor<3xf64>
    %s2 = arith.mulf %s, %e : f64
    %s3 = math.sin %s2 : f64
    scf.yield %t, %s3 : tensor<3xf64>, f64
  }
  %e0 = tensor.extract %y#0[%c0] : tensor<3xf64>
  %r = arith.addf %e0, %y#1 : f64
  return %r : f64
}
func.func @gx(%x: tensor<3xf64>, %w: tensor<3xf64>, %s0: f64) -> (tensor<3xf64>, f64) {
  %g:2 = autodiff.grad @f(%x, %w, %s0) {wrt = array<i64: 0, 2>} : (tensor<3xf64>, tensor<3xf64>, f64) -> (tensor<3xf64>, f64)
  return %g#0, %g#1 : tensor<3xf64>, f64
}
"""


@pytest.mark.parametrize("every", [2, 4])
def test_second_order_through_a_checkpointed_loop(every):
    """Reverse over reverse and forward over reverse of a loop with a tensor and a
    scalar state, its gradient checkpointed every `every` of 6 iterations."""
    inputs = [X, W, np.float64(0.8)]
    result = gradir.gradcheck(CHECKPOINTED, "gx", inputs=inputs, wrt=[0, 1, 2], checkpoint_every=every)
    assert result.ok, result.report()
