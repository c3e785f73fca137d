"""Random compositions of the named linalg and tensor ops (`named_programs.py`: matmuls,
convolutions, pooling, reductions, softmax, elementwise named ops, pad, concat, reshapes,
slices, an `scf.for` over some of them, and `linalg.generic`s beside them) gradchecked in float64 through the real CPU
pipeline, as `test_standard_programs.py` does the generic ones: the compiled outputs equal
the generator's NumPy evaluation, vjp and jvp match central differences, and the check is
not vacuous. CI checks the seeds 0..CI_PROGRAMS-1; more locally:

    GRADIR_NAMED_PROGRAMS=400 GRADIR_STANDARD_SEED=5000 .venv/bin/pytest tests/property/test_named_programs.py
    GRADIR_STANDARD_CHECKPOINT=2 ...   # loops reversed with checkpoint-every=2
    GRADIR_NAMED_VMAP_PROGRAMS=200 ...  # batched (named_vmap.py)

Programs with dynamic sizes (`generate(seed, dynamic=True)`, `--dynamic` to the scripts,
`GRADIR_NAMED_DYNAMIC_PROGRAMS`, `GRADIR_NAMED_DYNAMIC_VMAP_PROGRAMS`) are torch-mlir's form
of the same ops: a batch size spelled `?`, read back with `tensor.dim` for every
`tensor.empty`, and `tensor.cast` between `?` and static sizes.

The same programs are batched (`named_vmap.py`, `standard_vmap.check_batch`): `autodiff.vmap`
of each and of its vjp against a loop over examples with their own inputs, which exercises
the named ops' batching rules.

A failure names its seed: `python tests/property/named_programs.py SEED` prints the program,
`python tests/property/named_gradcheck.py SEED` checks it again.
"""

from __future__ import annotations

from collections import Counter

import named_gradcheck
import named_programs
import named_vmap
import pytest
from named_programs import generate, generate_dynamic
from property_support import batch_failures
from test_standard_programs import batches

CI_PROGRAMS = 32
CI_VMAP_PROGRAMS = 8
CI_DYNAMIC_PROGRAMS = 16
CI_DYNAMIC_VMAP_PROGRAMS = 4


def _kinds(variable: str, dynamic_variable: str, count: int, dynamic_count: int) -> list:
    """(seeds, dynamic) for each batch of static programs, then of dynamic ones."""
    return [pytest.param(seeds, False, id=f"seeds{seeds[0]}-{seeds[-1]}") for seeds in batches(variable, count)] + [
        pytest.param(seeds, True, id=f"dynamic-seeds{seeds[0]}-{seeds[-1]}")
        for seeds in batches(dynamic_variable, dynamic_count)
    ]


def _failures(seeds: list[int], dynamic: bool, script: str, **options) -> list[str]:
    return batch_failures(
        seeds, script, generate_dynamic if dynamic else generate, options=["--dynamic"] if dynamic else [], **options
    )


@pytest.mark.parametrize(
    "seeds, dynamic",
    _kinds("GRADIR_NAMED_PROGRAMS", "GRADIR_NAMED_DYNAMIC_PROGRAMS", CI_PROGRAMS, CI_DYNAMIC_PROGRAMS),
)
def test_random_named_op_programs_match_finite_differences(seeds, dynamic):
    failures = _failures(seeds, dynamic, named_gradcheck.__file__)
    assert not failures, "\n\n".join(failures)


@pytest.mark.parametrize(
    "seeds, dynamic",
    _kinds(
        "GRADIR_NAMED_VMAP_PROGRAMS", "GRADIR_NAMED_DYNAMIC_VMAP_PROGRAMS", CI_VMAP_PROGRAMS, CI_DYNAMIC_VMAP_PROGRAMS
    ),
)
def test_random_named_op_programs_batch_as_a_loop_over_their_examples(seeds, dynamic):
    # Examples that are copies of one input would not show lanes mixed up: a failure here.
    failed = lambda r: r["status"] != "ok" or "copies" in r["report"]  # noqa: E731
    failures = _failures(seeds, dynamic, named_vmap.__file__, failed=failed)
    assert not failures, "\n\n".join(failures)


def test_the_examples_differ():
    batch = named_programs.examples(3, 3)
    inputs = [x for x, _ in batch]
    assert all(any((a != b).any() for a, b in zip(inputs[0], other)) for other in inputs[1:])


FEATURES = {
    "linalg.matmul", "linalg.matmul_transposed_b", "linalg.batch_matmul", "linalg.matvec",
    "linalg.vecmat", "linalg.dot", "init.active", "init.shared_fill",
    "linalg.conv_2d_nhwc_hwcf", "linalg.conv_2d_nchw_fchw", "linalg.depthwise_conv_2d_nhwc_hwc",
    "linalg.pooling_nhwc_sum", "linalg.pooling_nhwc_max", "linalg.pooling_nchw_sum", "linalg.pooling_nchw_max",
    "window.stride_2", "window.dilation_2",
    "linalg.transpose", "linalg.broadcast", "linalg.reduce.addf", "linalg.reduce.maximumf",
    "linalg.reduce.sines", "linalg.softmax", "linalg.map", "linalg.fill.active_scalar",
    "linalg.add", "linalg.sub", "linalg.mul", "linalg.div", "linalg.max", "linalg.min",
    "linalg.exp", "linalg.log", "linalg.sqrt", "linalg.rsqrt", "linalg.tanh", "linalg.erf",
    "linalg.abs", "linalg.negf", "linalg.square", "linalg.reciprocal", "linalg.elementwise",
    "binary.same_operand", "scaled",
    "tensor.pad", "tensor.concat", "tensor.collapse_shape", "tensor.expand_shape",
    "tensor.extract_slice", "tensor.extract_slice.rank_reducing", "tensor.insert_slice",
    "scf.for", "scf.for.matmul_in_body", "sizes.medium",
    "linalg.generic.same", "linalg.generic.broadcast", "linalg.generic.transposed", "linalg.generic.reduction",
}  # fmt: skip
RARE = {"init.shared_fill", "linalg.depthwise_conv_2d_nhwc_hwc"}
"""Features the CI seeds happen to miss (each one draw among many): the first 300 seeds hold
them (`test_the_first_300_seeds_hold_every_feature`), as local runs do."""


def test_ci_seeds_cover_the_generator():
    """The fixed CI range exercises what the generator emits, and every feature it emits is listed."""
    covered = set().union(*(generate(seed).features for seed in range(CI_PROGRAMS)))
    assert FEATURES - RARE - covered == set(), f"not covered by seeds 0..{CI_PROGRAMS - 1}"
    assert covered - FEATURES == set(), "the generator emits a feature missing from FEATURES"


def test_the_first_300_seeds_hold_every_feature():
    """NumPy only (no compile): each feature, the rare ones too, in five programs or more."""
    counts = Counter(feature for seed in range(300) for feature in generate(seed).features)
    assert set(counts) == FEATURES
    assert min(counts.values()) >= 5, counts.most_common()[-3:]


DYNAMIC_FEATURES = {
    "tensor.dim", "tensor.cast.to_dynamic", "tensor.cast.to_static", "dynamic.other_batch_size",
    "scf.for.run_time_trips",
}  # fmt: skip


def test_dynamic_programs_spell_their_batch_size_as_a_question_mark():
    """Each dynamic CI program has a `?` in its signature; together they read sizes with
    `tensor.dim` and cast both ways. The static generator emits none of it."""
    programs = [generate_dynamic(seed) for seed in range(CI_DYNAMIC_PROGRAMS)]
    for program in programs:
        assert "?x" in program.text.splitlines()[0], program.text
    covered = set().union(*(p.features for p in programs))
    assert DYNAMIC_FEATURES <= covered
    assert covered - DYNAMIC_FEATURES - FEATURES == set()
    assert not any(DYNAMIC_FEATURES & generate(seed).features for seed in range(CI_PROGRAMS))


def test_dynamic_programs_are_checked_at_other_batch_sizes():
    """Most dynamic programs carry inputs at other batch sizes (the same text drawn with `B`
    of another value); the check compares the compiled code there, and says `forward` for a
    value off by 1e-6 there alone."""
    from standard_gradcheck import check_programs

    programs = [generate_dynamic(seed) for seed in range(CI_DYNAMIC_PROGRAMS)]
    assert sum(bool(p.other_sizes) for p in programs) >= CI_DYNAMIC_PROGRAMS // 2
    program = next(p for p in programs if p.other_sizes and p.inputs[0].shape != p.other_sizes[0][0][0].shape)
    (inputs, expected), *rest = program.other_sizes
    wrong = [expected[0] + 1e-6, *expected[1:]]
    program.other_sizes = ((inputs, wrong), *rest)
    [outcome] = check_programs([program])
    assert outcome["status"] == "forward" and "at input shapes" in outcome["report"], outcome
