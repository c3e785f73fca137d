"""A loop body's temporaries are allocated once, before the loop (`buffer-loop-hoisting` in
cpu_pipeline.BUFFER_PIPELINE): allocated and freed in every iteration, they made `malloc` most
of the ADBench LSTM gradient's time, and more once other code had fragmented the heap."""
import numpy as np

from gradir.cpu_backend.cpu_pipeline import to_buffers
from gradir.cpu_backend.cpu_runtime import CpuExecutable
from gradir.mlir_bridge import new_context, to_mlir_module, walk_ops

# Each iteration's matvec writes a temporary no fusion removes; the state is carried.
PROGRAM = """
func.func @f(%m: tensor<16x16xf64>, %x: tensor<16xf64>) -> tensor<16xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%a = %x) -> tensor<16xf64> {
    %e = tensor.empty() : tensor<16xf64>
    %z = linalg.fill ins(%zero : f64) outs(%e : tensor<16xf64>) -> tensor<16xf64>
    %t = linalg.matvec ins(%m, %a : tensor<16x16xf64>, tensor<16xf64>) outs(%z : tensor<16xf64>) -> tensor<16xf64>
    %u = linalg.map { math.tanh } ins(%t : tensor<16xf64>) outs(%e : tensor<16xf64>)
    %v = linalg.map { arith.addf } ins(%u, %a : tensor<16xf64>, tensor<16xf64>) outs(%e : tensor<16xf64>)
    scf.yield %v : tensor<16xf64>
  }
  return %r : tensor<16xf64>
}
"""


def _in_a_loop(op) -> bool:
    parent = op.parent
    while parent is not None:
        if parent.name == "scf.for":
            return True
        parent = parent.parent
    return False


def test_no_allocation_is_left_inside_the_loop():
    module = to_mlir_module(PROGRAM, new_context())
    to_buffers(module)
    allocations = list(walk_ops(module, {"memref.alloc"}))
    assert allocations, "the matvec's temporary needs a buffer"
    assert [str(op) for op in allocations if _in_a_loop(op)] == []
    assert any(_in_a_loop(op) for op in walk_ops(module, {"linalg.matvec"}))


def test_the_hoisted_temporary_is_reused_correctly():
    rng = np.random.default_rng(0)
    m, x = rng.normal(size=(16, 16)) / 4, rng.normal(size=16)
    expected = x.copy()
    for _ in range(8):
        expected = np.tanh(m @ expected) + expected
    result = CpuExecutable(PROGRAM).f(m, x)
    np.testing.assert_allclose(result, expected, rtol=1e-12)
