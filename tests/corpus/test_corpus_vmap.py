"""Per-example gradients of corpus programs (vmap_sweep.py; in CI the programs named below
and a twelfth of the others, `run_corpus.sweep_sample`): `autodiff.vmap` of the
program's vjp against a loop of the same compiled vjp over the examples (integer arguments
batched too, each example its own, except where `EXPECTED_INTEGER_REFUSALS` says they cannot
be), and, where its results are small, `autodiff.jacobian` against the vjp at one-hot
cotangents.

A program must pass, or be refused exactly as `EXPECTED_REFUSALS` says (a substring of
the one-line error): a program that starts passing, is refused differently or is refused
without being listed fails here, so the table follows what vmap can batch. A wrong
batched gradient is never expected."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run_corpus  # noqa: E402
import vmap_sweep  # noqa: E402
from test_corpus import EXPECTED as CORPUS_FAILURES  # noqa: E402

CATEGORIES = {
    "body-reads-batched-tensor": "a linalg.generic body uses a batched tensor from outside other than by reading "
    "an element (a gather, which batches) or an extent of it",
    "sized-by-the-example": "a tensor whose size depends on the example (the batch holds the largest) used other than "
    "at indices",
}

# name -> (category, substring of the one-line error). Empty since 2026-11-30: the last four
# (tensors of dynamic shape) batch now.
EXPECTED_REFUSALS: dict[str, tuple[str, str]] = {}


NAMED = {"mlir_conv_2d_nhwc_hwcf", "mlir_pooling_nhwc_max", "mlir_tensor_matmul", "lagrad_batch_matmul",
         "torchmlir_resnet_head", "jax_mlp",
         "torchmlir_resnet_stem", "torchmlir_resnet_block",  # tensor.pad, its padding a captured constant
         "enzyme_while_fwd", "lagrad_tensor_extract",  # a called function returning a batched f64
         "lagrad_generic_logsumexp_1d", "lagrad_gmm_full",  # a generic reading a batched scalar
         "mlir_depthwise_conv_2d",
         # a body gathering from a batched tensor (an embedding row, a label's log-probability)
         "jax_cross_entropy", "torchmlir_lenet", "jax_cookbook_transformer", "jax_gp_kernel",
         # tensors of dynamic shape: a matmul, expand_shape to run-time sizes, a body reading a
         # batched extent, loop states and a pad of run-time size
         "torchmlir_mlp2_dyn", "torchmlir_softmax_dyn", "stablehlo_concatenate", "mlir_init_and_dot",
         "mlir_pad_dynamic_amount",
         # per-example integers: two-coordinate gather indices, an i32 result beside the floats
         "mlir_gather_two_dims_no_shrink", "enzyme_multiret_mixed"}  # fmt: skip
"""Programs the tests below name: always swept."""

SLOW = {"lagrad_hand_objective": 20, "lagrad_nn_mlp": 12}
"""Programs of the CI sample whose sweep took longer than 10 s (name -> seconds, alone on 2 cores;
a quarter of the sample's 133 s): swept with `GRADIR_CORPUS_SWEEP=all` only. What they cover,
named programs cover: scf.for loops writing tensors element by element, func.call and
matmuls in a loop (lagrad_tensor_extract, enzyme_while_fwd, jax_rnn); an MLP's matmuls,
ReLU generics and a cross-entropy over integer labels (jax_mlp, jax_cross_entropy,
torchmlir_lenet)."""

EXPECTED_INTEGER_REFUSALS: dict[str, str] = {
    "iree_concat_expand_dynamic": "vmap of 'tensor.expand_shape' is not supported (its output sizes depend on the batch)",
    "iree_insert_slice_dynamic_into_constant": "vmap of 'tensor.insert_slice' is not supported (its offsets depend",
    "iree_pad_conv_dynamic_generic": "vmap of 'tensor.pad' is not supported (its padding amounts depend on the batch)",
    "iree_pad_conv_dynamic_named": "vmap of 'tensor.pad' is not supported (its padding amounts depend on the batch)",
    "mlir_forall_chunked_exp": "vmap of 'tensor.extract_slice' is not supported (its offsets depend on the batch",
    "mlir_pad_dynamic_amount": "vmap of 'tensor.pad' is not supported (its padding amounts depend on the batch)",
    "mlir_scf_for_swapped_yields": "vmap of 'scf.for' is not supported (its lower bound or step depends on the batch)",
    "stablehlo_dynamic_slice": "vmap of 'tensor.extract_slice' is not supported (its offsets depend on the batch",
    "stablehlo_dynamic_update_slice": "vmap of 'tensor.insert_slice' is not supported (its offsets depend on the batch",
    "stablehlo_real_dynamic_slice": "vmap of 'tensor.extract_slice' is not supported (its offsets depend on the batch",
}
"""Programs whose integer arguments cannot be batched (each example its own): a slice offset, a
padding amount, an expanded size or a loop's lower bound per example. Name -> the substring of
the one-line refusal; the sweep then shares their integers, and the rest must pass as before."""

PROGRAMS = {
    program.name: program
    for program in run_corpus.sweep_sample(run_corpus.discover(), NAMED | set(EXPECTED_REFUSALS))
    if program.name not in CORPUS_FAILURES
    and (program.name not in SLOW or run_corpus.sweeps_everything())
}
"""The programs the sweep takes (`run_corpus.sweep_sample`), less those the corpus lists as failing
and the `SLOW` ones."""


@pytest.fixture(scope="module")
def sweep_results():
    return {name: vmap_sweep.check(program) for name, program in PROGRAMS.items()}


def test_expected_refusals_are_consistent():
    assert not set(EXPECTED_REFUSALS) - set(PROGRAMS), "EXPECTED_REFUSALS lists programs not in the corpus"
    assert set(EXPECTED_INTEGER_REFUSALS) <= {program.name for program in run_corpus.discover()}
    assert all(category in CATEGORIES for category, _ in EXPECTED_REFUSALS.values())
    assert set(SLOW) <= {program.name for program in run_corpus.discover()} and not set(SLOW) & NAMED


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_per_example_gradients_of_corpus_program(name, sweep_results):
    result = sweep_results[name]
    listed = EXPECTED_REFUSALS.get(name)
    where = f"{name}: {result.status} {result.detail}"
    integers = EXPECTED_INTEGER_REFUSALS.get(name)
    if result.integers.startswith("refused"):
        assert integers, f"{name}: its integer arguments are not batched, and it is not listed: {result.integers}"
        assert integers in result.integers, f"{name}: integers refused otherwise than listed ({integers}): {result.integers}"
    else:
        assert not integers, f"{name}: its integers batch now ({result.integers}): remove it from EXPECTED_INTEGER_REFUSALS"
    if result.status == "pass":
        assert not listed, f"{name} is batched now: remove it from EXPECTED_REFUSALS (was: {CATEGORIES[listed[0]]})"
        # Its whole Jacobian too, where the results are small (a vmap over the output basis).
        assert result.jacobian == "pass" or result.jacobian.startswith("n/a: "), f"{name}: jacobian {result.jacobian}"
        return
    assert result.status == "refused", f"not a located refusal: {where}"
    assert listed, f"{name} is refused and not listed in EXPECTED_REFUSALS: {where}"
    assert listed[1] in result.detail, f"{name} is refused differently from EXPECTED_REFUSALS ({listed}): {where}"


def test_the_sweep_batches_most_of_the_corpus(sweep_results):
    """The counts the sweep reports (the table above lists every other program)."""
    passed = sorted(name for name, result in sweep_results.items() if result.status == "pass")
    assert len(passed) == len(PROGRAMS) - len(EXPECTED_REFUSALS)
    assert NAMED - {"mlir_depthwise_conv_2d"} <= set(passed)
    jacobians = sorted(name for name in passed if sweep_results[name].jacobian == "pass")
    assert {"mlir_depthwise_conv_2d", "mlir_tensor_matmul", "torchmlir_resnet_head"} <= set(jacobians)


def test_a_wrong_batching_rule_is_caught(monkeypatch):
    """The sweep's own check: a linalg.matmul rule that gives every example the first
    example's product makes the program `wrong`, never `pass`."""
    from xdsl.dialects import tensor

    from gradir.autodiff_pass.rules import batching

    monkeypatch.setenv("GRADIR_CACHE", "0")
    real = batching.get_batching_rule("linalg.matmul")

    def first_example_only(builder, op, operands, batched):
        [(product, _)] = real(builder, op, operands, batched)
        shape = list(product.type.get_shape())
        first = builder.insert(
            tensor.ExtractSliceOp.from_static_parameters(product, [0] * len(shape), [1, *shape[1:]])
        ).results[0]
        return [(builder.materialize(builder.reshape(first, shape[1:]), False), True)]

    monkeypatch.setattr(batching, "_rules", dict(batching._all_rules()))
    batching.register_batching_rule("linalg.matmul", first_example_only)
    result = vmap_sweep.check(PROGRAMS["torchmlir_mlp_log_softmax"])
    assert result.status == "wrong", result
