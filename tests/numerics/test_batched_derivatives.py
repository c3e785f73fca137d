"""`autodiff.vmap`, `autodiff.jacobian` and `autodiff.hessian` through the real CPU pipeline,
in f64, against `torch.func` (`vmap`, `grad`, `jacrev`, `jacfwd`, `hessian`) on the same
inputs: every batching rule of batching.yaml on random shapes with batch axes first, inner,
last and absent; per-example gradients (vmap of grad); grad of vmap; vmap of a function
holding a vmap and a call; whole Jacobians of a tanh MLP in both modes; Hessians."""
import numpy as np
import pytest

import gradir

torch = pytest.importorskip("torch")

OPS = """
func.func @f(%a: tensor<{M}x{K}xf64>, %b: tensor<{K}xf64>, %c: tensor<{K}x{N}xf64>) -> (tensor<{M}x{N}xf64>, tensor<{K}xf64>, tensor<{N}x{M}xf64>) {{
  %ab = autodiff.add %a, %b : (tensor<{M}x{K}xf64>, tensor<{K}xf64>) -> tensor<{M}x{K}xf64>
  %e = autodiff.exp %ab : tensor<{M}x{K}xf64>
  %m = autodiff.matmul %e, %c : (tensor<{M}x{K}xf64>, tensor<{K}x{N}xf64>) -> tensor<{M}x{N}xf64>
  %s = autodiff.softmax %m {{dim = 1 : i64}} : tensor<{M}x{N}xf64>
  %t = autodiff.transpose %s {{permutation = array<i64: 1, 0>}} : tensor<{M}x{N}xf64> -> tensor<{N}x{M}xf64>
  %r = autodiff.sum %e {{dims = array<i64: 0>}} : tensor<{M}x{K}xf64> -> tensor<{K}xf64>
  %mx = autodiff.max %t {{dims = array<i64: 1>, keepdim = true}} : tensor<{N}x{M}xf64> -> tensor<{N}x1xf64>
  %sub = autodiff.sub %t, %mx : (tensor<{N}x{M}xf64>, tensor<{N}x1xf64>) -> tensor<{N}x{M}xf64>
  %half = arith.constant dense<-0.05> : tensor<{N}x{M}xf64>
  %em = tensor.empty() : tensor<{N}x{M}xi1>
  %cmp = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}} ins(%sub, %half : tensor<{N}x{M}xf64>, tensor<{N}x{M}xf64>) outs(%em : tensor<{N}x{M}xi1>) {{
  ^bb0(%x: f64, %y: f64, %o: i1):
    %k = arith.cmpf ogt, %x, %y : f64
    linalg.yield %k : i1
  }} -> tensor<{N}x{M}xi1>
  %sel = autodiff.select %cmp, %sub, %t : (tensor<{N}x{M}xi1>, tensor<{N}x{M}xf64>, tensor<{N}x{M}xf64>) -> tensor<{N}x{M}xf64>
  %rs = autodiff.reshape %m : tensor<{M}x{N}xf64> -> tensor<{MN}xf64>
  %rs2 = autodiff.reshape %rs : tensor<{MN}xf64> -> tensor<{M}x{N}xf64>
  %bt = autodiff.broadcast_to %b : tensor<{K}xf64> -> tensor<2x{K}xf64>
  %st = autodiff.sum_to_size %bt : tensor<2x{K}xf64> -> tensor<{K}xf64>
  %q = autodiff.mul %st, %r : (tensor<{K}xf64>, tensor<{K}xf64>) -> tensor<{K}xf64>
  %mn = autodiff.mean %q : tensor<{K}xf64> -> tensor<f64>
  %q2 = autodiff.mul %rs2, %mn : (tensor<{M}x{N}xf64>, tensor<f64>) -> tensor<{M}x{N}xf64>
  %ls = autodiff.log_softmax %q2 {{dim = 0 : i64}} : tensor<{M}x{N}xf64>
  %th = math.tanh %ls : tensor<{M}x{N}xf64>
  return %th, %q, %sel : tensor<{M}x{N}xf64>, tensor<{K}xf64>, tensor<{N}x{M}xf64>
}}
"""


def torch_ops(a, b, c):
    e = torch.exp(a + b)
    m = e @ c
    t = torch.softmax(m, 1).T
    sub = t - t.amax(1, keepdim=True)
    sel = torch.where(sub > -0.05, sub, t)
    q = torch.broadcast_to(b, (2, b.shape[0])).sum(0) * e.sum(0)
    return torch.tanh(torch.log_softmax(m * q.mean(), 0)), q, sel


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
    [(0, (0, None, None)), (1, (None, 0, None)), (2, (None, None, 0)), (3, (1, 0, -1)), (4, (0, 0, 0))],
)
def test_every_batching_rule_matches_torch_vmap(seed, in_axes):
    rng = np.random.default_rng(seed)
    M, K, N, size = (int(v) for v in rng.integers(2, 6, size=4))
    source = OPS.format(M=M, K=K, N=N, MN=M * N)
    args = batched_inputs(rng, [(M, K), (K,), (K, N)], in_axes, size)
    out_axes = (0, 1, -1)
    actual = gradir.vmap(source, "f", in_axes=in_axes, out_axes=out_axes)(*args)
    expected = torch.func.vmap(torch_ops, in_dims=in_axes)(*map(torch.tensor, args))
    for value, reference, axis in zip(actual, expected, out_axes):
        close(value, torch.movedim(reference, 0, axis))


MLP = """
func.func @loss(%w1: tensor<6x5xf64>, %b1: tensor<5xf64>, %w2: tensor<5x3xf64>, %x: tensor<1x6xf64>, %y: tensor<1x3xf64>) -> tensor<f64> {
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
func.func @grads(%w1: tensor<6x5xf64>, %b1: tensor<5xf64>, %w2: tensor<5x3xf64>, %x: tensor<1x6xf64>, %y: tensor<1x3xf64>) -> (tensor<6x5xf64>, tensor<5xf64>, tensor<5x3xf64>) {
  %g:3 = autodiff.grad @loss(%w1, %b1, %w2, %x, %y) {wrt = array<i64: 0, 1, 2>} : (tensor<6x5xf64>, tensor<5xf64>, tensor<5x3xf64>, tensor<1x6xf64>, tensor<1x3xf64>) -> (tensor<6x5xf64>, tensor<5xf64>, tensor<5x3xf64>)
  return %g#0, %g#1, %g#2 : tensor<6x5xf64>, tensor<5xf64>, tensor<5x3xf64>
}
"""


def torch_mlp_loss(w1, b1, w2, x, y):
    return -(torch.log_softmax(torch.tanh(x @ w1 + b1) @ w2, 1) * y).sum()


def mlp_parameters(rng):
    return [rng.standard_normal(s) * 0.5 for s in [(6, 5), (5,), (5, 3)]]


def test_per_example_gradients_are_vmap_of_grad():
    rng = np.random.default_rng(5)
    params = mlp_parameters(rng)
    xs = rng.standard_normal((7, 1, 6))
    ys = np.eye(3)[rng.integers(0, 3, size=7)][:, None, :]
    per_example = gradir.vmap(MLP, "grads", in_axes=(None, None, None, 0, 0))
    actual = per_example(*params, xs, ys)
    expected = torch.func.vmap(
        torch.func.grad(torch_mlp_loss, argnums=(0, 1, 2)), in_dims=(None, None, None, 0, 0)
    )(*map(torch.tensor, [*params, xs, ys]))
    for value, reference in zip(actual, expected):
        assert value.shape[0] == 7
        close(value, reference)
    # The examples differ: a batch rule that broadcast one example would not.
    assert not np.allclose(actual[0][0], actual[0][1])


PER_EXAMPLE_INTEGERS = """
func.func @score(%w: tensor<3x4xf64>, %x: tensor<3xf64>, %label: i64) -> f64 {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<4xf64>
  %i = linalg.fill ins(%z : f64) outs(%e : tensor<4xf64>) -> tensor<4xf64>
  %logits = linalg.vecmat ins(%x, %w : tensor<3xf64>, tensor<3x4xf64>) outs(%i : tensor<4xf64>) -> tensor<4xf64>
  %l = arith.index_cast %label : i64 to index
  %v = tensor.extract %logits[%l] : tensor<4xf64>
  %s = math.exp %v : f64
  return %s : f64
}
func.func @dscore(%w: tensor<3x4xf64>, %x: tensor<3xf64>, %label: i64) -> tensor<3x4xf64> {
  %g = autodiff.grad @score(%w, %x, %label) {wrt = array<i64: 0>} : (tensor<3x4xf64>, tensor<3xf64>, i64) -> tensor<3x4xf64>
  return %g : tensor<3x4xf64>
}
func.func @steps(%x: f64, %n: index, %ks: tensor<2xi32>, %mask: tensor<2xi1>) -> (f64, i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k = tensor.extract %ks[%c1] : tensor<2xi32>
  %kf = arith.sitofp %k : i32 to f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f64) {
    %s = math.sin %a : f64
    %t = arith.addf %s, %kf : f64
    scf.yield %t : f64
  }
  %m = tensor.extract %mask[%c0] : tensor<2xi1>
  %neg = arith.negf %r : f64
  %out = arith.select %m, %r, %neg : f64
  %twice = arith.addi %k, %k : i32
  return %out, %twice : f64, i32
}
func.func @pick(%x: tensor<4xf64>, %k: tensor<2xindex>) -> (f64, tensor<2xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %i = tensor.extract %k[%c0] : tensor<2xindex>
  %j = tensor.extract %k[%c1] : tensor<2xindex>
  %a = tensor.extract %x[%i] : tensor<4xf64>
  %b = tensor.extract %x[%j] : tensor<4xf64>
  %m = arith.mulf %a, %b : f64
  %ii = arith.index_cast %i : index to i64
  %jj = arith.index_cast %j : index to i64
  %ij = tensor.from_elements %jj, %ii : tensor<2xi64>
  return %m, %ij : f64, tensor<2xi64>
}
"""


def test_vmap_batches_integer_labels_indices_and_loop_bounds():
    """Per-example integers (JAX's and torch.func's vmap batch them like any array): class
    labels picking a logit, loop trip counts, an integer tensor, a boolean mask and an
    integer result, each example against the same compiled function called on it, and the
    per-example gradients against torch.func."""
    rng = np.random.default_rng(12)
    w, xs = rng.standard_normal((3, 4)), rng.standard_normal((5, 3))
    labels = np.array([0, 3, 1, 2, 3], dtype=np.int64)
    exe = gradir.compile(PER_EXAMPLE_INTEGERS, target="cpu")
    gradients = gradir.vmap(PER_EXAMPLE_INTEGERS, "dscore", in_axes=(None, 0, 0))(w, xs, labels)
    for b in range(5):
        close(gradients[b], torch.tensor(exe.dscore(w, xs[b], labels[b])))
    score = lambda w, x, label: torch.exp((x @ w * (torch.arange(4) == label)).sum())
    expected = torch.func.vmap(torch.func.grad(score), in_dims=(None, 0, 0))(
        torch.tensor(w), torch.tensor(xs), torch.tensor(labels)
    )
    close(gradients, expected)
    x, trips = np.array([0.1, 0.5, -0.3, 0.9]), np.array([0, 3, 1, 5], dtype=np.int64)
    ks = np.array([[0, 1], [5, 2], [0, -1], [9, 3]], dtype=np.int32)
    masks = np.array([[True, False], [False, True], [True, True], [False, False]])
    values, twice = gradir.vmap(PER_EXAMPLE_INTEGERS, "steps")(x, trips, ks, masks)
    for b in range(4):
        value, doubled = exe.steps(x[b], trips[b], ks[b], masks[b])
        assert values[b] == value and twice[b] == doubled
    assert twice.dtype == np.int32 and len(set(np.round(values, 12))) == 4
    # index coordinates batched along axis 1, an integer result batched along axis 1
    x, coordinates = rng.standard_normal(4), np.array([[0, 3, 2], [1, 1, 3]])
    products, swapped = gradir.vmap(PER_EXAMPLE_INTEGERS, "pick", in_axes=(None, 1), out_axes=(0, 1))(x, coordinates)
    np.testing.assert_array_equal(products, x[coordinates[0]] * x[coordinates[1]])
    np.testing.assert_array_equal(swapped, coordinates[::-1])


NESTED_INDEX_VMAPS = """
func.func @pick(%x: tensor<4xf64>, %k: index) -> f64 {
  %v = tensor.extract %x[%k] : tensor<4xf64>
  return %v : f64
}
func.func @sines(%x: tensor<4xf64>, %n: index) -> tensor<4xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%t = %x) -> (tensor<4xf64>) {
    %q = math.sin %t : tensor<4xf64>
    scf.yield %q : tensor<4xf64>
  }
  return %r : tensor<4xf64>
}
func.func @picks(%x: tensor<3x4xf64>, %k: tensor<3xindex>) -> tensor<3xf64> {
  %r = autodiff.vmap @pick(%x, %k) {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>, size = 3 : i64} : (tensor<3x4xf64>, tensor<3xindex>) -> tensor<3xf64>
  return %r : tensor<3xf64>
}
func.func @many_sines(%x: tensor<3x4xf64>, %n: tensor<3xindex>) -> tensor<3x4xf64> {
  %r = autodiff.vmap @sines(%x, %n) {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>, size = 3 : i64} : (tensor<3x4xf64>, tensor<3xindex>) -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}
func.func @outer_picks(%x: tensor<2x3x4xf64>, %k: tensor<2x3xindex>) -> tensor<2x3xf64> {
  %r = autodiff.vmap @picks(%x, %k) {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>, size = 2 : i64} : (tensor<2x3x4xf64>, tensor<2x3xindex>) -> tensor<2x3xf64>
  return %r : tensor<2x3xf64>
}
func.func @outer_sines(%x: tensor<2x3x4xf64>, %n: tensor<2x3xindex>) -> tensor<2x3x4xf64> {
  %r = autodiff.vmap @many_sines(%x, %n) {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>, size = 2 : i64} : (tensor<2x3x4xf64>, tensor<2x3xindex>) -> tensor<2x3x4xf64>
  return %r : tensor<2x3x4xf64>
}
"""


def test_a_vmap_of_a_vmap_batches_index_arguments():
    """The inner vmap's batch of `index` values is a tensor of index the outer one batches again
    (xDSL's linalg.broadcast/transpose build no index body: gradir copies by a generic)."""
    rng = np.random.default_rng(13)
    x = rng.standard_normal((2, 3, 4))
    k = np.array([[0, 3, 2], [1, 1, 3]], dtype=np.int64)
    exe = gradir.compile(NESTED_INDEX_VMAPS, target="cpu")
    np.testing.assert_array_equal(exe.outer_picks(x, k), np.take_along_axis(x, k[..., None], axis=2)[..., 0])
    expected = x.copy()
    for a, b in np.ndindex(2, 3):
        for _ in range(k[a, b]):
            expected[a, b] = np.sin(expected[a, b])
    np.testing.assert_allclose(exe.outer_sines(x, k), expected, rtol=1e-14)


SCALAR_STEPS = """
func.func @steps(%x: f64, %w: tensor<3xf64>, %n: index) -> (f64, tensor<3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f64) {
    %v = tensor.extract %w[%i] : tensor<3xf64>
    %m = arith.mulf %a, %v : f64
    %s = math.sin %m : f64
    %t = arith.addf %s, %a : f64
    scf.yield %t : f64
  }
  %e = tensor.empty() : tensor<3xf64>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%w : tensor<3xf64>) outs(%e : tensor<3xf64>) {
  ^bb0(%v: f64, %o: f64):
    %p = arith.mulf %v, %r : f64
    linalg.yield %p : f64
  } -> tensor<3xf64>
  return %r, %y : f64, tensor<3xf64>
}
func.func @loss(%x: f64, %w: tensor<3xf64>) -> f64 {
  %c3 = arith.constant 3 : index
  %r:2 = func.call @steps(%x, %w, %c3) : (f64, tensor<3xf64>, index) -> (f64, tensor<3xf64>)
  return %r#0 : f64
}
func.func @dloss(%x: f64, %w: tensor<3xf64>) -> (f64, tensor<3xf64>) {
  %g:2 = autodiff.grad @loss(%x, %w) {wrt = array<i64: 0, 1>} : (f64, tensor<3xf64>) -> (f64, tensor<3xf64>)
  return %g#0, %g#1 : f64, tensor<3xf64>
}
func.func @batched_vjp(%x: f64, %w: tensor<3xf64>, %cts: tensor<5xf64>) -> (f64, tensor<5xf64>, tensor<5x3xf64>) {
  %r:3 = autodiff.vjp @loss(%x, %w, %cts) {wrt = array<i64: 0, 1>, is_grads_batched} : (f64, tensor<3xf64>, tensor<5xf64>) -> (f64, tensor<5xf64>, tensor<5x3xf64>)
  return %r#0, %r#1, %r#2 : f64, tensor<5xf64>, tensor<5x3xf64>
}
func.func @main(%xs: tensor<4xf64>, %ws: tensor<4x3xf64>) -> (tensor<4xf64>, tensor<4x3xf64>) {
  %g:2 = autodiff.vmap @dloss(%xs, %ws) {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0, 0>, size = 4 : i64} : (tensor<4xf64>, tensor<4x3xf64>) -> (tensor<4xf64>, tensor<4x3xf64>)
  return %g#0, %g#1 : tensor<4xf64>, tensor<4x3xf64>
}
"""


def torch_steps(x, w, n=3):
    for i in range(n):
        x = torch.sin(x * w[i]) + x
    return x, w * x


def test_vmap_batches_float_scalar_arguments_and_results():
    """A float scalar argument batched at axis 0 is a vector of scalars, and a scalar result
    comes back as one (JAX's and torch.func's vmap): here per-example gradients of a loss
    returned as an f64, through the API and through the op in a module."""
    rng = np.random.default_rng(11)
    xs, w, ws = np.array([0.3, -0.5, 0.9, 1.2]), np.array([0.7, -0.4, 1.1]), rng.standard_normal((4, 3))
    actual = gradir.vmap(SCALAR_STEPS, "steps", in_axes=(0, None, None), out_axes=(0, 1))(xs, w, np.int64(3))
    expected = torch.func.vmap(torch_steps, in_dims=(0, None), out_dims=(0, 1))(torch.tensor(xs), torch.tensor(w))
    assert [a.shape for a in actual] == [(4,), (3, 4)]
    for value, reference in zip(actual, expected):
        close(value, reference)
    gradients = gradir.vmap(SCALAR_STEPS, "dloss")(xs, ws)
    loss = lambda x, w: torch_steps(x, w)[0]
    expected = torch.func.vmap(torch.func.grad(loss, argnums=(0, 1)))(torch.tensor(xs), torch.tensor(ws))
    for value, reference in zip(gradients, expected):
        close(value, reference)
    assert not np.allclose(gradients[0][0], gradients[0][1])  # the examples differ
    exe = gradir.compile(SCALAR_STEPS, target="cpu")
    for value, reference in zip(exe.main(xs, ws), gradients):
        np.testing.assert_allclose(value, reference, rtol=1e-12, atol=1e-14)
    # A vjp with a batch of cotangents for a scalar result (is_grads_batched): a vector of them.
    cotangents = rng.standard_normal(5)
    loss_value, grad_x, grad_w = exe.batched_vjp(xs[0], w, cotangents)
    x, weights = torch.tensor(xs[0], requires_grad=True), torch.tensor(w, requires_grad=True)
    expected_loss = loss(x, weights)
    dx, dw = torch.autograd.grad(expected_loss, (x, weights))
    close(loss_value, expected_loss)
    close(grad_x, torch.tensor(cotangents) * dx)
    close(grad_w, torch.tensor(cotangents)[:, None] * dw[None, :])


GRAD_OF_VMAP = """
func.func @f(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>) -> tensor<2x4xf64> {
  %y = autodiff.matmul %x, %w : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  %t = autodiff.tanh %y : tensor<2x4xf64>
  %s = autodiff.mul %t, %y : (tensor<2x4xf64>, tensor<2x4xf64>) -> tensor<2x4xf64>
  return %s : tensor<2x4xf64>
}
func.func @g(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %e = autodiff.sin %x : tensor<2x3xf64>
  return %e : tensor<2x3xf64>
}
func.func @batched_loss(%w: tensor<3x4xf64>, %xs: tensor<2x5x3xf64>) -> tensor<f64> {
  %r = autodiff.vmap @f(%w, %xs) {in_axes = array<i64: -1, 1>, out_axes = array<i64: 2>, size = 5 : i64} : (tensor<3x4xf64>, tensor<2x5x3xf64>) -> tensor<2x4x5xf64>
  %l = autodiff.sum %r : tensor<2x4x5xf64> -> tensor<f64>
  return %l : tensor<f64>
}
func.func @grad_of_vmap(%w: tensor<3x4xf64>, %xs: tensor<2x5x3xf64>) -> (tensor<3x4xf64>, tensor<2x5x3xf64>) {
  %g:2 = autodiff.grad @batched_loss(%w, %xs) : (tensor<3x4xf64>, tensor<2x5x3xf64>) -> (tensor<3x4xf64>, tensor<2x5x3xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<2x5x3xf64>
}
func.func @jvp_of_vmap(%w: tensor<3x4xf64>, %xs: tensor<2x5x3xf64>, %tw: tensor<3x4xf64>, %txs: tensor<2x5x3xf64>) -> tensor<f64> {
  %r:2 = autodiff.jvp @batched_loss(%w, %xs, %tw, %txs) : (tensor<3x4xf64>, tensor<2x5x3xf64>, tensor<3x4xf64>, tensor<2x5x3xf64>) -> (tensor<f64>, tensor<f64>)
  return %r#1 : tensor<f64>
}
func.func @row(%w: tensor<3x4xf64>, %x: tensor<3xf64>) -> tensor<4xf64> {
  %x2 = autodiff.reshape %x : tensor<3xf64> -> tensor<1x3xf64>
  %y = autodiff.matmul %x2, %w : (tensor<1x3xf64>, tensor<3x4xf64>) -> tensor<1x4xf64>
  %t = autodiff.tanh %y : tensor<1x4xf64>
  %s = autodiff.mul %t, %y : (tensor<1x4xf64>, tensor<1x4xf64>) -> tensor<1x4xf64>
  %r = autodiff.reshape %s : tensor<1x4xf64> -> tensor<4xf64>
  return %r : tensor<4xf64>
}
func.func @inner(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>) -> tensor<2x4xf64> {
  %sx = func.call @g(%x) : (tensor<2x3xf64>) -> tensor<2x3xf64>
  %ws = autodiff.vmap @row(%w, %sx) {in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>, size = 2 : i64} : (tensor<3x4xf64>, tensor<2x3xf64>) -> tensor<2x4xf64>
  return %ws : tensor<2x4xf64>
}
func.func @nested(%ws: tensor<6x3x4xf64>, %x: tensor<2x3xf64>) -> tensor<6x2x4xf64> {
  %r = autodiff.vmap @inner(%ws, %x) {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>, size = 6 : i64} : (tensor<6x3x4xf64>, tensor<2x3xf64>) -> tensor<6x2x4xf64>
  return %r : tensor<6x2x4xf64>
}
"""


def torch_f(w, x):
    y = x @ w
    return torch.tanh(y) * y


def test_grad_and_jvp_of_vmap_nested_vmap_and_calls():
    rng = np.random.default_rng(6)
    w, xs = rng.standard_normal((3, 4)), rng.standard_normal((2, 5, 3))
    ws, x = rng.standard_normal((6, 3, 4)), rng.standard_normal((2, 3))
    exe = gradir.compile(GRAD_OF_VMAP)
    gw, gx = exe.grad_of_vmap(w, xs)
    tw, txs = torch.tensor(w, requires_grad=True), torch.tensor(xs, requires_grad=True)
    torch.func.vmap(torch_f, in_dims=(None, 1), out_dims=2)(tw, txs).sum().backward()
    close(gw, tw.grad)
    close(gx, txs.grad)
    # Forward mode through the batched function too.
    tangents = rng.standard_normal((3, 4)), rng.standard_normal((2, 5, 3))
    batched_loss = lambda w, xs: torch.func.vmap(torch_f, in_dims=(None, 1), out_dims=2)(w, xs).sum()
    _, expected_tangent = torch.func.jvp(
        batched_loss, (torch.tensor(w), torch.tensor(xs)), tuple(map(torch.tensor, tangents))
    )
    close(exe.jvp_of_vmap(w, xs, *tangents), expected_tangent)
    # vmap over W of a function holding a vmap over the rows of sin(x) (a call).
    inner = lambda w, x: torch.func.vmap(lambda row: torch_f(w, row[None])[0])(torch.sin(x))
    expected = torch.func.vmap(inner, in_dims=(0, None))(torch.tensor(ws), torch.tensor(x))
    close(exe.nested(ws, x), expected)


TANH_MLP = """
func.func @mlp(%w1: tensor<5x6xf64>, %w2: tensor<6x4xf64>, %x: tensor<2x5xf64>) -> tensor<2x4xf64> {
  %h = autodiff.matmul %x, %w1 : (tensor<2x5xf64>, tensor<5x6xf64>) -> tensor<2x6xf64>
  %a = autodiff.tanh %h : tensor<2x6xf64>
  %o = autodiff.matmul %a, %w2 : (tensor<2x6xf64>, tensor<6x4xf64>) -> tensor<2x4xf64>
  %t = autodiff.tanh %o : tensor<2x4xf64>
  return %t : tensor<2x4xf64>
}
func.func @energy(%w1: tensor<5x6xf64>, %w2: tensor<6x4xf64>, %x: tensor<2x5xf64>) -> tensor<f64> {
  %t = func.call @mlp(%w1, %w2, %x) : (tensor<5x6xf64>, tensor<6x4xf64>, tensor<2x5xf64>) -> tensor<2x4xf64>
  %s = autodiff.mul %t, %t : (tensor<2x4xf64>, tensor<2x4xf64>) -> tensor<2x4xf64>
  %l = autodiff.sum %s : tensor<2x4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
"""


def torch_mlp(w1, w2, x):
    return torch.tanh(torch.tanh(x @ w1) @ w2)


@pytest.mark.parametrize("mode", ["rev", "fwd", None])
def test_jacobian_of_a_tanh_mlp_matches_jacrev_and_jacfwd(mode):
    rng = np.random.default_rng(7)
    args = [rng.standard_normal(s) * 0.7 for s in [(5, 6), (6, 4), (2, 5)]]
    jacobian = gradir.jacobian(TANH_MLP, "mlp", wrt=[0, 2], mode=mode)
    actual = jacobian(*args)
    reference = torch.func.jacfwd if mode == "fwd" else torch.func.jacrev
    expected = reference(torch_mlp, argnums=(0, 2))(*map(torch.tensor, args))
    assert [a.shape for a in actual] == [(2, 4, 5, 6), (2, 4, 2, 5)]
    for value, ref in zip(actual, expected):
        close(value, ref)


def test_hessian_of_a_scalar_function_matches_torch():
    rng = np.random.default_rng(8)
    args = [rng.standard_normal(s) * 0.7 for s in [(5, 6), (6, 4), (2, 5)]]
    hessian = gradir.hessian(TANH_MLP, "energy", wrt=[1, 2])
    actual = hessian(*args)
    energy = lambda w1, w2, x: (torch_mlp(w1, w2, x) ** 2).sum()
    expected = torch.func.hessian(energy, argnums=(1, 2))(*map(torch.tensor, args))
    pairs = [expected[0][0], expected[0][1], expected[1][0], expected[1][1]]
    assert [a.shape for a in actual] == [(6, 4, 6, 4), (6, 4, 2, 5), (2, 5, 6, 4), (2, 5, 2, 5)]
    for value, ref in zip(actual, pairs):
        close(value, ref)
    # A Hessian is symmetric: the off-diagonal blocks are each other's transposes.
    np.testing.assert_allclose(actual[1], actual[2].transpose(2, 3, 0, 1), atol=1e-12)


SCALARS = """
func.func @f(%x: tensor<3xf64>, %s: f64, %n: index) -> (tensor<3xf64>, f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (tensor<3xf64>) {
    %e = tensor.empty() : tensor<3xf64>
    %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%a : tensor<3xf64>) outs(%e : tensor<3xf64>) {
    ^bb0(%v: f64, %o: f64):
      %m = arith.mulf %v, %s : f64
      %t = math.sin %m : f64
      %u = arith.addf %t, %v : f64
      linalg.yield %u : f64
    } -> tensor<3xf64>
    scf.yield %y : tensor<3xf64>
  }
  %v0 = tensor.extract %r[%c1] : tensor<3xf64>
  %p = arith.mulf %v0, %s : f64
  %q = math.exp %p : f64
  return %r, %q : tensor<3xf64>, f64
}
func.func @loss(%s: f64, %w: tensor<2xf64>, %t: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = tensor.extract %w[%c0] : tensor<2xf64>
  %b = tensor.extract %w[%c1] : tensor<2xf64>
  %p = arith.mulf %b, %s : f64
  %q = arith.mulf %a, %t : f64
  %r = arith.mulf %p, %q : f64
  %e = math.sin %r : f64
  %l = arith.addf %e, %p : f64
  return %l : f64
}
func.func @main(%x: tensor<3xf64>, %s: f64, %n: index, %w: tensor<2xf64>, %t: f64)
    -> (tensor<3x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<f64>, tensor<f64>, tensor<2xf64>, tensor<2xf64>, tensor<2x2xf64>) {
  %j:4 = autodiff.jacobian @f(%x, %s, %n) {wrt = array<i64: 0, 1>} : (tensor<3xf64>, f64, index) -> (tensor<3x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<f64>)
  %h:4 = autodiff.hessian @loss(%s, %w, %t) {wrt = array<i64: 0, 1>} : (f64, tensor<2xf64>, f64) -> (tensor<f64>, tensor<2xf64>, tensor<2xf64>, tensor<2x2xf64>)
  return %j#0, %j#1, %j#2, %j#3, %h#0, %h#1, %h#2, %h#3 : tensor<3x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<f64>, tensor<f64>, tensor<2xf64>, tensor<2xf64>, tensor<2x2xf64>
}
"""


def torch_scalars_f(x, s, n=3):
    for _ in range(n):
        x = torch.sin(x * s) + x
    return x, torch.exp(x[1] * s)


def torch_scalars_loss(s, w, t):
    p = w[1] * s
    return torch.sin(p * (w[0] * t)) + p


@pytest.mark.parametrize("mode", ["rev", "fwd", None])
def test_jacobian_and_hessian_take_float_scalars_as_0d_blocks(mode):
    """A float scalar argument in `wrt`, and a float scalar result, are differentiated as
    0-d tensors (torch.autograd.functional's shapes): through the Python API and through
    the ops in a module; a non-wrt scalar stays a constant of the derivative."""
    x, s, w, t = np.array([0.3, -0.7, 0.5]), np.float64(0.9), np.array([0.8, -0.6]), np.float64(1.1)
    jacobian = gradir.jacobian(SCALARS, "f", wrt=[0, 1], mode=mode)(x, s, np.int64(3))
    expected = torch.func.jacrev(torch_scalars_f, argnums=(0, 1))(torch.tensor(x), torch.tensor(s))
    blocks = [expected[0][0], expected[0][1], expected[1][0], expected[1][1]]
    assert [a.shape for a in jacobian] == [(3, 3), (3,), (3,), ()]
    for value, ref in zip(jacobian, blocks):
        close(value, ref)
    hessian = gradir.hessian(SCALARS, "loss", wrt=[0, 1])(s, w, t)
    expected = torch.func.hessian(torch_scalars_loss, argnums=(0, 1))(*map(torch.tensor, (s, w, t)))
    pairs = [expected[0][0], expected[0][1], expected[1][0], expected[1][1]]
    assert [a.shape for a in hessian] == [(), (2,), (2,), (2, 2)]
    for value, ref in zip(hessian, pairs):
        close(value, ref)
    if mode is None:  # the ops themselves, in a module, compute the same blocks
        ops = gradir.compile(SCALARS, target="cpu").main(x, s, np.int64(3), w, t)
        for value, ref in zip(ops, [*jacobian, *hessian]):
            np.testing.assert_allclose(value, ref, rtol=1e-12, atol=1e-14)


LOOPS = """
func.func @f(%w: tensor<3x3xf64>, %x: tensor<1x3xf64>, %p: i1) -> tensor<1x3xf64> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant dense<0.5> : tensor<1x3xf64>
  %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%h = %x, %acc = %z) -> (tensor<1x3xf64>, tensor<1x3xf64>) {
    %y = autodiff.matmul %h, %w : (tensor<1x3xf64>, tensor<3x3xf64>) -> tensor<1x3xf64>
    %t = autodiff.tanh %y : tensor<1x3xf64>
    %a = autodiff.mul %acc, %t : (tensor<1x3xf64>, tensor<1x3xf64>) -> tensor<1x3xf64>
    scf.yield %t, %a : tensor<1x3xf64>, tensor<1x3xf64>
  }
  %s, %u = scf.if %p -> (tensor<1x3xf64>, tensor<1x3xf64>) {
    %e = autodiff.exp %r#1 : tensor<1x3xf64>
    scf.yield %e, %z : tensor<1x3xf64>, tensor<1x3xf64>
  } else {
    scf.yield %z, %r#0 : tensor<1x3xf64>, tensor<1x3xf64>
  }
  %su = autodiff.mul %s, %u : (tensor<1x3xf64>, tensor<1x3xf64>) -> tensor<1x3xf64>
  %o = autodiff.add %su, %r#0 : (tensor<1x3xf64>, tensor<1x3xf64>) -> tensor<1x3xf64>
  return %o : tensor<1x3xf64>
}
func.func @loss(%w: tensor<3x3xf64>, %x: tensor<1x3xf64>, %p: i1) -> tensor<f64> {
  %o = func.call @f(%w, %x, %p) : (tensor<3x3xf64>, tensor<1x3xf64>, i1) -> tensor<1x3xf64>
  %s = autodiff.sum %o : tensor<1x3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
func.func @grad(%w: tensor<3x3xf64>, %x: tensor<1x3xf64>, %p: i1) -> tensor<3x3xf64> {
  %g = autodiff.grad @loss(%w, %x, %p) {wrt = array<i64: 0>} : (tensor<3x3xf64>, tensor<1x3xf64>, i1) -> tensor<3x3xf64>
  return %g : tensor<3x3xf64>
}
"""


def torch_loops(w, x, p):
    h, acc = x, torch.full((1, 3), 0.5, dtype=torch.float64)
    for _ in range(3):
        h = torch.tanh(h @ w)
        acc = acc * h
    half = torch.full((1, 3), 0.5, dtype=torch.float64)
    s, u = (torch.exp(acc), half) if p else (half, h)
    return s * u + h


@pytest.mark.parametrize("branch", [True, False])
def test_loops_and_branches_batch_and_per_example_gradients_run_through_them(branch):
    """scf.for with unbatched bounds and scf.if on an unbatched condition (each branch yields
    one batched and one unbatched value); the per-example
    gradient runs through reverse mode's loop (its cache stacks are batched slices)."""
    rng = np.random.default_rng(9)
    w, xs = rng.standard_normal((3, 3)), rng.standard_normal((4, 1, 3))
    p = np.bool_(branch)
    values = gradir.vmap(LOOPS, "f", in_axes=(None, 0, None))(w, xs, p)
    grads = gradir.vmap(LOOPS, "grad", in_axes=(None, 0, None))(w, xs, p)
    tw, txs = torch.tensor(w), torch.tensor(xs)
    close(values, torch.func.vmap(lambda w, x: torch_loops(w, x, branch), in_dims=(None, 0))(tw, txs))
    per_example = torch.func.grad(lambda w, x: torch_loops(w, x, branch).sum())
    close(grads, torch.func.vmap(per_example, in_dims=(None, 0))(tw, txs))


BATCHED_COTANGENTS = """
func.func @f(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>) -> (tensor<2x4xf64>, tensor<4xf64>) {
  %y = autodiff.matmul %x, %w : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  %t = autodiff.tanh %y : tensor<2x4xf64>
  %s = autodiff.sum %y {dims = array<i64: 0>} : tensor<2x4xf64> -> tensor<4xf64>
  return %t, %s : tensor<2x4xf64>, tensor<4xf64>
}
func.func @main(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>, %ct: tensor<5x2x4xf64>, %cs: tensor<5x4xf64>) -> (tensor<2x4xf64>, tensor<4xf64>, tensor<5x3x4xf64>, tensor<5x2x3xf64>) {
  %r:4 = autodiff.vjp @f(%w, %x, %ct, %cs) {is_grads_batched} : (tensor<3x4xf64>, tensor<2x3xf64>, tensor<5x2x4xf64>, tensor<5x4xf64>) -> (tensor<2x4xf64>, tensor<4xf64>, tensor<5x3x4xf64>, tensor<5x2x3xf64>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<2x4xf64>, tensor<4xf64>, tensor<5x3x4xf64>, tensor<5x2x3xf64>
}
"""


def test_vjp_with_batched_cotangents_matches_torch_is_grads_batched():
    rng = np.random.default_rng(10)
    w, x = rng.standard_normal((3, 4)), rng.standard_normal((2, 3))
    ct, cs = rng.standard_normal((5, 2, 4)), rng.standard_normal((5, 4))
    t, s, gw, gx = gradir.compile(BATCHED_COTANGENTS).main(w, x, ct, cs)
    tw, tx = torch.tensor(w, requires_grad=True), torch.tensor(x, requires_grad=True)
    y = tx @ tw
    outputs = (torch.tanh(y), y.sum(0))
    expected = torch.autograd.grad(
        outputs, (tw, tx), (torch.tensor(ct), torch.tensor(cs)), is_grads_batched=True
    )
    close(t, outputs[0])
    close(s, outputs[1])
    close(gw, expected[0])
    close(gx, expected[1])


def test_batched_and_whole_derivative_programs_compile_to_ptx():
    """The same programs through the GPU pipeline (PTX needs no driver): the batched
    functions are ordinary autodiff code, so they become kernels like any other."""
    source = MLP + """
func.func @per_example(%w1: tensor<6x5xf64>, %b1: tensor<5xf64>, %w2: tensor<5x3xf64>, %xs: tensor<7x1x6xf64>, %ys: tensor<7x1x3xf64>) -> (tensor<7x6x5xf64>, tensor<7x5xf64>, tensor<7x5x3xf64>) {
  %g:3 = autodiff.vmap @grads(%w1, %b1, %w2, %xs, %ys) {in_axes = array<i64: -1, -1, -1, 0, 0>, out_axes = array<i64: 0, 0, 0>, size = 7 : i64} : (tensor<6x5xf64>, tensor<5xf64>, tensor<5x3xf64>, tensor<7x1x6xf64>, tensor<7x1x3xf64>) -> (tensor<7x6x5xf64>, tensor<7x5xf64>, tensor<7x5x3xf64>)
  return %g#0, %g#1, %g#2 : tensor<7x6x5xf64>, tensor<7x5xf64>, tensor<7x5x3xf64>
}
func.func @hessian(%w1: tensor<6x5xf64>, %b1: tensor<5xf64>, %w2: tensor<5x3xf64>, %x: tensor<1x6xf64>, %y: tensor<1x3xf64>) -> tensor<5x3x5x3xf64> {
  %h = autodiff.hessian @loss(%w1, %b1, %w2, %x, %y) {wrt = array<i64: 2>} : (tensor<6x5xf64>, tensor<5xf64>, tensor<5x3xf64>, tensor<1x6xf64>, tensor<1x3xf64>) -> tensor<5x3x5x3xf64>
  return %h : tensor<5x3x5x3xf64>
}
"""
    program = gradir.compile(source, target="cuda")
    batched = [name for name in program.ptx if "_vmap_" in name]
    assert batched and all(".target sm_90" in program.ptx[name] for name in batched)


PER_EXAMPLE = MLP + """
func.func @per_example(%w1: tensor<6x5xf64>, %b1: tensor<5xf64>, %w2: tensor<5x3xf64>, %xs: tensor<4x1x6xf64>, %ys: tensor<4x1x3xf64>) -> (tensor<4x6x5xf64>, tensor<4x5xf64>, tensor<4x5x3xf64>) {
  %g:3 = autodiff.vmap @grads(%w1, %b1, %w2, %xs, %ys) {in_axes = array<i64: -1, -1, -1, 0, 0>, out_axes = array<i64: 0, 0, 0>, size = 4 : i64} : (tensor<6x5xf64>, tensor<5xf64>, tensor<5x3xf64>, tensor<4x1x6xf64>, tensor<4x1x3xf64>) -> (tensor<4x6x5xf64>, tensor<4x5xf64>, tensor<4x5x3xf64>)
  return %g#0, %g#1, %g#2 : tensor<4x6x5xf64>, tensor<4x5xf64>, tensor<4x5x3xf64>
}
"""


@pytest.mark.parametrize(
    "source, function, wrt",
    [(GRAD_OF_VMAP, "batched_loss", None), (GRAD_OF_VMAP, "nested", None),
     (PER_EXAMPLE, "per_example", [0, 1, 2, 3])],
    ids=["grad-of-vmap", "nested-vmap", "derivative-of-per-example-gradients"],
)
def test_derivatives_of_functions_holding_vmaps_pass_gradcheck(source, function, wrt):
    """Reverse and forward mode through batched functions against central differences,
    up to the second derivative of per-example gradients (a batched vjp differentiated)."""
    result = gradir.gradcheck(source, function, wrt=wrt)
    assert result.ok, result.report()


SINE_LOSS = """
func.func @loss(%w: tensor<3xf64>) -> tensor<f64> {
  %s = math.sin %w : tensor<3xf64>
  %q = arith.mulf %s, %w : tensor<3xf64>
  %r = autodiff.sum %q : tensor<3xf64> -> tensor<f64>
  return %r : tensor<f64>
}
"""


def test_vmap_jacobian_and_hessian_take_compile_options():
    """`opt_level` and `num_threads` reach the compiled program (-O0 compiles a Hessian in a
    fraction of the time); a bad option is an `ArgumentError` when the callable is made, not
    at its first call."""
    w = np.array([0.1, 0.5, -0.3])
    hessian = gradir.hessian(SINE_LOSS, "loss", opt_level=0, num_threads=1)
    jacobian = gradir.jacobian(SINE_LOSS, "loss", opt_level=1, checkpoint_every=2)
    batched = gradir.vmap(SINE_LOSS, "loss", opt_level=0)
    want = np.diag(2 * np.cos(w) - w * np.sin(w))
    np.testing.assert_allclose(hessian(w), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(jacobian(w), np.sin(w) + w * np.cos(w), rtol=1e-12)
    np.testing.assert_allclose(batched(np.stack([w, 2 * w])), [np.sum(np.sin(w) * w), np.sum(np.sin(2 * w) * 2 * w)])
    assert (hessian._executable._compiled.opt_level, hessian._executable.num_threads) == (0, 1)
    assert jacobian._executable._compiled.opt_level == 1
    assert [e._compiled.opt_level for e in batched._compiled.values()] == [0]
    for make in (gradir.hessian, gradir.jacobian, gradir.vmap):
        for bad, message in (({"opt_level": 7}, "opt_level must be"), ({"chip": "sm_90"}, "unknown option 'chip'")):
            with pytest.raises(gradir.ArgumentError, match=message):
                make(SINE_LOSS, "loss", **bad)


def test_a_nan_stopped_by_check_numerics_names_the_hessian_not_its_wrapper():
    hessian = gradir.hessian(SINE_LOSS, "loss", check_numerics=True, opt_level=0)
    with pytest.raises(gradir.RunTimeCheckError) as raised:
        hessian(np.array([np.nan, 0.5, -0.3]))
    assert "a NaN in argument 0 of hessian of @loss" in str(raised.value)
    assert "__gradir" not in str(raised.value)
