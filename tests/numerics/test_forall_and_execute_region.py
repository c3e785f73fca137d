"""`scf.forall` and `scf.execute_region`, which tiling and bufferization tests in MLIR write:
`lift-control-flow` runs a forall as the `scf.for` nest it equals (its shared outputs carried,
each `tensor.parallel_insert_slice` an `insert_slice`) and inlines an execute_region, so
both modes differentiate them. Values against NumPy, derivatives against central
differences (f64, vjp and jvp, through the CPU pipeline).
"""
from __future__ import annotations

import numpy as np
import pytest

import gradir

RNG = np.random.default_rng(7)

TILES = """
#min = affine_map<(d0)[s0] -> (-d0 + s0, 2)>
#x = affine_map<(d0, d1) -> (d0, d1)>
#w = affine_map<(d0, d1) -> (d1)>
func.func @tiles(%x: tensor<5x4xf64>, %w: tensor<4xf64>, %o: tensor<5x4xf64>, %p: tensor<5x4xf64>,
                 %lo: index, %hi: index) -> (tensor<5x4xf64>, tensor<5x4xf64>) {
  %c5 = arith.constant 5 : index
  %r:2 = scf.forall (%i, %j) = (0, %lo) to (%c5, %hi) step (2, 2) shared_outs(%s = %o, %t = %p)
      -> (tensor<5x4xf64>, tensor<5x4xf64>) {
    %m = affine.min #min(%i)[%c5]
    %a = tensor.extract_slice %x[%i, %j] [%m, 2] [1, 1] : tensor<5x4xf64> to tensor<?x2xf64>
    %b = tensor.extract_slice %w[%j] [2] [1] : tensor<4xf64> to tensor<2xf64>
    %d = tensor.extract_slice %s[%i, %j] [%m, 2] [1, 1] : tensor<5x4xf64> to tensor<?x2xf64>
    %y = linalg.generic {indexing_maps = [#x, #w, #x], iterator_types = ["parallel", "parallel"]}
        ins(%a, %b : tensor<?x2xf64>, tensor<2xf64>) outs(%d : tensor<?x2xf64>) {
    ^bb0(%u: f64, %v: f64, %acc: f64):
      %e = arith.mulf %u, %v : f64
      %q = math.sin %e : f64
      %z = arith.addf %q, %acc : f64
      linalg.yield %z : f64
    } -> tensor<?x2xf64>
    %c = tensor.extract_slice %p[%i, %j] [%m, 2] [1, 1] : tensor<5x4xf64> to tensor<?x2xf64>
    %sq = linalg.generic {indexing_maps = [#x, #x], iterator_types = ["parallel", "parallel"]}
        ins(%a : tensor<?x2xf64>) outs(%c : tensor<?x2xf64>) {
    ^bb0(%u: f64, %acc: f64):
      %e = arith.mulf %u, %acc : f64
      linalg.yield %e : f64
    } -> tensor<?x2xf64>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %y into %s[%i, %j] [%m, 2] [1, 1] : tensor<?x2xf64> into tensor<5x4xf64>
      tensor.parallel_insert_slice %sq into %t[%i, %j] [%m, 2] [1, 1] : tensor<?x2xf64> into tensor<5x4xf64>
    }
  }
  return %r#0, %r#1 : tensor<5x4xf64>, tensor<5x4xf64>
}
"""


def tiles_reference(x, w, o, p, lo, hi):
    """Every tile of columns [lo, hi) in steps of 2 (rows in tiles of 2, the last one clipped)."""
    s, t = o.copy(), p.copy()
    for j in range(lo, hi, 2):
        s[:, j : j + 2] = np.sin(x[:, j : j + 2] * w[j : j + 2]) + o[:, j : j + 2]
        t[:, j : j + 2] = x[:, j : j + 2] * p[:, j : j + 2]
    return s, t


def tiles_inputs(lo: int, hi: int):
    return [RNG.uniform(0.3, 1.2, (5, 4)), RNG.uniform(0.3, 1.2, 4), RNG.uniform(0.3, 1.2, (5, 4)),
            RNG.uniform(0.3, 1.2, (5, 4)), np.array(lo), np.array(hi)]  # fmt: skip


@pytest.mark.parametrize("lo, hi", [(0, 4), (2, 4)])
def test_forall_over_tiles_computes_every_tile(lo, hi):
    inputs = tiles_inputs(lo, hi)
    got = gradir.compile(TILES, target="cpu").call("tiles", *inputs)
    for value, want in zip(got, tiles_reference(*inputs[:4], lo, hi)):
        np.testing.assert_allclose(value, want, rtol=1e-12)


@pytest.mark.parametrize("lo, hi", [(0, 4), (2, 4)])
def test_forall_over_tiles_gradients(lo, hi):
    result = gradir.gradcheck(TILES, "tiles", wrt=[0, 1, 2, 3], inputs=tiles_inputs(lo, hi))
    assert result.ok, result.report()


CHUNKS = """
func.func @chunks(%x: tensor<7xf64>, %o: tensor<7xf64>) -> tensor<7xf64> {
  %r = scf.forall (%k) in (4) shared_outs(%s = %o) -> (tensor<7xf64>) {
    %i = affine.apply affine_map<(d0) -> (d0 * 2)>(%k)
    %n = affine.min affine_map<(d0) -> (-(d0 * 2) + 7, 2)>(%k)
    %a = tensor.extract_slice %x[%i] [%n] [1] : tensor<7xf64> to tensor<?xf64>
    %b = tensor.extract_slice %s[%i] [%n] [1] : tensor<7xf64> to tensor<?xf64>
    %e = linalg.elementwise kind=#linalg.elementwise_kind<exp> ins(%a : tensor<?xf64>) outs(%b : tensor<?xf64>) -> tensor<?xf64>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %e into %s[%i] [%n] [1] : tensor<?xf64> into tensor<7xf64>
    }
  }
  return %r : tensor<7xf64>
}
"""


def test_forall_in_chunks_whose_last_is_clipped():
    """Chunks of 2 over 7 elements (the last one 1 long): a slice of a size that changes
    between iterations, recomputed by the reverse loop rather than cached."""
    x, o = RNG.uniform(-1.0, 1.0, 7), RNG.uniform(-1.0, 1.0, 7)
    (value,) = gradir.compile(CHUNKS, target="cpu").call("chunks", x, o)
    np.testing.assert_allclose(value, np.exp(x), rtol=1e-13)
    result = gradir.gradcheck(CHUNKS, "chunks", wrt=[0], inputs=[x, o])
    assert result.ok, result.report()


EXECUTE_REGION = """
func.func @f(%x: tensor<3xf64>, %c: i1) -> (tensor<3xf64>, f64) {
  %i = arith.constant 1 : index
  %r:2 = scf.execute_region -> (tensor<3xf64>, f64) {
    %s = math.sin %x : tensor<3xf64>
    %e = tensor.extract %x[%i] : tensor<3xf64>
    scf.yield %s, %e : tensor<3xf64>, f64
  }
  %b = scf.execute_region -> f64 {
    cf.cond_br %c, ^a, ^b
  ^a:
    %m = arith.mulf %r#1, %r#1 : f64
    scf.yield %m : f64
  ^b:
    %n = math.exp %r#1 : f64
    scf.yield %n : f64
  }
  return %r#0, %b : tensor<3xf64>, f64
}
"""


@pytest.mark.parametrize("branch", [True, False])
def test_execute_region_one_block_and_several(branch):
    """One block is inlined; several (branches between them) are lifted to `scf.if` first."""
    x = RNG.uniform(0.3, 1.2, 3)
    value, taken = gradir.compile(EXECUTE_REGION, target="cpu").call("f", x, np.array(branch))
    np.testing.assert_allclose(value, np.sin(x), rtol=1e-13)
    np.testing.assert_allclose(taken, x[1] * x[1] if branch else np.exp(x[1]), rtol=1e-13)
    result = gradir.gradcheck(EXECUTE_REGION, "f", wrt=[0], inputs=[x, np.array(branch)])
    assert result.ok, result.report()
