"""Random standard-MLIR programs through the GPU pipeline (`standard_gpu.py`): the program,
its vjp and its jvp, with the kernels emulated on the CPU, equal the CPU pipeline's in f64,
or the GPU pipeline refuses the program with a one-line located error. Never a different
number, and never a crash: this sweep found an abort in MLIR's bindings
(tests/gpu_backend/test_gpu_loops.py has that program). CI runs the seeds 0-23;
`GRADIR_GPU_STANDARD_PROGRAMS=300 GRADIR_GPU_STANDARD_SEED=1000` runs more (in the first 300
seeds all 300 run and match; 136 were refused before tapes of run-time length and an
`scf.if` in a linalg body ran on the GPU, and none was ever wrong)."""
from __future__ import annotations

import os
import re

import pytest

from property_support import budget
from standard_gpu import check_on_gpu

CI_PROGRAMS = 24
LOCATED = re.compile(r"^<string>:\d+:\d+: error: gpu-map: ")


def seeds() -> list[int]:
    first = int(os.environ.get("GRADIR_GPU_STANDARD_SEED", "0"))
    return list(range(first, first + budget("GRADIR_GPU_STANDARD_PROGRAMS", CI_PROGRAMS)))


@pytest.fixture(scope="module")
def outcomes():
    return {seed: check_on_gpu(seed) for seed in seeds()}


@pytest.mark.parametrize("seed", seeds())
def test_random_program_on_the_emulated_gpu(seed, outcomes):
    outcome, detail = outcomes[seed]
    assert outcome in ("ok", "refused"), f"seed {seed}: {outcome}: {detail}"
    if outcome == "refused":
        assert "\n" not in detail and LOCATED.match(detail), f"seed {seed}: not a located one-line error: {detail}"


def test_random_programs_run_on_the_gpu(outcomes):
    """None of the first 300 seeds is refused: a refusal here is a capability lost (or, for
    seeds past those, one to look at)."""
    refused = {seed: detail for seed, (outcome, detail) in outcomes.items() if outcome != "ok"}
    assert not refused, f"refused on the emulated GPU: {refused}"
