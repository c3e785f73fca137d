"""`autodiff.stop_gradient` against PyTorch's `detach` (reverse mode, `torch.func.jvp` for
forward mode) and in a second derivative. Finite differences cannot check it: they see the
identity, which is the point of the op."""
import numpy as np
import pytest

import gradir

torch = pytest.importorskip("torch")

TARGET_LOSS = """
func.func @loss(%w: tensor<3x4xf64>, %x: tensor<3x4xf64>) -> tensor<f64> {
  %y = autodiff.mul %x, %w : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %t = autodiff.tanh %y : tensor<3x4xf64>
  %k = arith.constant dense<3.0> : tensor<3x4xf64>
  %ky = autodiff.mul %k, %t : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %target = autodiff.stop_gradient %ky : tensor<3x4xf64>
  %d = autodiff.sub %t, %target : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %s = autodiff.mul %d, %d : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  %l = autodiff.sum %s : tensor<3x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
func.func @grad(%w: tensor<3x4xf64>, %x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %g = autodiff.grad @loss(%w, %x) {wrt = array<i64: 0>} : (tensor<3x4xf64>, tensor<3x4xf64>) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
func.func @tangent(%w: tensor<3x4xf64>, %x: tensor<3x4xf64>, %v: tensor<3x4xf64>) -> (tensor<f64>, tensor<f64>) {
  %r:2 = autodiff.jvp @loss(%w, %x, %v) {wrt = array<i64: 0>} : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<f64>, tensor<f64>)
  return %r#0, %r#1 : tensor<f64>, tensor<f64>
}
func.func @hvp(%w: tensor<3x4xf64>, %x: tensor<3x4xf64>, %v: tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>) {
  %r:2 = autodiff.jvp @grad(%w, %x, %v) {wrt = array<i64: 0>} : (tensor<3x4xf64>, tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
  return %r#0, %r#1 : tensor<3x4xf64>, tensor<3x4xf64>
}
"""


def torch_loss(w, x):
    t = torch.tanh(x * w)
    return ((t - (3.0 * t).detach()) ** 2).sum()


@pytest.fixture(scope="module")
def exe():
    return gradir.compile(TARGET_LOSS)


def point():
    rng = np.random.default_rng(7)
    return rng.uniform(-1.0, 1.0, (3, 4)), rng.uniform(0.5, 1.5, (3, 4)), rng.standard_normal((3, 4))


def test_the_gradient_is_torchs_with_detach(exe):
    w, x, _ = point()
    tw = torch.tensor(w, requires_grad=True)
    torch_loss(tw, torch.tensor(x)).backward()
    got = exe.grad(w, x)
    np.testing.assert_allclose(got, tw.grad.numpy(), rtol=1e-12, atol=1e-14)
    # Without stop_gradient the loss would be (t - 3t)^2 = 4t^2, with another gradient.
    without = torch.tensor(w, requires_grad=True)
    t = torch.tanh(torch.tensor(x) * without)
    ((t - 3.0 * t) ** 2).sum().backward()
    assert np.abs(got - without.grad.numpy()).max() > 0.1


def test_the_tangent_is_torch_funcs(exe):
    w, x, v = point()
    value, tangent = exe.tangent(w, x, v)
    expected_value, expected_tangent = torch.func.jvp(lambda w: torch_loss(w, torch.tensor(x)), (torch.tensor(w),), (torch.tensor(v),))
    np.testing.assert_allclose(value, expected_value.item(), rtol=1e-12)
    np.testing.assert_allclose(tangent, expected_tangent.item(), rtol=1e-12)
    assert abs(tangent) > 1e-3


def test_the_second_derivative_treats_the_target_as_constant(exe):
    """Forward over reverse: the Hessian-vector product of the loss, whose target is constant."""
    w, x, v = point()
    gradient, hvp = exe.hvp(w, x, v)

    def gradient_of(w):
        return torch.func.grad(lambda w: torch_loss(w, torch.tensor(x)))(w)

    expected_gradient, expected_hvp = torch.func.jvp(gradient_of, (torch.tensor(w),), (torch.tensor(v),))
    np.testing.assert_allclose(gradient, expected_gradient.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(hvp, expected_hvp.numpy(), rtol=1e-10, atol=1e-12)
    assert np.abs(hvp).max() > 1e-2


def test_a_non_float_operand_is_refused():
    with pytest.raises(gradir.SourceError, match="'autodiff.stop_gradient' op operand"):
        gradir.compile("func.func @f(%x: tensor<4xi32>) -> tensor<4xi32> {\n  %s = autodiff.stop_gradient %x : tensor<4xi32>\n  return %s : tensor<4xi32>\n}")
