"""The repository's autodiff examples through the whole pipeline (autodiff -> linalg -> gpu):
their kernels, run as CPU loops, agree with the CPU backend, and assemble without spills."""
import pathlib
import shutil

import numpy as np
import pytest

from gradir.gpu_backend.ptx import assemble
from gradir.compilation import compile as compile_program

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


@pytest.mark.parametrize("example", ["mlp.mlir", "logsumexp_mixture.mlir"])
def test_example_kernels_agree_with_the_cpu_backend(example):
    path = str(EXAMPLES / example)
    program = compile_program(path, target="cuda")
    cpu = compile_program(path, target="cpu")
    rng = np.random.default_rng(0)
    for name, signature in program.signatures.items():
        arguments = [rng.standard_normal(s.shape).astype(s.dtype) for s in signature.arguments]
        for got, want in zip(program.emulate(name, *arguments), cpu.call(name, *arguments)):
            tolerance = 1e-4 if got.dtype == np.float32 else 1e-10
            np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance, err_msg=name)
    if shutil.which("ptxas"):
        for kernel, ptx in program.ptx.items():
            assert assemble(ptx, "sm_90").resources[kernel].spill_bytes == 0, kernel
