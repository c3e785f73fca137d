"""The vector schedule never makes a valid program fail (`cpu_schedule.apply_vector_schedule`).

MLIR 22's transforms fail on a few valid ops ("cpu-vector-schedule: Failed to apply named
transform sequence"). A failing step is undone and its op left to the loop lowering; the
other ops are still vectorised.
"""
import numpy as np
import pytest

from gradir.cpu_backend import cpu_schedule
from gradir.cpu_backend.cpu_runtime import CpuExecutable
from gradir.mlir_bridge import to_mlir_module, walk_ops

TRANSPOSE_AND_MATMUL = """
func.func @f(%x: tensor<32x48xf32>, %a: tensor<16x8xf32>, %b: tensor<8x32xf32>)
    -> (tensor<48x32xf32>, tensor<16x32xf32>) {
  %e = tensor.empty() : tensor<48x32xf32>
  %t = linalg.transpose ins(%x : tensor<32x48xf32>) outs(%e : tensor<48x32xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<16x32xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<16x8xf32>, tensor<8x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %t, %m : tensor<48x32xf32>, tensor<16x32xf32>
}
"""

RNG = np.random.default_rng(7)


def inputs():
    return [RNG.standard_normal(shape).astype(np.float32) for shape in ((32, 48), (16, 8), (8, 32))]


def buffers(source: str):
    """`source` on buffers, as the schedule sees it."""
    from gradir.cpu_backend import cpu_pipeline

    module = to_mlir_module(source)
    with module.context:
        cpu_pipeline._prepare_public_functions(module)
        cpu_pipeline.fuse_tensors(module)
        cpu_pipeline.run_pipeline(module, cpu_pipeline.BUFFER_PIPELINE, "cpu-bufferize")
    return module


def test_a_whole_schedule_that_applies_reports_nothing():
    module = buffers(TRANSPOSE_AND_MATMUL)
    assert cpu_schedule.apply_vector_schedule(module) == []
    assert not walk_ops(module, {"linalg.transpose", "linalg.matmul"})  # both vectorised


@pytest.fixture
def transposes_fail(monkeypatch):
    """A tile rule whose step MLIR rejects: one vector size for a 2-d transpose."""
    monkeypatch.setitem(cpu_schedule._TILE_RULES, "linalg.transpose", lambda op: [16])


def test_an_op_whose_step_fails_is_left_to_the_loops(transposes_fail):
    module = buffers(TRANSPOSE_AND_MATMUL)
    left = cpu_schedule.apply_vector_schedule(module)
    assert len(left) == 1 and left[0].startswith("linalg.transpose [16]: ")
    assert len(walk_ops(module, {"linalg.transpose"})) == 1  # untouched, for the loops
    assert not walk_ops(module, {"linalg.matmul"})  # the matmul was still vectorised
    assert module.operation.verify()


def test_the_program_still_compiles_and_computes(transposes_fail):
    x, a, b = inputs()
    transposed, product = CpuExecutable(TRANSPOSE_AND_MATMUL.replace("@f", "@f_fallback")).f_fallback(x, a, b)
    np.testing.assert_array_equal(transposed, x.T)
    # f32 sums of 8 products: an entry near 0 has a large relative error (1.3e-5 seen), hence atol.
    np.testing.assert_allclose(product, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


def test_a_failing_vector_lowering_leaves_everything_to_the_loops(monkeypatch):
    monkeypatch.setattr(cpu_schedule, "_VECTOR_LOWERING", "    transform.no_such_op %root\n")
    module = buffers(TRANSPOSE_AND_MATMUL)
    left = cpu_schedule.apply_vector_schedule(module)
    assert len(left) == 1 and left[0].startswith("every op: ")
    assert len(walk_ops(module, {"linalg.transpose", "linalg.matmul"})) == 2
    assert not walk_ops(module, {"vector.transfer_read"})
