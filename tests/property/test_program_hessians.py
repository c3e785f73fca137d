"""Second derivatives of generated programs (`standard_hessian.py`): `gradir.hessian` (forward
over reverse) of a loss made of a random standard-MLIR program or a random named-op program,
against central differences of the loss's compiled gradient, and symmetric. A rule whose
backward is right but whose own derivative is not (second order runs every backward through
forward mode) shows here and nowhere else. CI checks a few seeds of each generator; more:

    python tests/property/standard_hessian.py 0 100          # standard programs
    python tests/property/standard_hessian.py 0 100 named    # named-op programs

(the first 20 standard and 14 named seeds: no wrong Hessian; two standard ones vacuous:
linear programs).
"""

from __future__ import annotations

import named_programs
import numpy as np
import pytest
import standard_hessian
import standard_programs

SEEDS = {"standard": [1, 13, 23], "named": [10, 13]}
"""Seeds whose Hessians are not zero (a linear program's would check nothing), with a loop
(23), a while loop (13), and three arguments or fewer: each argument is one vmap of the
gradient's jvp to compile, and a six-argument Hessian of a generated program took a minute."""
GENERATORS = {"standard": standard_programs.generate, "named": named_programs.generate}


@pytest.mark.parametrize(
    ("generator", "seed"), [(g, s) for g, seeds in SEEDS.items() for s in seeds], ids=lambda v: str(v)
)
def test_hessian_matches_differences_of_the_gradient(generator, seed):
    outcome, detail = standard_hessian.check_hessian(seed, GENERATORS[generator])
    assert outcome == "ok", f"{generator} seed {seed}: {outcome}: {detail}"


def test_a_wrong_hessian_is_caught(monkeypatch):
    """The check itself: a Hessian block off by 1e-4 of its largest entry makes the program `wrong`."""
    import gradir

    real = gradir.hessian

    def perturbed(*args, **kwargs):
        compiled = real(*args, **kwargs)

        def call(*inputs):
            blocks = [np.array(b) for b in compiled(*inputs)]
            blocks[0] += 1e-4 * max(float(np.max(np.abs(b))) for b in blocks)
            return blocks

        return call

    monkeypatch.setattr(gradir, "hessian", perturbed)
    outcome, detail = standard_hessian.check_hessian(1, standard_programs.generate)
    assert outcome == "wrong", (outcome, detail)
