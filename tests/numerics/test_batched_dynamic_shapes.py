"""vmap over tensors of dynamic shape: every example has the same run-time extents (the
batched argument's), so one compiled batched function serves any extent. Checked in f64
through the real CPU pipeline: values against a loop over the examples of the compiled
function, per-example vjps and jvps against central differences of it."""

import numpy as np
import pytest

import gradir

LAYER = """
func.func @layer(%x: tensor<?x3xf64>, %w: tensor<3x2xf64>) -> tensor<?x2xf64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x3xf64>
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty(%n) : tensor<?x2xf64>
  %f = linalg.fill ins(%zero : f64) outs(%e : tensor<?x2xf64>) -> tensor<?x2xf64>
  %m = linalg.matmul ins(%x, %w : tensor<?x3xf64>, tensor<3x2xf64>) outs(%f : tensor<?x2xf64>) -> tensor<?x2xf64>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]} ins(%m : tensor<?x2xf64>) outs(%e : tensor<?x2xf64>) {
  ^bb0(%a: f64, %b: f64):
    %t = math.tanh %a : f64
    linalg.yield %t : f64
  } -> tensor<?x2xf64>
  return %y : tensor<?x2xf64>
}
func.func @layer_vjp(%x: tensor<?x3xf64>, %w: tensor<3x2xf64>, %ct: tensor<?x2xf64>) -> (tensor<?x3xf64>, tensor<3x2xf64>) {
  %r:3 = autodiff.vjp @layer(%x, %w, %ct) {wrt = array<i64: 0, 1>}
      : (tensor<?x3xf64>, tensor<3x2xf64>, tensor<?x2xf64>) -> (tensor<?x2xf64>, tensor<?x3xf64>, tensor<3x2xf64>)
  return %r#1, %r#2 : tensor<?x3xf64>, tensor<3x2xf64>
}
func.func @layer_jvp(%x: tensor<?x3xf64>, %w: tensor<3x2xf64>, %tx: tensor<?x3xf64>, %tw: tensor<3x2xf64>) -> tensor<?x2xf64> {
  %r:2 = autodiff.jvp @layer(%x, %w, %tx, %tw) {wrt = array<i64: 0, 1>}
      : (tensor<?x3xf64>, tensor<3x2xf64>, tensor<?x3xf64>, tensor<3x2xf64>) -> (tensor<?x2xf64>, tensor<?x2xf64>)
  return %r#1 : tensor<?x2xf64>
}
"""
"""A tanh layer over a batch of rows of run-time size: a matmul on a dynamic shape, whose
batching rule then takes the generic view (both operands batched: a batch_matmul)."""

BATCH = 4
EXTENTS = (2, 5)
"""Two run-time extents through the same compiled batched function."""


@pytest.fixture(scope="module")
def layer():
    return gradir.compile(LAYER, target="cpu")


def _examples(extent: int, seed: int):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-0.8, 0.8, (BATCH, extent, 3))  # |x @ w| stays well inside tanh's slope
    w = rng.uniform(-0.6, 0.6, (BATCH, 3, 2))
    return x, w


def _layer_difference(layer, x, w, dx, dw, step=1e-6):
    """The layer's derivative at (x, w) along (dx, dw), by central differences of the
    compiled function."""
    plus = layer.call("layer", x + step * dx, w + step * dw)[0]
    minus = layer.call("layer", x - step * dx, w - step * dw)[0]
    return (plus - minus) / (2 * step)


@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0)], ids=["rows", "weights", "both"])
def test_vmap_of_a_function_of_dynamic_shape_is_a_loop_over_its_examples(layer, in_axes):
    batched = gradir.vmap(LAYER, "layer", in_axes=in_axes)
    for extent in EXTENTS:
        x, w = _examples(extent, extent)
        arguments = [x if in_axes[0] == 0 else x[0], w if in_axes[1] == 0 else w[0]]
        got = batched(*arguments)
        want = np.stack(
            [
                layer.call("layer", x[b] if in_axes[0] == 0 else x[0], w[b] if in_axes[1] == 0 else w[0])[0]
                for b in range(BATCH)
            ]
        )
        assert got.shape == (BATCH, extent, 2)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-14)
        assert np.ptp(got, axis=0).max() > 0.1  # the examples differ


def test_per_example_vjps_of_a_function_of_dynamic_shape_match_central_differences(layer):
    per_example = gradir.vmap(LAYER, "layer_vjp", in_axes=(0, 0, 0))
    for extent in EXTENTS:
        x, w = _examples(extent, 10 + extent)
        ct = np.random.default_rng(extent).standard_normal((BATCH, extent, 2))
        gx, gw = per_example(x, w, ct)
        assert gx.shape == x.shape and gw.shape == w.shape
        for b in range(BATCH):
            rng = np.random.default_rng(b)
            dx, dw = rng.standard_normal(x[b].shape), rng.standard_normal(w[b].shape)
            # <ct, J (dx, 0)> and <ct, J (0, dw)> by central differences = <vjp, direction>
            along_x = np.sum(ct[b] * _layer_difference(layer, x[b], w[b], dx, np.zeros_like(dw)))
            along_w = np.sum(ct[b] * _layer_difference(layer, x[b], w[b], np.zeros_like(dx), dw))
            np.testing.assert_allclose(np.sum(gx[b] * dx), along_x, rtol=1e-7)
            np.testing.assert_allclose(np.sum(gw[b] * dw), along_w, rtol=1e-7)
        assert np.ptp(gw, axis=0).max() > 0.1


def test_per_example_jvps_of_a_function_of_dynamic_shape_match_central_differences(layer):
    per_example = gradir.vmap(LAYER, "layer_jvp", in_axes=(0, 0, 0, 0))
    for extent in EXTENTS:
        x, w = _examples(extent, 20 + extent)
        rng = np.random.default_rng(extent)
        tx, tw = rng.standard_normal(x.shape), rng.standard_normal(w.shape)
        tangents = per_example(x, w, tx, tw)
        assert tangents.shape == (BATCH, extent, 2)
        for b in range(BATCH):
            np.testing.assert_allclose(
                tangents[b], _layer_difference(layer, x[b], w[b], tx[b], tw[b]), rtol=1e-7, atol=1e-9
            )


SIZES = """
func.func @sizes(%x: tensor<?x2xf64>, %shape: tensor<2xindex>) -> (tensor<?x2x1xf64>, tensor<?xf64>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x2xf64>
  %e = tensor.empty(%n) : tensor<?x2xf64>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x2xf64>) outs(%e : tensor<?x2xf64>) {
  ^bb0(%a: f64, %b: f64):
    %s = math.sin %a : f64
    linalg.yield %s : f64
  } -> tensor<?x2xf64>
  %z = tensor.expand_shape %y [[0], [1, 2]] output_shape [%n, 2, 1] : tensor<?x2xf64> into tensor<?x2x1xf64>
  %flat = tensor.reshape %y(%shape) : (tensor<?x2xf64>, tensor<2xindex>) -> tensor<?x?xf64>
  %c1 = arith.constant 1 : index
  %m = tensor.dim %flat, %c1 : tensor<?x?xf64>
  %row = tensor.extract_slice %flat[0, 0] [1, %m] [1, 1] : tensor<?x?xf64> to tensor<?xf64>
  return %z, %row : tensor<?x2x1xf64>, tensor<?xf64>
}
"""
"""Run-time extents read (`tensor.dim`), passed to `expand_shape`'s output sizes and to a
reshape's shape operand, a slice as long as one of them; the batch axis moved (in_axes=1)."""


def test_run_time_extents_reshapes_and_moved_axes_agree_with_a_loop():
    sizes = gradir.compile(SIZES, target="cpu")
    batched = gradir.vmap(SIZES, "sizes", in_axes=(1, None), out_axes=(0, 1))
    for extent in EXTENTS:
        x = np.random.default_rng(extent).standard_normal((extent, 3, 2))  # the batch at axis 1
        shape = np.array([1, 2 * extent])
        expanded, rows = batched(x, shape)
        want = [sizes.call("sizes", x[:, b], shape) for b in range(3)]
        np.testing.assert_array_equal(expanded, np.stack([w[0] for w in want]))
        np.testing.assert_array_equal(rows, np.stack([w[1] for w in want], axis=1))
        assert rows.shape == (2 * extent, 3)


CONCATENATE = """
func.func @joined(%a: tensor<?xf64>, %b: tensor<?xf64>) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf64>
  %m = tensor.dim %b, %c0 : tensor<?xf64>
  %total = arith.addi %n, %m : index
  %e = tensor.empty(%total) : tensor<?xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%e : tensor<?xf64>) {
  ^bb0(%out: f64):
    %i = linalg.index 0 : index
    %split = tensor.dim %a, %c0 : tensor<?xf64>
    %first = arith.cmpi ult, %i, %split : index
    %v = scf.if %first -> (f64) {
      %x = tensor.extract %a[%i] : tensor<?xf64>
      scf.yield %x : f64
    } else {
      %j = arith.subi %i, %split : index
      %y = tensor.extract %b[%j] : tensor<?xf64>
      %c = math.cos %y : f64
      scf.yield %c : f64
    }
    linalg.yield %v : f64
  } -> tensor<?xf64>
  return %r : tensor<?xf64>
}
"""
"""StableHLO's concatenate as its lowering writes it: a body that gathers from both operands
and asks where the first ends (`tensor.dim` inside the body, of a batched tensor)."""


def test_a_body_reading_a_batched_extent_agrees_with_a_loop():
    joined = gradir.compile(CONCATENATE, target="cpu")
    batched = gradir.vmap(CONCATENATE, "joined")
    for n, m in ((2, 3), (4, 1)):
        rng = np.random.default_rng(n)
        a, b = rng.standard_normal((3, n)), rng.standard_normal((3, m))
        want = np.stack([joined.call("joined", a[k], b[k])[0] for k in range(3)])
        np.testing.assert_array_equal(batched(a, b), want)
        np.testing.assert_array_equal(want[:, n:], np.cos(b))
