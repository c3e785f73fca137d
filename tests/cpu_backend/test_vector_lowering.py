"""The CPU pipeline's vector lowering keeps no stack buffer inside a loop.

`convert-vector-to-scf` by default stages a multi-dimensional vector transfer
through a `memref.alloca`; below the register-blocked matmul's K loop each
iteration took new stack (nothing frees an alloca before the function returns),
and a 150x6400 @ 6400x16 matmul (6-row tiles, 400 K slices, 25 row blocks: 22 MB)
overflowed an 8 MB stack: a segmentation fault. Transfers are unrolled instead.
"""
import textwrap

from child_process import run_python
from gradir.cpu_backend.cpu_pipeline import lower_to_llvm_text

MATMUL = """
func.func @mm(%a: tensor<150x6400xf32>, %b: tensor<6400x16xf32>) -> tensor<150x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<150x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<150x16xf32>) -> tensor<150x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<150x6400xf32>, tensor<6400x16xf32>) outs(%f : tensor<150x16xf32>) -> tensor<150x16xf32>
  return %r : tensor<150x16xf32>
}
"""


def test_no_stack_allocation_in_the_lowered_matmul():
    assert "llvm.alloca" not in lower_to_llvm_text(MATMUL)


def test_a_long_matmul_with_six_row_tiles_runs(tmp_path):
    script = textwrap.dedent(f"""
        import numpy as np, gradir
        a = np.random.default_rng(0).standard_normal((150, 6400)).astype(np.float32)
        b = np.random.default_rng(1).standard_normal((6400, 16)).astype(np.float32)
        c = gradir.compile({MATMUL!r}).mm(a, b)
        np.testing.assert_allclose(c, a @ b, rtol=1e-3, atol=1e-3)
    """)
    run_python(script, tmp_path)  # a segmentation fault would end the test session
