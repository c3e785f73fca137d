"""Fixtures of the AD pass tests."""
from __future__ import annotations

import pytest
from pass_support import ENTRIES, LOSS, compile_for_cpu, fresh_context

from gradir.cpu_backend.cpu_runtime import CpuExecutable


@pytest.fixture(scope="session")
def loss_program() -> CpuExecutable:
    """`@loss` and its grad, jvp and Hessian-vector-product entry points, compiled for the CPU."""
    return compile_for_cpu(fresh_context(), LOSS + ENTRIES)
