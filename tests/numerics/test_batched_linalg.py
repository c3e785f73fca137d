"""`autodiff.vmap` (and the Jacobians, Hessians and per-example gradients built on it) of
standard-MLIR programs written with linalg named ops, through the real CPU pipeline in
f64, against `torch.func` (`vmap`, `grad`, `jacrev`, `jacfwd`, `hessian`) on random
inputs: every helper of batching_linalg.py with batch axes first, inner and absent; a
linalg.matmul MLP's per-example gradients; a conv + pooling network's per-example
gradients and a vmap over its filter (the generic-view path); whole Jacobians and a
Hessian of linalg programs."""
import numpy as np
import pytest

import gradir

torch = pytest.importorskip("torch")

OPS = """
func.func @f(%x: tensor<2x3xf64>, %w: tensor<3x4xf64>, %v: tensor<4xf64>, %bm: tensor<5x4x3xf64>, %u: tensor<3xf64>) -> (tensor<2x4xf64>, tensor<4x2xf64>, tensor<2xf64>, tensor<5x2x3xf64>, tensor<f64>, tensor<5x4xf64>, tensor<2x3xf64>) {
  %z = arith.constant 0.0 : f64
  %two = arith.constant 2.0 : f64
  %e = tensor.empty() : tensor<2x4xf64>
  %c = linalg.fill ins(%z : f64) outs(%e : tensor<2x4xf64>) -> tensor<2x4xf64>
  %m = linalg.matmul ins(%x, %w : tensor<2x3xf64>, tensor<3x4xf64>) outs(%c : tensor<2x4xf64>) -> tensor<2x4xf64>
  %vb = linalg.broadcast ins(%v : tensor<4xf64>) outs(%e : tensor<2x4xf64>) dimensions = [0]
  %mv = linalg.add ins(%m, %vb : tensor<2x4xf64>, tensor<2x4xf64>) outs(%e : tensor<2x4xf64>) -> tensor<2x4xf64>
  %t = linalg.tanh ins(%mv : tensor<2x4xf64>) outs(%e : tensor<2x4xf64>) -> tensor<2x4xf64>
  %s = linalg.softmax dimension(1) ins(%t : tensor<2x4xf64>) outs(%e : tensor<2x4xf64>) -> tensor<2x4xf64>
  %et = tensor.empty() : tensor<4x2xf64>
  %tt = linalg.transpose ins(%t : tensor<2x4xf64>) outs(%et : tensor<4x2xf64>) permutation = [1, 0]
  %ex = linalg.exp ins(%tt : tensor<4x2xf64>) outs(%et : tensor<4x2xf64>) -> tensor<4x2xf64>
  %e2 = tensor.empty() : tensor<2xf64>
  %c2 = linalg.fill ins(%z : f64) outs(%e2 : tensor<2xf64>) -> tensor<2xf64>
  %r = linalg.reduce { arith.addf } ins(%ex : tensor<4x2xf64>) outs(%c2 : tensor<2xf64>) dimensions = [0]
  %sq = linalg.map ins(%r : tensor<2xf64>) outs(%e2 : tensor<2xf64>)
    (%in: f64, %o: f64) {
      %p = arith.mulf %in, %two : f64
      linalg.yield %p : f64
    }
  %e3 = tensor.empty() : tensor<5x2x3xf64>
  %c3 = linalg.fill ins(%z : f64) outs(%e3 : tensor<5x2x3xf64>) -> tensor<5x2x3xf64>
  %eb = tensor.empty() : tensor<5x2x4xf64>
  %sb = linalg.broadcast ins(%s : tensor<2x4xf64>) outs(%eb : tensor<5x2x4xf64>) dimensions = [0]
  %b = linalg.batch_matmul ins(%sb, %bm : tensor<5x2x4xf64>, tensor<5x4x3xf64>) outs(%c3 : tensor<5x2x3xf64>) -> tensor<5x2x3xf64>
  %e0 = tensor.empty() : tensor<f64>
  %c0 = linalg.fill ins(%z : f64) outs(%e0 : tensor<f64>) -> tensor<f64>
  %d = linalg.dot ins(%sq, %r : tensor<2xf64>, tensor<2xf64>) outs(%c0 : tensor<f64>) -> tensor<f64>
  %e4 = tensor.empty() : tensor<5x4xf64>
  %c4 = linalg.fill ins(%z : f64) outs(%e4 : tensor<5x4xf64>) -> tensor<5x4xf64>
  %e5 = tensor.empty() : tensor<5x3xf64>
  %ub = linalg.broadcast ins(%u : tensor<3xf64>) outs(%e5 : tensor<5x3xf64>) dimensions = [0]
  %bmv = linalg.batch_matvec ins(%bm, %ub : tensor<5x4x3xf64>, tensor<5x3xf64>) outs(%c4 : tensor<5x4xf64>) -> tensor<5x4xf64>
  %e6 = tensor.empty() : tensor<2x3xf64>
  %ux = linalg.broadcast ins(%u : tensor<3xf64>) outs(%e6 : tensor<2x3xf64>) dimensions = [0]
  %xm = linalg.mul ins(%x, %ux : tensor<2x3xf64>, tensor<2x3xf64>) outs(%e6 : tensor<2x3xf64>) -> tensor<2x3xf64>
  %xc = linalg.copy ins(%xm : tensor<2x3xf64>) outs(%e6 : tensor<2x3xf64>) -> tensor<2x3xf64>
  return %s, %ex, %sq, %b, %d, %bmv, %xc : tensor<2x4xf64>, tensor<4x2xf64>, tensor<2xf64>, tensor<5x2x3xf64>, tensor<f64>, tensor<5x4xf64>, tensor<2x3xf64>
}
"""


def torch_ops(x, w, v, bm, u):
    t = torch.tanh(x @ w + v)
    s = torch.softmax(t, 1)
    ex = torch.exp(t.T)
    r = ex.sum(0)
    sq = r * 2
    return s, ex, sq, s @ bm, (sq * r).sum(), bm @ u, x * u


def batched_inputs(rng, shapes, in_axes, size):
    arrays = []
    for shape, axis in zip(shapes, in_axes):
        shape = list(shape)
        if axis is not None:
            shape.insert(axis % (len(shape) + 1), size)
        arrays.append(rng.standard_normal(shape) * 0.5)
    return arrays


def close(actual, expected):
    np.testing.assert_allclose(actual, expected.detach().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    "seed, in_axes",
    [(0, (0, None, None, None, None)), (1, (None, 0, None, None, None)), (2, (None, None, 0, None, None)),
     (3, (None, None, None, 0, None)), (4, (None, None, None, None, 0)), (5, (0, 0, 0, 0, 0)),
     (6, (1, None, 0, 2, None)), (7, (None, 1, None, 3, 0))],
)  # fmt: skip
def test_every_linalg_batching_rule_matches_torch_vmap(seed, in_axes):
    rng = np.random.default_rng(seed)
    size = int(rng.integers(2, 5))
    args = batched_inputs(rng, [(2, 3), (3, 4), (4,), (5, 4, 3), (3,)], in_axes, size)
    out_axes = (0, 1, 0, 2, 0, 1, 0)
    actual = gradir.vmap(OPS, "f", in_axes=in_axes, out_axes=out_axes)(*args)
    expected = torch.func.vmap(torch_ops, in_dims=in_axes)(*map(torch.tensor, args))
    for value, reference, axis in zip(actual, expected, out_axes):
        close(value, torch.movedim(reference, 0, axis))


MLP = """
func.func @loss(%w1: tensor<6x5xf64>, %b1: tensor<5xf64>, %w2: tensor<5x3xf64>, %x: tensor<1x6xf64>, %y: tensor<1x3xf64>) -> tensor<f64> {
  %z = arith.constant 0.0 : f64
  %e1 = tensor.empty() : tensor<1x5xf64>
  %c1 = linalg.fill ins(%z : f64) outs(%e1 : tensor<1x5xf64>) -> tensor<1x5xf64>
  %h = linalg.matmul ins(%x, %w1 : tensor<1x6xf64>, tensor<6x5xf64>) outs(%c1 : tensor<1x5xf64>) -> tensor<1x5xf64>
  %bb = linalg.broadcast ins(%b1 : tensor<5xf64>) outs(%e1 : tensor<1x5xf64>) dimensions = [0]
  %hb = linalg.add ins(%h, %bb : tensor<1x5xf64>, tensor<1x5xf64>) outs(%e1 : tensor<1x5xf64>) -> tensor<1x5xf64>
  %a = linalg.tanh ins(%hb : tensor<1x5xf64>) outs(%e1 : tensor<1x5xf64>) -> tensor<1x5xf64>
  %e2 = tensor.empty() : tensor<1x3xf64>
  %c2 = linalg.fill ins(%z : f64) outs(%e2 : tensor<1x3xf64>) -> tensor<1x3xf64>
  %o = linalg.matmul ins(%a, %w2 : tensor<1x5xf64>, tensor<5x3xf64>) outs(%c2 : tensor<1x3xf64>) -> tensor<1x3xf64>
  %p = linalg.softmax dimension(1) ins(%o : tensor<1x3xf64>) outs(%e2 : tensor<1x3xf64>) -> tensor<1x3xf64>
  %lp = linalg.log ins(%p : tensor<1x3xf64>) outs(%e2 : tensor<1x3xf64>) -> tensor<1x3xf64>
  %py = linalg.mul ins(%lp, %y : tensor<1x3xf64>, tensor<1x3xf64>) outs(%e2 : tensor<1x3xf64>) -> tensor<1x3xf64>
  %e0 = tensor.empty() : tensor<f64>
  %c0 = linalg.fill ins(%z : f64) outs(%e0 : tensor<f64>) -> tensor<f64>
  %s = linalg.reduce { arith.addf } ins(%py : tensor<1x3xf64>) outs(%c0 : tensor<f64>) dimensions = [0, 1]
  %l = linalg.negf ins(%s : tensor<f64>) outs(%e0 : tensor<f64>) -> tensor<f64>
  return %l : tensor<f64>
}
func.func @grads(%w1: tensor<6x5xf64>, %b1: tensor<5xf64>, %w2: tensor<5x3xf64>, %x: tensor<1x6xf64>, %y: tensor<1x3xf64>) -> (tensor<6x5xf64>, tensor<5xf64>, tensor<5x3xf64>) {
  %g:3 = autodiff.grad @loss(%w1, %b1, %w2, %x, %y) {wrt = array<i64: 0, 1, 2>} : (tensor<6x5xf64>, tensor<5xf64>, tensor<5x3xf64>, tensor<1x6xf64>, tensor<1x3xf64>) -> (tensor<6x5xf64>, tensor<5xf64>, tensor<5x3xf64>)
  return %g#0, %g#1, %g#2 : tensor<6x5xf64>, tensor<5xf64>, tensor<5x3xf64>
}
func.func @hidden(%w1: tensor<6x5xf64>, %w2: tensor<5x3xf64>, %x: tensor<2x6xf64>) -> tensor<2x3xf64> {
  %z = arith.constant 0.0 : f64
  %e1 = tensor.empty() : tensor<2x5xf64>
  %c1 = linalg.fill ins(%z : f64) outs(%e1 : tensor<2x5xf64>) -> tensor<2x5xf64>
  %h = linalg.matmul ins(%x, %w1 : tensor<2x6xf64>, tensor<6x5xf64>) outs(%c1 : tensor<2x5xf64>) -> tensor<2x5xf64>
  %a = linalg.tanh ins(%h : tensor<2x5xf64>) outs(%e1 : tensor<2x5xf64>) -> tensor<2x5xf64>
  %e2 = tensor.empty() : tensor<2x3xf64>
  %c2 = linalg.fill ins(%z : f64) outs(%e2 : tensor<2x3xf64>) -> tensor<2x3xf64>
  %o = linalg.matmul ins(%a, %w2 : tensor<2x5xf64>, tensor<5x3xf64>) outs(%c2 : tensor<2x3xf64>) -> tensor<2x3xf64>
  %t = linalg.tanh ins(%o : tensor<2x3xf64>) outs(%e2 : tensor<2x3xf64>) -> tensor<2x3xf64>
  return %t : tensor<2x3xf64>
}
"""


def torch_mlp_loss(w1, b1, w2, x, y):
    return -(torch.log(torch.softmax(torch.tanh(x @ w1 + b1) @ w2, 1)) * y).sum()


def test_per_example_gradients_of_a_linalg_matmul_mlp():
    rng = np.random.default_rng(10)
    params = [rng.standard_normal(s) * 0.5 for s in [(6, 5), (5,), (5, 3)]]
    xs = rng.standard_normal((7, 1, 6))
    ys = np.eye(3)[rng.integers(0, 3, size=7)][:, None, :]
    actual = gradir.vmap(MLP, "grads", in_axes=(None, None, None, 0, 0))(*params, xs, ys)
    expected = torch.func.vmap(
        torch.func.grad(torch_mlp_loss, argnums=(0, 1, 2)), in_dims=(None, None, None, 0, 0)
    )(*map(torch.tensor, [*params, xs, ys]))
    for value, reference in zip(actual, expected):
        assert value.shape[0] == 7
        close(value, reference)
    assert not np.allclose(actual[0][0], actual[0][1])  # the examples differ


def torch_hidden(w1, w2, x):
    return torch.tanh(torch.tanh(x @ w1) @ w2)


@pytest.mark.parametrize("mode", ["rev", "fwd"])
def test_jacobian_of_a_linalg_program_matches_jacrev_and_jacfwd(mode):
    rng = np.random.default_rng(11)
    args = [rng.standard_normal(s) * 0.7 for s in [(6, 5), (5, 3), (2, 6)]]
    actual = gradir.jacobian(MLP, "hidden", wrt=[0, 1, 2], mode=mode)(*args)
    reference = torch.func.jacfwd if mode == "fwd" else torch.func.jacrev
    expected = reference(torch_hidden, argnums=(0, 1, 2))(*map(torch.tensor, args))
    assert [a.shape for a in actual] == [(2, 3, 6, 5), (2, 3, 5, 3), (2, 3, 2, 6)]
    for value, ref in zip(actual, expected):
        close(value, ref)


def test_hessian_of_a_linalg_loss_matches_torch():
    rng = np.random.default_rng(12)
    params = [rng.standard_normal(s) * 0.5 for s in [(6, 5), (5,), (5, 3)]]
    x, y = rng.standard_normal((1, 6)), np.eye(3)[[1]]
    actual = gradir.hessian(MLP, "loss", wrt=[1, 2])(*params, x, y)
    expected = torch.func.hessian(torch_mlp_loss, argnums=(1, 2))(*map(torch.tensor, [*params, x, y]))
    for value, ref in zip(actual, [expected[0][0], expected[0][1], expected[1][0], expected[1][1]]):
        close(value, ref)


CNN = """
func.func @loss(%x: tensor<1x6x6x2xf64>, %k: tensor<3x3x2x4xf64>, %w: tensor<16x3xf64>, %y: tensor<1x3xf64>) -> tensor<f64> {
  %z = arith.constant 0.0 : f64
  %low = arith.constant -1.0e30 : f64
  %ec = tensor.empty() : tensor<1x4x4x4xf64>
  %cc = linalg.fill ins(%z : f64) outs(%ec : tensor<1x4x4x4xf64>) -> tensor<1x4x4x4xf64>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %k : tensor<1x6x6x2xf64>, tensor<3x3x2x4xf64>) outs(%cc : tensor<1x4x4x4xf64>) -> tensor<1x4x4x4xf64>
  %relu = linalg.max ins(%conv, %cc : tensor<1x4x4x4xf64>, tensor<1x4x4x4xf64>) outs(%ec : tensor<1x4x4x4xf64>) -> tensor<1x4x4x4xf64>
  %ep = tensor.empty() : tensor<1x2x2x4xf64>
  %cp = linalg.fill ins(%low : f64) outs(%ep : tensor<1x2x2x4xf64>) -> tensor<1x2x2x4xf64>
  %window = tensor.empty() : tensor<2x2xf64>
  %pool = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%relu, %window : tensor<1x4x4x4xf64>, tensor<2x2xf64>) outs(%cp : tensor<1x2x2x4xf64>) -> tensor<1x2x2x4xf64>
  %flat = tensor.collapse_shape %pool [[0], [1, 2, 3]] : tensor<1x2x2x4xf64> into tensor<1x16xf64>
  %eo = tensor.empty() : tensor<1x3xf64>
  %co = linalg.fill ins(%z : f64) outs(%eo : tensor<1x3xf64>) -> tensor<1x3xf64>
  %o = linalg.matmul ins(%flat, %w : tensor<1x16xf64>, tensor<16x3xf64>) outs(%co : tensor<1x3xf64>) -> tensor<1x3xf64>
  %d = linalg.sub ins(%o, %y : tensor<1x3xf64>, tensor<1x3xf64>) outs(%eo : tensor<1x3xf64>) -> tensor<1x3xf64>
  %sq = linalg.square ins(%d : tensor<1x3xf64>) outs(%eo : tensor<1x3xf64>) -> tensor<1x3xf64>
  %e0 = tensor.empty() : tensor<f64>
  %c0 = linalg.fill ins(%z : f64) outs(%e0 : tensor<f64>) -> tensor<f64>
  %s = linalg.reduce { arith.addf } ins(%sq : tensor<1x3xf64>) outs(%c0 : tensor<f64>) dimensions = [0, 1]
  return %s : tensor<f64>
}
func.func @grads(%x: tensor<1x6x6x2xf64>, %k: tensor<3x3x2x4xf64>, %w: tensor<16x3xf64>, %y: tensor<1x3xf64>) -> (tensor<3x3x2x4xf64>, tensor<16x3xf64>) {
  %g:2 = autodiff.grad @loss(%x, %k, %w, %y) {wrt = array<i64: 1, 2>} : (tensor<1x6x6x2xf64>, tensor<3x3x2x4xf64>, tensor<16x3xf64>, tensor<1x3xf64>) -> (tensor<3x3x2x4xf64>, tensor<16x3xf64>)
  return %g#0, %g#1 : tensor<3x3x2x4xf64>, tensor<16x3xf64>
}
func.func @input_grad(%x: tensor<1x6x6x2xf64>, %k: tensor<3x3x2x4xf64>, %w: tensor<16x3xf64>, %y: tensor<1x3xf64>) -> tensor<1x6x6x2xf64> {
  %g = autodiff.grad @loss(%x, %k, %w, %y) {wrt = array<i64: 0>} : (tensor<1x6x6x2xf64>, tensor<3x3x2x4xf64>, tensor<16x3xf64>, tensor<1x3xf64>) -> tensor<1x6x6x2xf64>
  return %g : tensor<1x6x6x2xf64>
}
"""


def torch_cnn_loss(x, k, w, y):
    conv = torch.nn.functional.conv2d(x.permute(0, 3, 1, 2), k.permute(3, 2, 0, 1))
    pool = torch.nn.functional.max_pool2d(torch.relu(conv), 2)
    flat = pool.permute(0, 2, 3, 1).reshape(1, 16)
    return ((flat @ w - y) ** 2).sum()


def cnn_inputs(rng, examples):
    return (rng.standard_normal((examples, 1, 6, 6, 2)), rng.standard_normal((3, 3, 2, 4)) * 0.5,
            rng.standard_normal((16, 3)) * 0.5, rng.standard_normal((examples, 1, 3)))  # fmt: skip


def test_per_example_gradients_of_a_conv_network():
    """vmap of grad through conv_2d_nhwc_hwcf, pooling_nhwc_max and a collapse_shape:
    the batch folds into N (the filter is the same for every example)."""
    rng = np.random.default_rng(13)
    xs, k, w, ys = cnn_inputs(rng, 5)
    actual = gradir.vmap(CNN, "grads", in_axes=(0, None, None, 0))(xs, k, w, ys)
    expected = torch.func.vmap(torch.func.grad(torch_cnn_loss, argnums=(1, 2)), in_dims=(0, None, None, 0))(
        *map(torch.tensor, (xs, k, w, ys))
    )
    for value, reference in zip(actual, expected):
        assert value.shape[0] == 5
        close(value, reference)
    assert not np.allclose(actual[0][0], actual[0][1])


def test_vmap_over_the_filter_of_a_conv_network():
    """A batched filter: the convolution's generic view with the extra parallel dimension
    (values and the input gradient, one filter per example)."""
    rng = np.random.default_rng(14)
    xs, _, w, ys = cnn_inputs(rng, 1)
    ks = rng.standard_normal((3, 3, 3, 2, 4)) * 0.5
    args = (xs[0], ks, w, ys[0])
    values = gradir.vmap(CNN, "loss", in_axes=(None, 0, None, None))(*args)
    grads = gradir.vmap(CNN, "input_grad", in_axes=(None, 0, None, None))(*args)
    tensors = tuple(map(torch.tensor, args))
    close(values, torch.func.vmap(torch_cnn_loss, in_dims=(None, 0, None, None))(*tensors))
    close(grads, torch.func.vmap(torch.func.grad(torch_cnn_loss), in_dims=(None, 0, None, None))(*tensors))


def test_hessian_and_jacobian_of_the_conv_network():
    """Forward over reverse through the convolution and pooling (the batched tangents of
    the filter reach the convolution: its generic view), and the forward Jacobian."""
    rng = np.random.default_rng(15)
    xs, k, w, ys = cnn_inputs(rng, 1)
    args = (xs[0], k, w, ys[0])
    tensors = tuple(map(torch.tensor, args))
    hk = gradir.hessian(CNN, "loss", wrt=[1])(*args)
    close(hk, torch.func.hessian(torch_cnn_loss, argnums=1)(*tensors))
    jx = gradir.jacobian(CNN, "input_grad", wrt=[1], mode="fwd")(*args)
    close(jx, torch.func.jacfwd(torch.func.grad(torch_cnn_loss), argnums=1)(*tensors))


def test_per_example_gradients_of_linalg_programs_compile_to_ptx():
    """The batched linalg functions (folded matmuls and convolutions, collapse/expand
    shapes) through the GPU pipeline: PTX needs no driver."""
    program = gradir.compile(CNN + """
func.func @per_example(%xs: tensor<5x1x6x6x2xf64>, %k: tensor<3x3x2x4xf64>, %w: tensor<16x3xf64>, %ys: tensor<5x1x3xf64>) -> (tensor<5x3x3x2x4xf64>, tensor<5x16x3xf64>) {
  %g:2 = autodiff.vmap @grads(%xs, %k, %w, %ys) {in_axes = array<i64: 0, -1, -1, 0>, out_axes = array<i64: 0, 0>, size = 5 : i64} : (tensor<5x1x6x6x2xf64>, tensor<3x3x2x4xf64>, tensor<16x3xf64>, tensor<5x1x3xf64>) -> (tensor<5x3x3x2x4xf64>, tensor<5x16x3xf64>)
  return %g#0, %g#1 : tensor<5x3x3x2x4xf64>, tensor<5x16x3xf64>
}
""", target="cuda")
    batched = [name for name in program.ptx if "_vmap_" in name]
    assert batched and all(".target sm_90" in program.ptx[name] for name in batched)


SHAPES = """
func.func @f(%x: tensor<2x3xf64>, %y: tensor<4x3xf64>) -> (tensor<6x3xf64>, tensor<3x2xf64>) {
  %c = tensor.concat dim(0) %x, %y : (tensor<2x3xf64>, tensor<4x3xf64>) -> tensor<6x3xf64>
  %d = tensor.cast %c : tensor<6x3xf64> to tensor<6x3xf64>
  %flat = tensor.collapse_shape %x [[0, 1]] : tensor<2x3xf64> into tensor<6xf64>
  %e = tensor.expand_shape %flat [[0, 1]] output_shape [3, 2] : tensor<6xf64> into tensor<3x2xf64>
  return %d, %e : tensor<6x3xf64>, tensor<3x2xf64>
}
"""


@pytest.mark.parametrize("in_axes", [(0, None), (None, 1), (1, 0)])
def test_tensor_reshapes_casts_and_concatenation_match_torch_vmap(in_axes):
    rng = np.random.default_rng(16)
    args = batched_inputs(rng, [(2, 3), (4, 3)], in_axes, 4)
    actual = gradir.vmap(SHAPES, "f", in_axes=in_axes)(*args)
    expected = torch.func.vmap(lambda x, y: (torch.cat([x, y]), x.reshape(3, 2)), in_dims=in_axes)(
        *map(torch.tensor, args)
    )
    for value, reference in zip(actual, expected):
        close(value, reference)


PACK = """
func.func @f(%x: tensor<3x5xf64>) -> (tensor<3x2x2x2xf64>, tensor<3x5xf64>) {
  %zero = arith.constant 0.0 : f64
  %d = tensor.empty() : tensor<3x2x2x2xf64>
  %p = linalg.pack %x padding_value(%zero : f64) outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [2, 2] into %d : tensor<3x5xf64> -> tensor<3x2x2x2xf64>
  %e = tensor.empty() : tensor<3x5xf64>
  %u = linalg.unpack %p outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [2, 2] into %e : tensor<3x2x2x2xf64> -> tensor<3x5xf64>
  %t = linalg.tanh ins(%u : tensor<3x5xf64>) outs(%e : tensor<3x5xf64>) -> tensor<3x5xf64>
  return %p, %t : tensor<3x2x2x2xf64>, tensor<3x5xf64>
}
"""


@pytest.mark.parametrize("axis", [0, 2])
def test_pack_and_unpack_batch_like_a_loop_over_the_examples(axis):
    """No torch oracle for linalg.pack: each example of the batch against the same
    program compiled unbatched (pack's padding included), and unpack(pack(x)) = x."""
    xs = np.moveaxis(np.random.default_rng(17).standard_normal((4, 3, 5)), 0, axis)
    packed, unpacked = gradir.vmap(PACK, "f", in_axes=axis)(xs)
    single = gradir.compile(PACK)
    for example in range(4):
        expected = single.f(np.take(xs, example, axis=axis))
        np.testing.assert_array_equal(packed[example], expected[0])
        np.testing.assert_array_equal(unpacked[example], expected[1])
    np.testing.assert_allclose(unpacked, np.tanh(np.moveaxis(xs, axis, 0)), rtol=1e-14)


WINDOWS = """
func.func @f(%x: tensor<2x3x7x7xf64>, %k: tensor<4x3x3x3xf64>, %d: tensor<2x7x7x3xf64>, %dk: tensor<3x3x3xf64>, %s: tensor<2x9x3xf64>, %sk: tensor<3x3x2xf64>, %p: tensor<5x5xf64>, %pk: tensor<2x2xf64>) -> (tensor<2x4x3x3xf64>, tensor<2x5x5x3xf64>, tensor<2x3x3x3xf64>, tensor<2x4x2xf64>, tensor<4x4xf64>) {
  %z = arith.constant 0.0 : f64
  %e1 = tensor.empty() : tensor<2x4x3x3xf64>
  %c1 = linalg.fill ins(%z : f64) outs(%e1 : tensor<2x4x3x3xf64>) -> tensor<2x4x3x3xf64>
  %conv = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %k : tensor<2x3x7x7xf64>, tensor<4x3x3x3xf64>) outs(%c1 : tensor<2x4x3x3xf64>) -> tensor<2x4x3x3xf64>
  %e2 = tensor.empty() : tensor<2x5x5x3xf64>
  %c2 = linalg.fill ins(%z : f64) outs(%e2 : tensor<2x5x5x3xf64>) -> tensor<2x5x5x3xf64>
  %depth = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%d, %dk : tensor<2x7x7x3xf64>, tensor<3x3x3xf64>) outs(%c2 : tensor<2x5x5x3xf64>) -> tensor<2x5x5x3xf64>
  %e3 = tensor.empty() : tensor<2x3x3x3xf64>
  %c3 = linalg.fill ins(%z : f64) outs(%e3 : tensor<2x3x3x3xf64>) -> tensor<2x3x3x3xf64>
  %window = tensor.empty() : tensor<2x2xf64>
  %pool = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %window : tensor<2x3x7x7xf64>, tensor<2x2xf64>) outs(%c3 : tensor<2x3x3x3xf64>) -> tensor<2x3x3x3xf64>
  %e4 = tensor.empty() : tensor<2x4x2xf64>
  %c4 = linalg.fill ins(%z : f64) outs(%e4 : tensor<2x4x2xf64>) -> tensor<2x4x2xf64>
  %one = linalg.conv_1d_nwc_wcf {dilations = dense<1> : vector<1xi64>, strides = dense<2> : vector<1xi64>} ins(%s, %sk : tensor<2x9x3xf64>, tensor<3x3x2xf64>) outs(%c4 : tensor<2x4x2xf64>) -> tensor<2x4x2xf64>
  %e5 = tensor.empty() : tensor<4x4xf64>
  %c5 = linalg.fill ins(%z : f64) outs(%e5 : tensor<4x4xf64>) -> tensor<4x4xf64>
  %plain = linalg.conv_2d ins(%p, %pk : tensor<5x5xf64>, tensor<2x2xf64>) outs(%c5 : tensor<4x4xf64>) -> tensor<4x4xf64>
  return %conv, %depth, %pool, %one, %plain : tensor<2x4x3x3xf64>, tensor<2x5x5x3xf64>, tensor<2x3x3x3xf64>, tensor<2x4x2xf64>, tensor<4x4xf64>
}
"""


def torch_windows(x, k, d, dk, s, sk, p, pk):
    F = torch.nn.functional
    depth = F.conv2d(d.permute(0, 3, 1, 2), dk.permute(2, 0, 1)[:, None], groups=3).permute(0, 2, 3, 1)
    one = F.conv1d(s.permute(0, 2, 1), sk.permute(2, 1, 0), stride=2).permute(0, 2, 1)
    return (F.conv2d(x, k, stride=2), depth, F.avg_pool2d(x, 2) * 4, one,
            F.conv2d(p[None, None], pk[None, None])[0, 0])  # fmt: skip


@pytest.mark.parametrize(
    "in_axes",
    [(0, None, 0, None, 0, None, 0, None), (None, 0, None, 0, None, 0, None, 0), (1, 0, 2, 3, 1, 0, 2, 1)],
    ids=["images", "filters", "both"],
)
def test_convolutions_and_pooling_match_torch_vmap(in_axes):
    """Batched images fold into N (conv_2d with no N: the generic view); batched filters
    are the generic view; strides and the depthwise and 1-d layouts."""
    rng = np.random.default_rng(18)
    shapes = [(2, 3, 7, 7), (4, 3, 3, 3), (2, 7, 7, 3), (3, 3, 3), (2, 9, 3), (3, 3, 2), (5, 5), (2, 2)]
    args = batched_inputs(rng, shapes, in_axes, 3)
    actual = gradir.vmap(WINDOWS, "f", in_axes=in_axes)(*args)
    expected = torch.func.vmap(torch_windows, in_dims=in_axes)(*map(torch.tensor, args))
    for value, reference in zip(actual, expected):
        close(value, reference)


TRANSPOSED_B = """
func.func @f(%x: tensor<2x3xf64>, %w: tensor<4x3xf64>) -> tensor<2x4xf64> {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<2x4xf64>
  %c = linalg.fill ins(%z : f64) outs(%e : tensor<2x4xf64>) -> tensor<2x4xf64>
  %m = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %w : tensor<2x3xf64>, tensor<4x3xf64>) outs(%c : tensor<2x4xf64>) -> tensor<2x4xf64>
  %t = linalg.tanh ins(%m : tensor<2x4xf64>) outs(%e : tensor<2x4xf64>) -> tensor<2x4xf64>
  return %t : tensor<2x4xf64>
}
func.func @g(%x: tensor<3x2xf64>, %w: tensor<3x4xf64>) -> tensor<2x4xf64> {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<2x4xf64>
  %c = linalg.fill ins(%z : f64) outs(%e : tensor<2x4xf64>) -> tensor<2x4xf64>
  %m = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %w : tensor<3x2xf64>, tensor<3x4xf64>) outs(%c : tensor<2x4xf64>) -> tensor<2x4xf64>
  return %m : tensor<2x4xf64>
}
func.func @accumulate(%x: tensor<2x3xf64>, %w: tensor<3x4xf64>, %c: tensor<2x4xf64>) -> tensor<2x4xf64> {
  %m = linalg.matmul ins(%x, %w : tensor<2x3xf64>, tensor<3x4xf64>) outs(%c : tensor<2x4xf64>) -> tensor<2x4xf64>
  return %m : tensor<2x4xf64>
}
"""


@pytest.mark.parametrize("in_axes", [(None, 0, None), (None, 0, 1), (0, None, 2), (None, None, 0), (0, 2, 0)])
def test_matmul_into_an_argument_matches_torch_vmap(in_axes):
    """C + A B with C an argument, batched or not: a batched B alone folds into the columns
    (C moved and folded too), a batched A into the rows, C alone the generic view."""
    rng = np.random.default_rng(20)
    args = batched_inputs(rng, [(2, 3), (3, 4), (2, 4)], in_axes, 5)
    actual = gradir.vmap(TRANSPOSED_B, "accumulate", in_axes=in_axes)(*args)
    expected = torch.func.vmap(lambda x, w, c: c + x @ w, in_dims=in_axes)(*map(torch.tensor, args))
    close(actual, expected)


@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (1, 2)])
def test_matmuls_reading_an_operand_transposed_match_torch_vmap(in_axes):
    """B read transposed: a batched lhs folds into the rows with B's map kept. A read
    transposed (its rows are not the leading dimension) and a batched B: the generic view."""
    rng = np.random.default_rng(19)
    args = batched_inputs(rng, [(2, 3), (4, 3)], in_axes, 5)
    actual = gradir.vmap(TRANSPOSED_B, "f", in_axes=in_axes)(*args)
    expected = torch.func.vmap(lambda x, w: torch.tanh(x @ w.T), in_dims=in_axes)(*map(torch.tensor, args))
    close(actual, expected)
    args = batched_inputs(rng, [(3, 2), (3, 4)], in_axes, 5)
    actual = gradir.vmap(TRANSPOSED_B, "g", in_axes=in_axes)(*args)
    expected = torch.func.vmap(lambda x, w: x.T @ w, in_dims=in_axes)(*map(torch.tensor, args))
    close(actual, expected)


FILL_OF_AN_ELEMENT = """
func.func @f(%s: tensor<f64>, %x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %v = tensor.extract %s[] : tensor<f64>
  %e = tensor.empty() : tensor<2x3xf64>
  %c = linalg.fill ins(%v : f64) outs(%e : tensor<2x3xf64>) -> tensor<2x3xf64>
  %m = linalg.mul ins(%c, %x : tensor<2x3xf64>, tensor<2x3xf64>) outs(%e : tensor<2x3xf64>) -> tensor<2x3xf64>
  return %m : tensor<2x3xf64>
}
"""
"""A fill of a value read from a batched 0-d tensor (StableHLO's select_and_scatter fills its
result with the init so): each example's fill value is its own."""


@pytest.mark.parametrize("in_axes", [(0, None), (0, 0)], ids=["value", "both"])
def test_vmap_of_a_fill_whose_value_depends_on_the_batch(in_axes):
    rng = np.random.default_rng(5)
    s, x = rng.normal(size=4), rng.normal(size=(4, 2, 3) if in_axes[1] == 0 else (2, 3))
    got = gradir.vmap(FILL_OF_AN_ELEMENT, "f", in_axes=in_axes)(s, x)
    want = np.stack([s[b] * (x[b] if in_axes[1] == 0 else x) for b in range(4)])
    np.testing.assert_allclose(got, want, rtol=1e-12)
