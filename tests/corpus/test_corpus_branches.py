"""The corpus again, its loops and branches written as branches between blocks.

Every corpus program (in CI: a sixth of them, `SHARE`) with an `scf.for`, `scf.while`, `scf.if` or `affine.for` in its
upstream part is rewritten by MLIR 22's own `lower-affine,convert-scf-to-cf` (what a C-like
front end, or a program lowered once, looks like: `cf.br`/`cf.cond_br` between blocks, loop
states as block arguments) and checked exactly as the corpus is (`run_corpus`: gradcheck of
vjp and jvp against central differences, f64, and the PyTorch / JAX reference). gradir
lifts the branches back (`lift-control-flow`), so every one must pass; a wrong gradient
here is `wrong`, never skipped.
"""
from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_corpus  # noqa: E402
from test_corpus import EXPECTED as CORPUS_FAILURES  # noqa: E402

NOT_LOWERED = {
    "lagrad_generic_logsumexp_1d": "linalg.generic",
    "lagrad_relu": "linalg.generic",
    "lagrad_gmm_adbench": "linalg.generic",
    "lagrad_gmm_compressed": "linalg.generic",
    "stablehlo_concatenate": "linalg.generic",
}
"""Programs MLIR cannot write with branches: an `scf.if` inside a `linalg.generic` body
(a body is one block). Name -> the op MLIR names in its refusal."""

NO_BRANCH_LEFT = {
    "enzyme_for3_carry_affine": "its affine.for yields a loop-invariant value, which lower-affine folds away",
}
"""Programs with a loop MLIR's lowering leaves no branch of. Name -> why."""

NAMED = {"enzyme_while_fwd", "enzyme_affine_for_rev", "lagrad_scf_forintermediate"}
"""Always rewritten (an scf.while, an affine.for, an scf.for with intermediate values), so that
CI's share of the corpus holds each kind of loop."""

CONTROL_FLOW = re.compile(r"\b(scf\.(for|while|if)|affine\.for)\b")

SHARE = 6
"""This sweep's share of the corpus (`run_corpus.sweep_sample`): a sixth, where the others take a
twelfth. Only programs with control flow are rewritten, a fifth of the corpus, and a twelfth
left 5 of them (the test asks for 10 or more, so that each kind of loop is seen); a sixth
gives 13, about 35 s of one CI worker."""


def with_branches(program: run_corpus.Program) -> str:
    """The program's file with its upstream part rewritten by `convert-scf-to-cf`; raises
    MLIR's error where it cannot be."""
    from mlir import ir, passmanager

    text = program.path.read_text()
    upstream, entry = text.split(run_corpus.MARKER, 1)
    header = "".join(line + "\n" for line in upstream.splitlines() if line.startswith("//"))
    context = ir.Context()
    module = ir.Module.parse(run_corpus._upstream_text(program), context)
    passmanager.PassManager.parse("builtin.module(lower-affine,convert-scf-to-cf)", context).run(module.operation)
    body = "\n".join(str(op) for op in module.body.operations)
    assert "cf.br" in body or "cf.cond_br" in body, f"{program.name}: no branch after convert-scf-to-cf"
    return header + body + "\n" + run_corpus.MARKER + entry


def test_corpus_written_with_branches(tmp_path):
    from mlir import ir

    programs = []
    for program in run_corpus.sweep_sample(run_corpus.discover(), NAMED | set(NOT_LOWERED) | set(NO_BRANCH_LEFT), SHARE):
        if program.name in CORPUS_FAILURES or not CONTROL_FLOW.search(run_corpus._upstream_text(program)):
            continue
        if program.name in NO_BRANCH_LEFT:
            with pytest.raises(AssertionError, match="no branch after convert-scf-to-cf"):
                with_branches(program)
            continue
        if program.name in NOT_LOWERED:
            with pytest.raises(ir.MLIRError, match=NOT_LOWERED[program.name]):
                with_branches(program)
            continue
        path = tmp_path / program.path.name
        path.write_text(with_branches(program))
        recorded = run_corpus.recorded_path(program)
        if recorded.exists():
            shutil.copyfile(recorded, tmp_path / recorded.name)
        programs.append(run_corpus.load_program(path))
    assert len(programs) >= 10
    results = run_corpus.run_all(programs)
    failed = {name: f"{r.status} at {r.stage}: {r.error}" for name, r in results.items() if r.status != "pass"}
    assert not failed, failed
    assert len(results) == len(programs)
