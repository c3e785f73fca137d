"""The named linalg ops of issue "Real MLIR II" lower for the GPU, derivatives included: the
vjp and jvp of every case of `tests/numerics/named_linalg_cases.py` (the functions the CPU
gradient checks use) go through the whole GPU pipeline, their kernels assemble with ptxas
for sm_90 without spills, and the very stage-2 kernels, run on the CPU by launch emulation,
give the CPU backend's numbers. All cases share one compilation per backend."""
import pathlib
import shutil
import sys

import numpy as np
import pytest

import gradir
from gradir.gpu_backend.ptx import assemble
from gradir.gradient_check import _wrapper_functions
from gradir.source import load_module

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "numerics"))
from named_linalg_cases import CASES as ALL_CASES  # noqa: E402
from named_linalg_cases import module_text  # noqa: E402

# Every case, `map_captured_scalar` too: its scalar, read from a tensor argument outside any
# linalg op, is copied to the host by a one-thread kernel (`map_to_gpu._scalars_across`).
CASES = ALL_CASES


def _wrt(case) -> list[int]:
    """The checked arguments, float scalars too (`named_div_scalar`'s divisor: its gradient
    is a device reduction read back to the host)."""
    return list(case.wrt) if case.wrt is not None else list(range(len(case.arguments)))


def _program_text(cases) -> str:
    text = module_text(cases)
    functions = {op.sym_name.data: op for op in load_module(text).ops if hasattr(op, "sym_name")}
    return text + "".join(_wrapper_functions(functions[case.name], _wrt(case)) for case in cases)


@pytest.fixture(scope="module")
def programs():
    text = _program_text(CASES)
    # The CPU side is the reference here (test_named_linalg checks it at the default level): -O0
    # compiles it in two thirds of the time. Only the wrappers the tests call are compiled for
    # themselves (`functions`): the cases and their derived functions only where inlined.
    called = [f"__gradcheck_{kind}_{case.name}" for case in CASES for kind in ("vjp", "jvp")]
    return (
        gradir.compile(text, target="cuda", functions=called),
        gradir.compile(text, target="cpu", opt_level=0, functions=called),
    )


def _arguments(case, kind: str) -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    inputs = [np.asarray(x, dtype=np.float32) for x in case.inputs]
    if kind == "vjp":
        extra = [np.asarray(rng.uniform(-1, 1), dtype=np.float32)]  # the loss's cotangent
    else:
        extra = [rng.uniform(-1, 1, np.shape(case.inputs[i])).astype(np.float32) for i in _wrt(case)]
    return inputs + extra


@pytest.mark.parametrize("kind", ["vjp", "jvp"])
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_gpu_kernels_match_the_cpu(programs, case, kind):
    gpu, cpu = programs
    function = f"__gradcheck_{kind}_{case.name}"
    assert gpu.kernels_of(function), "nothing runs on the GPU"
    arguments = _arguments(case, kind)
    emulated, expected = gpu.emulate(function, *arguments), cpu.call(function, *arguments)
    for index, (got, want) in enumerate(zip(emulated, expected, strict=True)):
        scale = max(float(np.max(np.abs(want))), 1.0)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4 * scale, err_msg=f"{function} result {index}")


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not on PATH")
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_gpu_kernels_assemble_without_spills(programs, case):
    gpu, _ = programs
    for kind in ("vjp", "jvp"):
        for kernel in gpu.kernels_of(f"__gradcheck_{kind}_{case.name}"):
            resources = assemble(gpu.ptx[kernel], "sm_90").resources[kernel]
            assert resources.spill_bytes == 0 and resources.stack_frame_bytes == 0, kernel
