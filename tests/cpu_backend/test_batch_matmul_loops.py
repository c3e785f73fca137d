"""Batched matmuls run as a loop of register-blocked matmuls (cpu_backend/batch_matmul_loops.py)."""
import numpy as np
import pytest

import gradir
from gradir.cpu_backend.batch_matmul_loops import batch_matmuls_as_loops
from gradir.mlir_bridge import walk_ops

BATCHED = """
func.func @f(%a: tensor<BxMxKxT>, %b: tensor<BxKxNxT>) -> tensor<BxMxNxT> {
  %m = autodiff.matmul %a, %b : (tensor<BxMxKxT>, tensor<BxKxNxT>) -> tensor<BxMxNxT>
  return %m : tensor<BxMxNxT>
}
"""


def batched(batch: int, m: int, k: int, n: int, element: str) -> str:
    text = BATCHED
    for name, value in (("B", batch), ("M", m), ("K", k), ("N", n), ("T", element)):
        text = text.replace(f"{name}x", f"{value}x").replace(f"x{name}>", f"x{value}>")
    return text


@pytest.mark.parametrize("shape", [(1, 1, 1, 1), (3, 20, 13, 6), (5, 37, 70, 33), (2, 1, 9, 4)])
@pytest.mark.parametrize("element, dtype, tolerance", [("f32", np.float32, 1e-4), ("f64", np.float64, 1e-12)])
def test_batched_matmul_matches_numpy(shape, element, dtype, tolerance):
    batch, m, k, n = shape
    rng = np.random.default_rng(0)
    a = rng.standard_normal((batch, m, k)).astype(dtype)
    b = rng.standard_normal((batch, k, n)).astype(dtype)
    result = gradir.compile(batched(batch, m, k, n, element), target="cpu").f(a, b)
    np.testing.assert_allclose(result, a @ b, rtol=tolerance, atol=tolerance * np.sqrt(k))


BATCH_MATMUL = """
func.func @g(%a: tensor<4x8x16xf64>, %b: tensor<4x16x32xf64>, %c: tensor<4x8x32xf64>) -> tensor<4x8x32xf64> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<4x8x16xf64>, tensor<4x16x32xf64>)
      outs(%c : tensor<4x8x32xf64>) -> tensor<4x8x32xf64>
  return %r : tensor<4x8x32xf64>
}
"""


def test_batch_matmul_becomes_a_loop_of_matmuls():
    from mlir import ir

    with ir.Context():
        module = ir.Module.parse(BATCH_MATMUL)
        batch_matmuls_as_loops(module)
        assert module.operation.verify()
        assert walk_ops(module, {"linalg.batch_matmul"}) == []
        assert len(walk_ops(module, {"linalg.matmul"})) == 1
        assert len(walk_ops(module, {"scf.for"})) == 1
        assert len(walk_ops(module, {"func.call"})) == 1


def test_gradient_of_a_batched_matmul():
    result = gradir.gradcheck(batched(3, 5, 4, 6, "f64"), "f")
    assert result.ok, result.report()
