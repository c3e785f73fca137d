"""Loops on the GPU (issue #6): the RNN gradient (a forward scf.for pushing
per-iteration caches, a reverse scf.for reading them back) keeps its loops on
the host, launches kernels from their bodies, and reads slices at loop-dependent
offsets through the whole buffer. Every kernel assembles; the launches, run as
CPU loops, give the CPU pipeline's numbers."""
import pathlib
import shutil

import numpy as np
import pytest

import gradir
from gradir.gpu_backend.ptx import assemble

RNN = pathlib.Path(__file__).resolve().parents[2] / "examples" / "standard" / "rnn.mlir"
GRAD_ENTRY = """
func.func @rnn_grad(%xs: tensor<20x4x8xf32>, %h0: tensor<4x16xf32>, %wx: tensor<8x16xf32>,
                    %wh: tensor<16x16xf32>, %b: tensor<16xf32>)
    -> (tensor<20x4x8xf32>, tensor<4x16xf32>, tensor<8x16xf32>, tensor<16x16xf32>, tensor<16xf32>) {
  %g:5 = autodiff.grad @rnn_loss(%xs, %h0, %wx, %wh, %b)
    : (tensor<20x4x8xf32>, tensor<4x16xf32>, tensor<8x16xf32>, tensor<16x16xf32>, tensor<16xf32>)
   -> (tensor<20x4x8xf32>, tensor<4x16xf32>, tensor<8x16xf32>, tensor<16x16xf32>, tensor<16xf32>)
  return %g#0, %g#1, %g#2, %g#3, %g#4
    : tensor<20x4x8xf32>, tensor<4x16xf32>, tensor<8x16xf32>, tensor<16x16xf32>, tensor<16xf32>
}
"""


@pytest.fixture(scope="module")
def source():
    return RNN.read_text() + GRAD_ENTRY


@pytest.fixture(scope="module")
def program(source):
    return gradir.compile(source, target="cuda")


def inputs(seed=0):
    rng = np.random.default_rng(seed)
    shapes = [(20, 4, 8), (4, 16), (8, 16), (16, 16), (16,)]
    return [(rng.standard_normal(s) * 0.3).astype(np.float32) for s in shapes]


def test_loops_stay_on_the_host_and_launch_kernels(program):
    ir = program.gpu_ir
    function = ir[ir.index("func.func @rnn_loss_vjp") :]
    function = function[: function.index("\n  }\n")]
    loop = function.index("scf.for")
    assert "gpu.launch_func" in function[loop:]
    assert function.count("scf.for") >= 2  # the forward loop and the reverse loop


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not on PATH")
@pytest.mark.parametrize("chip", ["sm_90", "sm_80"])
def test_every_kernel_assembles_without_spills(source, chip):
    program = gradir.compile(source, target="cuda", chip=chip)
    assert program.ptx
    for name, ptx in program.ptx.items():
        resources = assemble(ptx, chip).resources[name]
        assert resources.spill_bytes == 0, f"{name} spills {resources.spill_bytes} bytes"


def test_kernels_run_as_cpu_loops_match_the_cpu_pipeline(source, program):
    arguments = inputs()
    expected = gradir.compile(source).rnn_grad(*arguments)
    got = program.emulate("rnn_grad", *arguments)
    for index, (a, b) in enumerate(zip(got, expected)):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5, err_msg=f"gradient {index}")
