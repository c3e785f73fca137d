"""The example programs end to end on the CPU: gradients checked against finite
differences, closed forms, and (with the `oracle` extra) torch.autograd."""
import pathlib

import numpy as np
import pytest

import gradir

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
MLP = EXAMPLES / "mlp.mlir"
MIXTURE = EXAMPLES / "logsumexp_mixture.mlir"


def mlp_inputs(seed=0):
    rng = np.random.default_rng(seed)
    shapes = [(8, 16), (8, 10), (16, 32), (32,), (32, 24), (24,), (24, 10), (10,)]
    arrays = [rng.standard_normal(s) * 0.5 for s in shapes]
    arrays[1] = np.eye(10)[rng.integers(0, 10, size=8)]  # one-hot labels
    return arrays


def mixture_inputs(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((6, 2)), rng.standard_normal((3, 2)), rng.standard_normal(3)]


def test_mlp_gradcheck():
    result = gradir.gradcheck(MLP, "mlp_loss", inputs=mlp_inputs(), wrt=[2, 3, 4, 5, 6, 7])
    assert result.ok, result.report()


def test_mixture_gradcheck():
    result = gradir.gradcheck(MIXTURE, "mixture_nll", inputs=mixture_inputs())
    assert result.ok, result.report()


def test_mlp_grad_entry_runs_in_f32():
    exe = gradir.compile(MLP)
    inputs = [a.astype(np.float32) for a in mlp_inputs()]
    grads = exe.mlp_grad(*inputs)
    assert [g.shape for g in grads] == [(16, 32), (32,), (32, 24), (24,), (24, 10), (10,)]
    assert all(g.dtype == np.float32 for g in grads)
    assert all(np.all(np.isfinite(g)) for g in grads)


HESSIAN = """
func.func @f(%x: tensor<3xf64>) -> tensor<f64> {
  %s = autodiff.sin %x : tensor<3xf64>
  %p = autodiff.mul %s, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %r = autodiff.sum %p : tensor<3xf64> -> tensor<f64>
  return %r : tensor<f64>
}
func.func @grad_dot(%x: tensor<3xf64>, %v: tensor<3xf64>) -> tensor<f64> {
  %g = autodiff.grad @f(%x) : (tensor<3xf64>) -> tensor<3xf64>
  %gv = autodiff.mul %g, %v : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %r = autodiff.sum %gv : tensor<3xf64> -> tensor<f64>
  return %r : tensor<f64>
}
func.func @hvp(%x: tensor<3xf64>, %v: tensor<3xf64>) -> tensor<3xf64> {
  %h = autodiff.grad @grad_dot(%x, %v) {wrt = array<i64: 0>} : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %h : tensor<3xf64>
}
"""


def test_grad_of_grad_is_the_hessian_vector_product():
    x = np.array([0.3, -1.2, 2.0])
    v = np.array([1.0, 0.5, -2.0])
    hvp = gradir.compile(HESSIAN).hvp(x, v)
    second_derivative = 2 * np.cos(x) - x * np.sin(x)  # d2/dx2 of x sin x
    np.testing.assert_allclose(hvp, second_derivative * v, rtol=1e-12, atol=1e-12)


def test_grad_of_grad_gradcheck():
    result = gradir.gradcheck(HESSIAN, "grad_dot", wrt=[0])
    assert result.ok, result.report()


VJP_JVP = """
func.func @f(%x: tensor<2x3xf64>, %y: tensor<3xf64>) -> (tensor<2x3xf64>, tensor<f64>) {
  %p = autodiff.mul %x, %y : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
  %e = autodiff.exp %p : tensor<2x3xf64>
  %s = autodiff.sum %x : tensor<2x3xf64> -> tensor<f64>
  return %e, %s : tensor<2x3xf64>, tensor<f64>
}
func.func @vjp(%x: tensor<2x3xf64>, %y: tensor<3xf64>, %ce: tensor<2x3xf64>, %cs: tensor<f64>)
    -> (tensor<2x3xf64>, tensor<f64>, tensor<2x3xf64>, tensor<3xf64>) {
  %e, %s, %dx, %dy = autodiff.vjp @f(%x, %y, %ce, %cs)
      : (tensor<2x3xf64>, tensor<3xf64>, tensor<2x3xf64>, tensor<f64>) -> (tensor<2x3xf64>, tensor<f64>, tensor<2x3xf64>, tensor<3xf64>)
  return %e, %s, %dx, %dy : tensor<2x3xf64>, tensor<f64>, tensor<2x3xf64>, tensor<3xf64>
}
func.func @jvp(%x: tensor<2x3xf64>, %y: tensor<3xf64>, %tx: tensor<2x3xf64>)
    -> (tensor<2x3xf64>, tensor<f64>, tensor<2x3xf64>, tensor<f64>) {
  %e, %s, %te, %ts = autodiff.jvp @f(%x, %y, %tx) {wrt = array<i64: 0>}
      : (tensor<2x3xf64>, tensor<3xf64>, tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<f64>, tensor<2x3xf64>, tensor<f64>)
  return %e, %s, %te, %ts : tensor<2x3xf64>, tensor<f64>, tensor<2x3xf64>, tensor<f64>
}
"""


def test_vjp_with_cotangents_matches_closed_form():
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((2, 3)), rng.standard_normal(3)
    ce, cs = rng.standard_normal((2, 3)), np.array(0.7)
    e, s, dx, dy = gradir.compile(VJP_JVP).vjp(x, y, ce, cs)
    np.testing.assert_allclose(e, np.exp(x * y), rtol=1e-12)
    np.testing.assert_allclose(s, x.sum(), rtol=1e-12)
    np.testing.assert_allclose(dx, ce * np.exp(x * y) * y + cs, rtol=1e-12)
    np.testing.assert_allclose(dy, (ce * np.exp(x * y) * x).sum(axis=0), rtol=1e-12)


def test_jvp_matches_closed_form():
    rng = np.random.default_rng(4)
    x, y, tx = rng.standard_normal((2, 3)), rng.standard_normal(3), rng.standard_normal((2, 3))
    e, s, te, ts = gradir.compile(VJP_JVP).jvp(x, y, tx)
    np.testing.assert_allclose(te, np.exp(x * y) * y * tx, rtol=1e-12)
    np.testing.assert_allclose(ts, tx.sum(), rtol=1e-12)


def _torch():
    return pytest.importorskip("torch", reason="the oracle extra (torch==2.13.0) is not installed")


def test_mlp_against_torch_autograd():
    torch = _torch()
    inputs = mlp_inputs(5)
    grads = gradir.compile(MLP).mlp_grad(*[a.astype(np.float32) for a in inputs])
    t = [torch.tensor(a, dtype=torch.float32, requires_grad=i >= 2) for i, a in enumerate(inputs)]
    x, labels, w1, b1, w2, b2, w3, b3 = t
    a1 = torch.relu(x @ w1 + b1)
    a2 = torch.tanh(a1 @ w2 + b2)
    logp = torch.log_softmax(a2 @ w3 + b3, dim=1)
    loss = -(logp * labels).sum(dim=1).mean()
    expected = torch.autograd.grad(loss, t[2:])
    for ours, theirs in zip(grads, expected):
        np.testing.assert_allclose(ours, theirs.numpy(), rtol=1e-4, atol=1e-6)


def test_mixture_against_torch_autograd():
    torch = _torch()
    inputs = mixture_inputs(6)
    g_means, g_logits = gradir.compile(MIXTURE).mixture_grad(*inputs)
    x, means, logits = [torch.tensor(a, requires_grad=True) for a in inputs]
    a = logits - 0.5 * ((x[:, None, :] - means[None]) ** 2).sum(-1)
    nll = -(torch.logsumexp(a, dim=1).sum() - 6 * torch.logsumexp(logits, dim=0))
    expected = torch.autograd.grad(nll, (means, logits))
    np.testing.assert_allclose(g_means, expected[0].numpy(), rtol=1e-10)
    np.testing.assert_allclose(g_logits, expected[1].numpy(), rtol=1e-10)
