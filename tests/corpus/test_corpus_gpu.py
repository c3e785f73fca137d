"""Every corpus program through the GPU pipeline (gpu_sweep.py): its vjp, and the vmap of
its vjp, with the kernels emulated on the CPU, against the CPU pipeline, in f64.

A result the GPU computes differently is never expected. A program must run, or be refused
exactly as `EXPECTED_REFUSALS` says: the GPU pipeline maps linalg ops, copies and constants
onto the GPU and keeps loops and branches on the host, so a program computing on scalars on
the host (a scalar function, a scalar loop, reading one element of device data) is refused
at the op, and a vmap that `test_corpus_vmap.py` lists as refused is refused here too. A
program that starts running, or is refused differently, fails here, so the table follows
what the GPU pipeline can take."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gpu_sweep  # noqa: E402
import run_corpus  # noqa: E402
from test_corpus_vmap import EXPECTED_REFUSALS as VMAP_REFUSALS  # noqa: E402

VMAP = "refused by vmap (test_corpus_vmap.py)"

# name -> (vjp, vmap): "ok", VMAP, or the op the GPU pipeline names ("'<op>' would run on the host").
EXPECTED_REFUSALS = {
    "enzyme_affine_for_rev": ("affine.for", "affine.for"),
    "enzyme_affine_loop_fwd": ("affine.for", "affine.for"),
    "enzyme_for2_fwd": ("arith.addf", "arith.addf"),
    "enzyme_for_partial_inactive": ("arith.mulf", VMAP),
    "enzyme_if1_fwd": ("arith.select", "arith.select"),
    "enzyme_math_atan": ("math.atan", "math.atan"),
    "enzyme_math_fma": ("math.fma", "math.fma"),
    "enzyme_math_log2": ("math.log2", "math.log2"),
    "enzyme_math_sqrt": ("math.sqrt", "math.sqrt"),
    "enzyme_maximumf": ("arith.maximumf", "arith.maximumf"),
    "enzyme_pow": ("arith.mulf", "arith.mulf"),
    "enzyme_scf_for_dynamic": ("arith.mulf", VMAP),
    "enzyme_scf_if_nested": ("arith.mulf", "arith.mulf"),
    "enzyme_scf_while_rev": ("scf.while", VMAP),
    "enzyme_select_relu": ("arith.cmpf", "arith.cmpf"),
    "enzyme_while_fwd": ("scf.while", "scf.while"),
    "jax_cross_entropy": ("ok", VMAP),
    "jax_layer_norm": ("memref.load", "memref.load"),
    "jax_rnn": ("scf.while", VMAP),
    "lagrad_add3": ("arith.addf", "arith.addf"),
    "lagrad_ba_reproj": ("memref.load", "memref.load"),
    "lagrad_functioncall": ("arith.mulf", "arith.mulf"),
    "lagrad_generic_closure": ("memref.load", "memref.load"),
    "lagrad_generic_logsumexp_1d": ("memref.load", "memref.load"),
    "lagrad_generic_with_call": ("arith.negf", "arith.negf"),
    "lagrad_gmm_full": ("memref.load", "memref.load"),
    "lagrad_hand_angle_axis": ("memref.load", "memref.load"),
    "lagrad_hand_apply_global_transform": ("memref.load", "memref.load"),
    "lagrad_hand_compute_err": ("ok", "memref.load"),
    "lagrad_hand_objective": ("memref.load", VMAP),
    "lagrad_hand_to_pose_params": ("memref.load", "memref.load"),
    "lagrad_ifelse": ("arith.cmpf", "arith.cmpf"),
    "lagrad_lstm": ("memref.load", "memref.load"),
    "lagrad_nn_batched_crossentropy": ("memref.load", "memref.load"),
    "lagrad_nn_crossentropy": ("memref.load", "memref.load"),
    "lagrad_nn_mlp": ("memref.load", "memref.load"),
    "lagrad_scf_arrmax": ("memref.load", "memref.load"),
    "lagrad_scf_fortensor": ("memref.load", "memref.load"),
    "lagrad_scf_if_funcall": ("memref.load", "memref.load"),
    "lagrad_scf_nested_with_slice": ("memref.load", "memref.load"),
    "lagrad_scf_product": ("memref.load", "memref.load"),
    "lagrad_tanh": ("math.tanh", "math.tanh"),
    "lagrad_tensor_extract": ("memref.load", "memref.load"),
    "torchmlir_lenet": ("ok", VMAP),
}  # fmt: skip

PROGRAMS = {program.name: program for program in run_corpus.discover()}


@pytest.fixture(scope="module")
def sweep_results():
    return {name: gpu_sweep.check(program) for name, program in PROGRAMS.items()}


def test_expected_refusals_are_consistent():
    assert not set(EXPECTED_REFUSALS) - set(PROGRAMS), "EXPECTED_REFUSALS lists programs not in the corpus"
    for name, (_, vmap) in EXPECTED_REFUSALS.items():
        assert (vmap == VMAP) == (name in VMAP_REFUSALS), name


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_corpus_program_on_the_emulated_gpu(name, sweep_results):
    result = sweep_results[name]
    for label, expected in zip(("vjp", "vmap"), EXPECTED_REFUSALS.get(name, ("ok", "ok"))):
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
            assert outcome == "refused" and f"gpu-map: '{expected}' would run on the host" in detail, where


def test_most_of_the_corpus_runs_on_the_gpu(sweep_results):
    running = [name for name, result in sweep_results.items() if result.outcomes["vjp"][0] == "ok"]
    assert len(running) == len(PROGRAMS) - sum(vjp != "ok" for vjp, _ in EXPECTED_REFUSALS.values())
    # Loops on the host launching kernels, branches, named linalg ops, a branch passing on a
    # slice of its input (gpu_backend/branch_results.py), convolutions and pooling:
    assert {"lagrad_scf_forintermediate", "jax_attention", "jax_mlp", "torchmlir_resnet_block",
            "mlir_conv_2d_nhwc_hwcf", "mlir_pooling_nhwc_max", "lagrad_batch_matmul"} <= set(running)
