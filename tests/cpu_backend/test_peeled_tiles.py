"""A matmul whose tiles do not divide it is peeled, not masked (cpu_schedule `_TILE_AND_PEEL`).

A masked edge tile lowered its `vector.contract` to outer products each
selecting through a mask rebuilt element by element: 4 000 `vector.extract`s
for one 64x400 @ 400x120 matmul, and LeNet-5's linear layers were half of its
LLVM code. Peeled, the full tiles and the one partial tile per loop have
static shapes and no masks. (A partial tile of one row or column keeps its
masks: MLIR 22 does not finish lowering unit-extent vectors, 17x33x65.)
"""
import numpy as np
import pytest

import gradir
from gradir.cpu_backend.cpu_pipeline import lower_to_llvm_text


def matmul(m: int, k: int, n: int) -> str:
    return f"""
func.func @mm(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32> {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{m}x{n}xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %r = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) outs(%f : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %r : tensor<{m}x{n}xf32>
}}
"""


@pytest.mark.parametrize("shape", [(64, 400, 120), (64, 120, 84), (24, 37, 50)])
def test_partial_tiles_are_peeled_without_masks(shape):
    text = lower_to_llvm_text(matmul(*shape))
    assert "llvm.intr.fmuladd" in text  # vectorised, not left to loops
    assert "llvm.intr.masked" not in text and "llvm.select" not in text


@pytest.mark.parametrize("shape", [(64, 400, 120), (64, 84, 10), (24, 37, 50), (9, 33, 70), (17, 33, 65)])
def test_peeled_matmuls_compute_the_product(shape):
    m, k, n = shape
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = gradir.compile(matmul(m, k, n), target="cpu").mm(a, b)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_columns_between_one_and_two_vectors_are_one_vector_and_a_peeled_rest():
    # 25 f32 columns tiled whole were vector<25>: 16 + 8 + one scalar lane per row.
    text = lower_to_llvm_text(matmul(6, 64, 25))
    assert "vector<25xf32>" not in text
    assert "vector<16xf32>" in text and "vector<9xf32>" in text
