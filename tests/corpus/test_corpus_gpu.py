"""Corpus programs through the GPU pipeline (gpu_sweep.py; in CI the programs named below and
a thirty-sixth of the others, `run_corpus.sweep_sample`): its vjp, and the vmap of
its vjp, with the kernels emulated on the CPU, against the CPU pipeline, in f64.

A result the GPU computes differently is never expected. A program must run, or be refused
exactly as `EXPECTED_REFUSALS` says: every vjp of a program whose entry has static shapes
runs (a reverse loop's tape over a run-time trip count included:
`tests/gpu_backend/test_run_time_sizes.py`), one of dynamic shape is refused with the GPU
target's one-line error (`STATIC_BOUNDARY`), and a vmap that `test_corpus_vmap.py` lists as
refused is refused here too. A program that starts running,
or is refused differently, fails here, so the table follows what the GPU pipeline can take."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gpu_sweep  # noqa: E402
import run_corpus  # noqa: E402
import vmap_sweep  # noqa: E402
from test_corpus import EXPECTED as CORPUS_FAILURES  # noqa: E402
from test_corpus_vmap import EXPECTED_REFUSALS as VMAP_REFUSALS  # noqa: E402

VMAP = "refused by vmap (test_corpus_vmap.py)"

# name -> (vjp, vmap): "ok", VMAP, or a substring of the GPU pipeline's one-line error.
EXPECTED_REFUSALS: dict[str, tuple[str, str]] = {}

STATIC_BOUNDARY = "the GPU target needs static shapes at a public function's boundary"
"""The refusal of a program whose entry takes or returns a tensor of dynamic shape (both
modules: the vmap's batched arguments keep the dynamic sizes)."""


def expected_outcomes(program: run_corpus.Program) -> tuple[str, str]:
    """(vjp, vmap): `EXPECTED_REFUSALS`'s entry, the static-boundary refusal, or both "ok"."""
    if program.name in EXPECTED_REFUSALS:
        return EXPECTED_REFUSALS[program.name]
    inputs, results, _ = run_corpus._mlir22_inspect(program)  # noqa: SLF001
    if vmap_sweep.has_dynamic_shape(inputs) or vmap_sweep.has_dynamic_shape(results):
        return STATIC_BOUNDARY, STATIC_BOUNDARY
    return "ok", "ok"


NAMED = {"lagrad_scf_forintermediate", "jax_attention", "jax_mlp", "torchmlir_resnet_block",
         "mlir_conv_2d_nhwc_hwcf", "mlir_pooling_nhwc_max", "lagrad_batch_matmul",
         "enzyme_math_sqrt", "lagrad_generic_closure", "lagrad_gmm_adbench",
         "enzyme_while_fwd", "enzyme_affine_for_rev",  # scf.while, affine.for
         "enzyme_scf_while_rev", "jax_rnn",  # tapes of run-time length
         "jax_cross_entropy"}  # fmt: skip  (vmap of a gather from a batched tensor)
"""Programs the tests below name: always swept."""

SLOW = {"lagrad_hand_objective": 93, "torchmlir_lenet": 63, "lagrad_lstm": 43, "lagrad_gmm_full": 35,
        "jax_nn_activations": 41}
"""Programs whose sweep took longer than 30 s (name -> seconds, on 2 cores): two thirds of the CI
sweep's time for a tenth of its programs. Swept with `GRADIR_CORPUS_SWEEP=all` only; what each
covers, a named program covers (host loops: jax_rnn, lagrad_scf_forintermediate; a gather from a
batched tensor: jax_cross_entropy; ADBench GMM: lagrad_gmm_adbench; elementwise math of JAX's
export, jax.nn's activations: jax_mlp, jax_attention)."""

PROGRAMS = {
    program.name: program
    for program in run_corpus.sweep_sample(run_corpus.discover(), NAMED | set(EXPECTED_REFUSALS), run_corpus.GPU_SWEEP_SHARE)
    if program.name not in CORPUS_FAILURES
    and (program.name not in SLOW or run_corpus.sweeps_everything())
}
"""The programs the sweep takes (`run_corpus.sweep_sample`), less those the corpus lists as failing
and the `SLOW` ones."""


@pytest.fixture(scope="module")
def sweep_results():
    return {name: gpu_sweep.check(program) for name, program in PROGRAMS.items()}


def test_expected_refusals_are_consistent():
    assert not set(EXPECTED_REFUSALS) - set(PROGRAMS), "EXPECTED_REFUSALS lists programs not in the corpus"
    assert set(SLOW) <= {program.name for program in run_corpus.discover()} and not set(SLOW) & NAMED
    for name, (_, vmap) in EXPECTED_REFUSALS.items():
        assert (vmap == VMAP) == (name in VMAP_REFUSALS), name


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_corpus_program_on_the_emulated_gpu(name, sweep_results):
    result = sweep_results[name]
    for label, expected in zip(("vjp", "vmap"), expected_outcomes(PROGRAMS[name])):
        outcome, detail = result.outcomes[label]
        where = f"{name} {label}: {outcome} {detail}"
        assert outcome not in ("wrong", "fail"), where
        if expected == "ok":
            assert outcome == "ok", f"not expected to be refused: {where}"
        elif outcome == "ok":
            pytest.fail(f"{name} {label} runs on the GPU now: update EXPECTED_REFUSALS (was: {expected})")
        elif expected == VMAP:
            assert outcome == "refused" and "vmap of" in detail, where
        else:
            assert outcome == "refused" and expected in detail, where


def test_every_corpus_vjp_runs_on_the_gpu(sweep_results):
    running = [name for name, result in sweep_results.items() if result.outcomes["vjp"][0] == "ok"]
    static = [name for name, program in PROGRAMS.items() if expected_outcomes(program)[0] != STATIC_BOUNDARY]
    assert sorted(running) == sorted(static)
    assert all(vjp == "ok" for vjp, _ in EXPECTED_REFUSALS.values())
    # Loops on the host launching kernels, branches, named linalg ops, a branch passing on a
    # slice of its input (gpu_backend/branch_results.py), convolutions and pooling; scalar
    # functions, scalar results and scalar gradients (map_to_gpu._scalars_across):
    assert NAMED <= set(running)
    vmapped = [name for name, result in sweep_results.items() if result.outcomes["vmap"][0] == "ok"]
    assert {"enzyme_scf_while_rev", "jax_rnn"} <= set(vmapped)  # vmap broadcasts an unbatched tape
