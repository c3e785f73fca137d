"""vmap, jacobian and hessian programs through the GPU pipeline, their kernels run as CPU
loops (`CudaProgram.emulate`), in f64 against `torch.func` and the CPU pipeline: per-example
gradients of an MLP (vmap of grad), its whole Jacobians in both modes (vmap of vjp / jvp),
its Hessian (forward over reverse) and a batch of cotangents (`is_grads_batched`). The
tensor-op rules run on the emulated GPU in tests/numerics/test_batched_tensor_ops.py."""
import numpy as np
import pytest

import gradir

torch = pytest.importorskip("torch")

MLP = """
func.func private @loss(%w1: tensor<6x5xf64>, %b1: tensor<5xf64>, %w2: tensor<5x3xf64>, %x: tensor<1x6xf64>, %y: tensor<1x3xf64>) -> tensor<f64> {
  %h = autodiff.matmul %x, %w1 : (tensor<1x6xf64>, tensor<6x5xf64>) -> tensor<1x5xf64>
  %hb = autodiff.add %h, %b1 : (tensor<1x5xf64>, tensor<5xf64>) -> tensor<1x5xf64>
  %a = autodiff.tanh %hb : tensor<1x5xf64>
  %o = autodiff.matmul %a, %w2 : (tensor<1x5xf64>, tensor<5x3xf64>) -> tensor<1x3xf64>
  %lp = autodiff.log_softmax %o {dim = 1 : i64} : tensor<1x3xf64>
  %p = autodiff.mul %lp, %y : (tensor<1x3xf64>, tensor<1x3xf64>) -> tensor<1x3xf64>
  %s = autodiff.sum %p : tensor<1x3xf64> -> tensor<f64>
  %l = autodiff.neg %s : tensor<f64>
  return %l : tensor<f64>
}
func.func private @grads(%w1: tensor<6x5xf64>, %b1: tensor<5xf64>, %w2: tensor<5x3xf64>, %x: tensor<1x6xf64>, %y: tensor<1x3xf64>) -> (tensor<6x5xf64>, tensor<5xf64>, tensor<5x3xf64>) {
  %g:3 = autodiff.grad @loss(%w1, %b1, %w2, %x, %y) {wrt = array<i64: 0, 1, 2>} : (tensor<6x5xf64>, tensor<5xf64>, tensor<5x3xf64>, tensor<1x6xf64>, tensor<1x3xf64>) -> (tensor<6x5xf64>, tensor<5xf64>, tensor<5x3xf64>)
  return %g#0, %g#1, %g#2 : tensor<6x5xf64>, tensor<5xf64>, tensor<5x3xf64>
}
func.func private @mlp(%w1: tensor<6x5xf64>, %b1: tensor<5xf64>, %x: tensor<2x6xf64>) -> tensor<2x5xf64> {
  %h = autodiff.matmul %x, %w1 : (tensor<2x6xf64>, tensor<6x5xf64>) -> tensor<2x5xf64>
  %hb = autodiff.add %h, %b1 : (tensor<2x5xf64>, tensor<5xf64>) -> tensor<2x5xf64>
  %a = autodiff.tanh %hb : tensor<2x5xf64>
  return %a : tensor<2x5xf64>
}
func.func @per_example(%w1: tensor<6x5xf64>, %b1: tensor<5xf64>, %w2: tensor<5x3xf64>, %xs: tensor<4x1x6xf64>, %ys: tensor<4x1x3xf64>) -> (tensor<4x6x5xf64>, tensor<4x5xf64>, tensor<4x5x3xf64>) {
  %g:3 = autodiff.vmap @grads(%w1, %b1, %w2, %xs, %ys) {in_axes = array<i64: -1, -1, -1, 0, 0>, out_axes = array<i64: 0, 0, 0>, size = 4 : i64} : (tensor<6x5xf64>, tensor<5xf64>, tensor<5x3xf64>, tensor<4x1x6xf64>, tensor<4x1x3xf64>) -> (tensor<4x6x5xf64>, tensor<4x5xf64>, tensor<4x5x3xf64>)
  return %g#0, %g#1, %g#2 : tensor<4x6x5xf64>, tensor<4x5xf64>, tensor<4x5x3xf64>
}
func.func @jacobian_rev(%w1: tensor<6x5xf64>, %b1: tensor<5xf64>, %x: tensor<2x6xf64>) -> (tensor<2x5x6x5xf64>, tensor<2x5x2x6xf64>) {
  %j:2 = autodiff.jacobian @mlp(%w1, %b1, %x) {wrt = array<i64: 0, 2>, mode = "rev"} : (tensor<6x5xf64>, tensor<5xf64>, tensor<2x6xf64>) -> (tensor<2x5x6x5xf64>, tensor<2x5x2x6xf64>)
  return %j#0, %j#1 : tensor<2x5x6x5xf64>, tensor<2x5x2x6xf64>
}
func.func @jacobian_fwd(%w1: tensor<6x5xf64>, %b1: tensor<5xf64>, %x: tensor<2x6xf64>) -> (tensor<2x5x6x5xf64>, tensor<2x5x2x6xf64>) {
  %j:2 = autodiff.jacobian @mlp(%w1, %b1, %x) {wrt = array<i64: 0, 2>, mode = "fwd"} : (tensor<6x5xf64>, tensor<5xf64>, tensor<2x6xf64>) -> (tensor<2x5x6x5xf64>, tensor<2x5x2x6xf64>)
  return %j#0, %j#1 : tensor<2x5x6x5xf64>, tensor<2x5x2x6xf64>
}
func.func @hessian(%w1: tensor<6x5xf64>, %b1: tensor<5xf64>, %w2: tensor<5x3xf64>, %x: tensor<1x6xf64>, %y: tensor<1x3xf64>) -> (tensor<5x5xf64>, tensor<5x5x3xf64>, tensor<5x3x5xf64>, tensor<5x3x5x3xf64>) {
  %h:4 = autodiff.hessian @loss(%w1, %b1, %w2, %x, %y) {wrt = array<i64: 1, 2>} : (tensor<6x5xf64>, tensor<5xf64>, tensor<5x3xf64>, tensor<1x6xf64>, tensor<1x3xf64>) -> (tensor<5x5xf64>, tensor<5x5x3xf64>, tensor<5x3x5xf64>, tensor<5x3x5x3xf64>)
  return %h#0, %h#1, %h#2, %h#3 : tensor<5x5xf64>, tensor<5x5x3xf64>, tensor<5x3x5xf64>, tensor<5x3x5x3xf64>
}
func.func @batched_cotangents(%w1: tensor<6x5xf64>, %b1: tensor<5xf64>, %x: tensor<2x6xf64>, %cts: tensor<3x2x5xf64>) -> (tensor<2x5xf64>, tensor<3x6x5xf64>) {
  %r:2 = autodiff.vjp @mlp(%w1, %b1, %x, %cts) {wrt = array<i64: 0>, is_grads_batched} : (tensor<6x5xf64>, tensor<5xf64>, tensor<2x6xf64>, tensor<3x2x5xf64>) -> (tensor<2x5xf64>, tensor<3x6x5xf64>)
  return %r#0, %r#1 : tensor<2x5xf64>, tensor<3x6x5xf64>
}
"""


def torch_loss(w1, b1, w2, x, y):
    return -(torch.log_softmax(torch.tanh(x @ w1 + b1) @ w2, 1) * y).sum()


def torch_mlp(w1, b1, x):
    return torch.tanh(x @ w1 + b1)


@pytest.fixture(scope="module")
def programs():
    """The module compiled once for each target: the GPU one is run emulated."""
    return gradir.compile(MLP, target="cuda"), gradir.compile(MLP)


def inputs(seed):
    rng = np.random.default_rng(seed)
    w1, b1, w2 = (rng.standard_normal(s) * 0.5 for s in [(6, 5), (5,), (5, 3)])
    return rng, w1, b1, w2


def check(gpu, cpu, name, arguments, expected):
    emulated, native = gpu.emulate(name, *arguments), cpu.call(name, *arguments)
    assert len(emulated) == len(expected)
    for got, on_cpu, want in zip(emulated, native, expected):
        want = want.detach().numpy()
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got, on_cpu, rtol=1e-12, atol=1e-13)


def test_per_example_gradients_on_the_emulated_gpu(programs):
    rng, w1, b1, w2 = inputs(0)
    xs = rng.standard_normal((4, 1, 6))
    ys = np.eye(3)[rng.integers(0, 3, size=4)][:, None, :]
    expected = torch.func.vmap(
        torch.func.grad(torch_loss, argnums=(0, 1, 2)), in_dims=(None, None, None, 0, 0)
    )(*map(torch.tensor, (w1, b1, w2, xs, ys)))
    check(*programs, "per_example", [w1, b1, w2, xs, ys], expected)


@pytest.mark.parametrize("mode, oracle", [("rev", torch.func.jacrev), ("fwd", torch.func.jacfwd)])
def test_whole_jacobians_on_the_emulated_gpu(programs, mode, oracle):
    rng, w1, b1, _ = inputs(1)
    x = rng.standard_normal((2, 6))
    expected = oracle(torch_mlp, argnums=(0, 2))(*map(torch.tensor, (w1, b1, x)))
    check(*programs, f"jacobian_{mode}", [w1, b1, x], expected)


def test_hessian_on_the_emulated_gpu(programs):
    rng, w1, b1, w2 = inputs(2)
    x, y = rng.standard_normal((1, 6)), np.eye(3)[[1]]
    blocks = torch.func.hessian(torch_loss, argnums=(1, 2))(*map(torch.tensor, (w1, b1, w2, x, y)))
    check(*programs, "hessian", [w1, b1, w2, x, y], [blocks[0][0], blocks[0][1], blocks[1][0], blocks[1][1]])


def test_batched_cotangents_on_the_emulated_gpu(programs):
    rng, w1, b1, _ = inputs(3)
    x, cts = rng.standard_normal((2, 6)), rng.standard_normal((3, 2, 5))
    tensors = [torch.tensor(v) for v in (w1, b1, x)]
    output, pullback = torch.func.vjp(lambda w: torch_mlp(w, tensors[1], tensors[2]), tensors[0])
    (gradients,) = torch.func.vmap(pullback)(torch.tensor(cts))
    check(*programs, "batched_cotangents", [w1, b1, x, cts], [output, gradients])
