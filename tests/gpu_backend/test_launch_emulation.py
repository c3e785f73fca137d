"""CPU emulation of kernels whose threads talk through workgroup memory and `gpu.barrier`.

Each test kernel gives a wrong answer unless every thread finishes the phase before a barrier
before any thread starts the phase after it, so running threads one after another (without
cutting the kernel at its barriers) would fail them.
"""
import numpy as np
import pytest

from gradir.errors import PipelineError
from gradir.gpu_backend.cuda_program import _emulation_engine, _invoke
from gradir.mlir_bridge.host_execution import FunctionSignature, TensorSpec

WORKGROUP = "memref<64xf32, #gpu.address_space<workgroup>>"

REVERSE_IN_BLOCKS = f"""
func.func @reverse(%x: memref<128xf32>, %y: memref<128xf32>) attributes {{llvm.emit_c_interface}} {{
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%s : {WORKGROUP}) {{
    %c63 = arith.constant 63 : index
    %base = arith.muli %bx, %c64 : index
    %i = arith.addi %base, %tx : index
    %v = memref.load %x[%i] : memref<128xf32>
    memref.store %v, %s[%tx] : {WORKGROUP}
    gpu.barrier
    %mirror = arith.subi %c63, %tx : index
    %w = memref.load %s[%mirror] : {WORKGROUP}
    memref.store %w, %y[%i] : memref<128xf32>
    gpu.terminator
  }}
  return
}}
"""

# Four rounds: each thread publishes its running value, then adds its right neighbour's.
ROTATING_SUMS = f"""
func.func @rounds(%x: memref<64xf32>, %y: memref<64xf32>) attributes {{llvm.emit_c_interface}} {{
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%s : {WORKGROUP}) {{
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %one = arith.constant 1 : index
    %start = memref.load %x[%tx] : memref<64xf32>
    %right = arith.addi %tx, %one : index
    %neighbour = arith.remui %right, %c64 : index
    %final = scf.for %round = %c0 to %c4 step %one iter_args(%acc = %start) -> (f32) {{
      memref.store %acc, %s[%tx] : {WORKGROUP}
      gpu.barrier
      %other = memref.load %s[%neighbour] : {WORKGROUP}
      %sum = arith.addf %acc, %other : f32
      gpu.barrier
      scf.yield %sum : f32
    }}
    memref.store %final, %y[%tx] : memref<64xf32>
    gpu.terminator
  }}
  return
}}
"""


def _run(text: str, name: str, *arrays: np.ndarray) -> None:
    """Call a function already on buffers: every array is a memref argument, none a result."""
    engine = _emulation_engine(text).engine
    signature = FunctionSignature(name, tuple(TensorSpec(a.shape, a.dtype) for a in arrays), ())
    _invoke(engine, signature, list(arrays), [])


def test_threads_read_what_other_threads_wrote_before_the_barrier():
    x = np.arange(128, dtype=np.float32)
    y = np.zeros(128, np.float32)
    _run(REVERSE_IN_BLOCKS, "reverse", x, y)
    np.testing.assert_array_equal(y, np.concatenate([x[:64][::-1], x[64:][::-1]]))


def test_loop_state_survives_barriers_inside_the_loop():
    x = np.random.default_rng(0).standard_normal(64).astype(np.float32)
    y = np.zeros(64, np.float32)
    _run(ROTATING_SUMS, "rounds", x, y)
    expected = x.copy()
    for _ in range(4):
        expected = expected + np.roll(expected, -1)
    np.testing.assert_allclose(y, expected, rtol=1e-5)


def test_barrier_under_a_branch_is_refused():
    text = REVERSE_IN_BLOCKS.replace(
        "    gpu.barrier\n",
        "    %p = arith.cmpi ult, %tx, %c63 : index\n    scf.if %p {\n      gpu.barrier\n    }\n",
    )
    with pytest.raises(PipelineError, match="barrier under 'scf.if'"):
        _emulation_engine(text)


def test_loop_bounds_depending_on_the_thread_are_refused():
    text = ROTATING_SUMS.replace("%round = %c0 to %c4", "%round = %c0 to %tx")
    with pytest.raises(PipelineError, match="bounds that depend on the thread"):
        _emulation_engine(text)
