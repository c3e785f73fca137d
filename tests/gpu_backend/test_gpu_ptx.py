"""PTX extraction, assembly with ptxas, and the parsing of `ptxas -v`."""
import shutil

import pytest

from gpu_cases import CASES, MATMUL, compiled
from gradir.errors import TargetError
from gradir.gpu_backend.ptx import KernelResources, assemble, parse_ptxas_verbose

needs_ptxas = pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not on PATH")


@needs_ptxas
@pytest.mark.parametrize("chip", ["sm_90", "sm_80"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_every_kernel_assembles_without_spills(case, chip):
    program = compiled(case, chip=chip)
    assert program.ptx
    for name, ptx in program.ptx.items():
        assert f".target {chip}" in ptx and f".entry {name}(" in ptx
        resources = assemble(ptx, chip).resources[name]
        assert resources.spill_bytes == 0, f"{name} spills {resources.spill_bytes} bytes"
        assert resources.stack_frame_bytes == 0, name
        # a shared-memory tile holds TM x TN accumulators plus the operands of a k step: up to
        # 128 registers still lets two 256-thread blocks share an SM's 64K registers
        limit = 128 if "shared" in name else 64
        assert 0 < resources.registers <= limit, f"{name} uses {resources.registers} registers"
        assert ("shared" in name) == (resources.shared_bytes > 0), name


@needs_ptxas
def test_ptxas_failure_is_a_target_error():
    with pytest.raises(TargetError, match="ptxas failed for sm_90: .*version"):
        assemble("this is not PTX", "sm_90")


def test_assemble_without_ptxas_is_a_clear_error(monkeypatch):
    monkeypatch.setenv("PATH", "")
    with pytest.raises(TargetError, match="ptxas not found on PATH"):
        assemble(next(iter(compiled(MATMUL).ptx.values())))


def test_parse_ptxas_verbose():
    text = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k_0' for 'sm_90'
ptxas info    : Function properties for k_0
    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 40 registers, used 0 barriers, 2048 bytes smem, 368 bytes cmem[0]
ptxas info    : Compiling entry function 'k_1' for 'sm_90'
ptxas info    : Function properties for k_1
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 0 barriers, 360 bytes cmem[0]
"""
    assert parse_ptxas_verbose(text) == {
        "k_0": KernelResources(40, 4, 12, 8, 2048),
        "k_1": KernelResources(12, 0, 0, 0, 0),
    }
    assert parse_ptxas_verbose(text)["k_0"].spill_bytes == 16
