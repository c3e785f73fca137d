"""Temporaries come from `aligned_alloc`, so LLVM knows each is a fresh allocation
(cpu_pipeline.CPU_LLVM_PIPELINE).

With `malloc(size + alignment)` and the pointer rounded up through an integer,
LLVM could not tell two temporaries apart and left the copies between them as
scalar moves (the im2col gathers of LeNet-5's gradient: 38% of its time).
"""
import numpy as np

import gradir
from gradir.cpu_backend.cpu_pipeline import lower_to_llvm_text

PROGRAM = """
func.func @f(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %e = tensor.empty() : tensor<64x64xf32>
  %t = linalg.transpose ins(%x : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) permutation = [1, 0]
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %p = linalg.matmul ins(%t, %t : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  %s = linalg.matmul ins(%p, %x : tensor<64x64xf32>, tensor<64x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %s : tensor<64x64xf32>
}
"""


def test_temporaries_are_aligned_allocations_without_integer_pointers():
    text = lower_to_llvm_text(PROGRAM)
    assert "llvm.call @aligned_alloc(" in text
    assert "llvm.call @malloc(" not in text
    assert "llvm.inttoptr" not in text


def test_a_program_with_temporaries_computes_the_same():
    x = np.random.default_rng(0).uniform(-1, 1, (64, 64)).astype(np.float32)
    (result,) = gradir.compile(PROGRAM, target="cpu").call("f", x)
    np.testing.assert_allclose(result, (x.T @ x.T) @ x, rtol=1e-4, atol=1e-4)
