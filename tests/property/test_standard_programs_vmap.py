"""Random standard-MLIR programs batched (`standard_vmap.py`): `autodiff.vmap` of each program,
and of its vjp, against a loop of the same compiled function over examples that each take
their own branches, trip counts and gathered indices (f64, the real CPU pipeline). A wrong
batched value or gradient is the worst outcome a batching rule can have; no refusal is
expected either: the generator emits what `autodiff-vmap` batches.

Deterministic like `test_standard_programs.py` (the same seeds, programs and inputs), in
batches of `BATCH` per child process. More seeds locally:

    GRADIR_VMAP_PROGRAMS=400 .venv/bin/pytest tests/property/test_standard_programs_vmap.py
    GRADIR_STANDARD_SEED=10000 GRADIR_VMAP_PROGRAMS=400 ...   # another range

`python tests/property/standard_vmap.py SEED` checks one program again.
"""

from __future__ import annotations

import pytest
import standard_vmap
from property_support import batch_failures
from standard_programs import generate
from test_standard_programs import batches

CI_PROGRAMS = 8
"""One child batch (`test_standard_programs.BATCH`)."""


@pytest.mark.parametrize("seeds", batches("GRADIR_VMAP_PROGRAMS", CI_PROGRAMS), ids=lambda seeds: f"seeds{seeds[0]}-{seeds[-1]}")
def test_random_programs_batch_as_a_loop_over_their_examples(seeds):
    failures = batch_failures(seeds, standard_vmap.__file__, generate)
    assert not failures, "\n\n".join(failures)


def test_the_examples_take_their_own_paths():
    """The batch is worth checking: its examples differ in the branches they take (the
    generator's margins hold for each), not only in their values."""
    from standard_programs import examples

    batch = examples(2, standard_vmap.SIZE)
    assert len(batch) == standard_vmap.SIZE
    inputs = [x for x, _ in batch]
    assert all(any((a != b).any() for a, b in zip(inputs[0], other)) for other in inputs[1:])


def test_a_batching_rule_that_mixes_lanes_is_caught(monkeypatch):
    """The check itself: a `linalg.generic` rule that gives every lane lane 0's values
    makes a program `wrong`, never `ok`."""
    from gradir.autodiff_pass.rules import batching
    from standard_programs import examples

    real = batching.get_batching_rule("linalg.generic")

    def first_lane_only(builder, op, operands, flags):
        from xdsl.dialects import tensor

        pairs = real(builder, op, operands, flags)
        mixed = []
        for value, is_batched in pairs:
            shape = list(value.type.get_shape())
            first = builder.insert(
                tensor.ExtractSliceOp.from_static_parameters(value, [0] * len(shape), [1, *shape[1:]])
            ).results[0]
            mixed.append((builder.materialize(builder.reshape(first, shape[1:]), False), is_batched))
        return mixed

    monkeypatch.setattr(batching, "_rules", dict(batching._all_rules()))
    batching.register_batching_rule("linalg.generic", first_lane_only)
    program = generate(0)
    outcome = standard_vmap.check_program(standard_vmap._compiled([program]), program, examples(0, standard_vmap.SIZE))
    assert outcome["status"] == "wrong", outcome
