"""The corpus of programs from other projects' AD test suites (see run_corpus.py).

Every program is checked once per session (two worker processes). A program
must pass, or fail exactly as `EXPECTED` says: the table lists today's known
failures, one line each, with a substring of the first error line, so that a
program that starts passing, fails differently or fails without being listed
makes this test fail and the table is kept up to date as gradir improves.

A wrong gradient or value (gradcheck or PyTorch mismatch after the pipeline
succeeded) is never an expected failure: such a program fails here whatever
the table says. Give it the category `WRONG` so the message says it loudly.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import references  # noqa: E402
import run_corpus  # noqa: E402

# Causes of failure: category -> what gradir lacks. STATUS.md groups by these.
CATEGORIES = {
    "scalar-argument": "a float scalar (f32/f64) argument to differentiate: `autodiff-opt --pipeline grad` differentiates it, but gradcheck and the CPU runtime take only tensors (scalars at the runtime boundary are the runtime work)",
    "scalar-result": "the differentiated function returns a float scalar: `--pipeline grad` differentiates it, but gradcheck and the CPU runtime take only tensors",
    "math-no-rule": "a math op without a derivative rule (math.atan, math.fma, math.log2)",
    "parse-sparse-constant": "xDSL's parser rejects `arith.constant sparse<...>` (a sparse elements attribute): `attribute expected`",
    "parse-multi-result-generic": "xDSL's parser rejects a linalg.generic with several results, `} -> (tensor<..>, tensor<..>)`: `Expected '->'` on the next line",
    "named-linalg-unregistered": "a named linalg op xDSL 0.74 does not know (linalg.dot, linalg.matvec, linalg.batch_matmul, linalg.softmax): `Operation ... is not registered`",
    "conv-pool-unregistered": "a convolution or pooling op xDSL 0.74 does not know (linalg.conv_2d, depthwise_conv_2d_nhwc_hwc, pooling_nhwc_sum/max, pooling_nchw_sum)",
    "conv-pool-no-rule": "a convolution or pooling op xDSL parses but gradir has no derivative rule for (linalg.conv_2d_nhwc_hwcf, linalg.pooling_nchw_max)",
    "generic-map-not-projected-permutation": "a linalg.generic whose indexing map is not a projected permutation: `(d0 + 1) mod 3`, sliding windows `d0 + d3`, constant results `(0, d1, d2, d3)`",
    "generic-reduction-not-addf": "a reduction generic that does not combine with arith.addf (`acc - x`, a max by cmpf + select)",
    "body-op-no-rule": "an op inside a linalg.generic body without a scalar derivative rule (func.call, scf.if)",
    "parse-trait-alias": "xDSL's parser rejects `linalg.generic #trait ins(...)` (the trait dictionary as an alias)",
    "scalar-runtime": "a float scalar argument or result: the CPU runtime and gradcheck accept only tensors",
    "scf-scalar-state": "reverse mode of an scf.for with a float scalar iteration argument",
    "scf-while": "scf.while has no derivative rule",
    "affine": "affine.for/affine ops have no derivative rule",
    "scf-for-result-returned": "reverse mode of an scf.for whose result is returned directly by the function",
    "scf-captured-scalar": "an scf.if/scf.for reading an active float scalar defined outside it (reverse mode)",
    "not-front-end-output": "an op only an optimisation after differentiation makes (MLIR's Winograd rewrite of a convolution): differentiate what it was made from",
    "other": "see the reason",
    "WRONG": "the pipeline succeeds and the numbers are wrong (never an expected failure)",
}

_SCALAR_ARGUMENT = "does not name a float tensor argument"
_SCALAR_RESULT = "must return only float tensors to be gradchecked"

# name -> (category, one-line reason, substring of the first error line)
EXPECTED: dict[str, tuple[str, str, str]] = {
    "mlir_winograd_conv2d": ("not-front-end-output", "linalg.winograd_*_transform: made by transform.structured.winograd_conv2d from a convolution; xDSL 0.74 and gradir do not define them",
                             "Operation linalg.winograd_filter_transform is not registered"),
}  # fmt: skip

PROGRAMS = run_corpus.discover()
NAMES = [program.name for program in PROGRAMS]


@pytest.fixture(scope="session")
def corpus_results():
    """Every program checked once (run_corpus.JOBS worker processes), with CI's stages
    (`run_corpus.check_program`; every stage with GRADIR_CORPUS_SWEEP=all)."""
    return run_corpus.run_all(PROGRAMS, every_stage=run_corpus.sweeps_everything())


def test_corpus_files_are_well_formed():
    assert len(PROGRAMS) >= 45
    for program in PROGRAMS:
        text = program.path.read_text()
        for line in ("// Source: ", "// What: ", "// Adaptations: "):
            assert line in text.split(run_corpus.MARKER)[0], f"{program.name}: no '{line.strip()}' header line"
        if program.inputs == "recorded":
            assert run_corpus.recorded_path(program).exists(), f"{program.name}: inputs=recorded but no .npz"
        else:
            assert program.inputs in references.INPUTS, f"{program.name}: unknown inputs={program.inputs}"
        if program.reference == "jax":
            assert program.inputs == "recorded", f"{program.name}: reference=jax needs inputs=recorded"
        elif program.reference is not None:
            assert program.reference in references.REFERENCES, f"{program.name}: unknown reference={program.reference}"


def test_expected_table_is_consistent():
    unknown = sorted(set(EXPECTED) - set(NAMES))
    assert not unknown, f"EXPECTED lists programs that are not in the corpus: {unknown}"
    for name, (category, reason, match) in EXPECTED.items():
        assert category in CATEGORIES, f"{name}: unknown category {category!r}"
        assert reason and "\n" not in reason and match, f"{name}: give a one-line reason and an error substring"


@pytest.mark.parametrize("name", NAMES)
def test_corpus_program(name, corpus_results):
    result = corpus_results[name]
    listed = EXPECTED.get(name)
    where = f"{name} [{result.stage}]: {result.error}"
    if result.status == "invalid":
        pytest.fail(f"the corpus file itself is wrong: {where}")
    if result.status == "wrong":
        known = " (listed as WRONG in EXPECTED)" if listed and listed[0] == "WRONG" else ""
        pytest.fail(f"WRONG GRADIENT OR VALUE{known}: the pipeline succeeded and the numbers are wrong: {where}")
    if listed and listed[0] == "WRONG":
        pytest.fail(f"{name} is listed as WRONG but is now '{result.status}': update EXPECTED ({where})")
    if result.status == "pass":
        if listed:
            pytest.fail(f"{name} passes now: remove it from EXPECTED (was: {listed[1]})")
        return
    if not listed:
        pytest.fail(f"{name} fails and is not listed in EXPECTED: {where}")
    category, reason, match = listed
    if match not in result.error:
        pytest.fail(
            f"{name} fails differently from EXPECTED ({category}: {reason}; expected {match!r} in the error): {where}"
        )


def _doubled_gradient_colsum(a):
    """colsum's value with twice its gradient: what a wrong derivative looks like."""
    return a.detach().sum(0) + 2 * (a - a.detach()).sum(0)


def _wrong_value_colsum(a):
    return a.sum(0) + 1.0


@pytest.mark.parametrize("every_stage", [True, False], ids=["every-stage", "ci-stages"])
def test_runner_reports_a_wrong_gradient_and_a_wrong_reference(monkeypatch, every_stage):
    """The classification itself: a gradient that disagrees with torch.autograd is
    `wrong` (never an expected failure), a reference that disagrees with MLIR 22
    running the program is `invalid` (the corpus is at fault); with CI's stages too,
    where stage `primal` runs only after a disagreement."""
    program = next(p for p in PROGRAMS if p.name == "lagrad_generic_colsum")
    monkeypatch.setitem(references.REFERENCES, "doubled_gradient", _doubled_gradient_colsum)
    monkeypatch.setitem(references.REFERENCES, "wrong_value", _wrong_value_colsum)

    with_reference = {**run_corpus.asdict_program(program), "reference": "doubled_gradient"}
    wrong = run_corpus.check_program(run_corpus.Program(**with_reference), every_stage)
    assert (wrong.status, wrong.stage) == ("wrong", "reference"), wrong
    assert "vjp wrt argument 0 vs torch.autograd" in wrong.error
    assert wrong.stages["primal"] == "ok" and wrong.stages["opt"] == "ok", wrong.stages

    with_reference = {**run_corpus.asdict_program(program), "reference": "wrong_value"}
    invalid = run_corpus.check_program(run_corpus.Program(**with_reference), every_stage)
    assert (invalid.status, invalid.stage) == ("invalid", "primal"), invalid


def test_ci_stages_skip_primal_and_opt_only_where_a_program_passes(monkeypatch):
    """CI's stages: a passing program outside the sweeps' sample runs neither `primal` nor
    `opt`; one in the sample runs `opt`; every stage runs both."""
    monkeypatch.delenv("GRADIR_CORPUS_SWEEP", raising=False)  # the sample, not all
    outside = next(p for p in PROGRAMS if p.reference and not run_corpus.sweep_sample([p]))
    inside = next(p for p in PROGRAMS if p.reference and run_corpus.sweep_sample([p]))
    ran = []
    for name in ("run_opt", "check_primal"):
        real = getattr(run_corpus, name)
        monkeypatch.setattr(run_corpus, name, lambda *a, _real=real, _name=name: ran.append(_name) or _real(*a))

    def stages_run(program, every_stage):
        ran.clear()
        result = run_corpus.check_program(program, every_stage)
        assert result.status == "pass", result
        return sorted(ran)

    assert stages_run(outside, False) == []
    assert stages_run(inside, False) == ["run_opt"]
    assert stages_run(outside, True) == ["check_primal", "run_opt"]


def test_runner_reports_a_gradient_that_disagrees_with_a_recorded_jax_grad(tmp_path):
    """`reference=jax`: the recorded `jax.grad` is the oracle; doubling it makes gradir `wrong`."""
    import numpy as np

    program = next(p for p in PROGRAMS if p.name == "jax_logsumexp")
    copy = tmp_path / program.path.name
    copy.write_text(program.path.read_text())
    recorded = dict(np.load(run_corpus.recorded_path(program)))
    recorded["grad0"] = 2 * recorded["grad0"]
    np.savez(copy.with_suffix(".npz"), **recorded)
    wrong = run_corpus.check_program(run_corpus.Program(**{**run_corpus.asdict_program(program), "path": copy}))
    assert (wrong.status, wrong.stage) == ("wrong", "reference"), wrong
    assert "vjp wrt argument 0 vs jax.grad" in wrong.error


def test_the_corpus_gradchecks_at_its_opt_level(monkeypatch):
    """The gradcheck stage compiles at `run_corpus.OPT_LEVEL` (-O0: most of the corpus's
    time was LLVM's code generation at -O2)."""
    from gradir.cpu_backend import cpu_runtime

    levels = []
    real = cpu_runtime._compiled

    def recording(text, opt_level, threads, *deferred):
        levels.append(opt_level)
        return real(text, opt_level, threads, *deferred)

    monkeypatch.setattr(cpu_runtime, "_compiled", recording)
    monkeypatch.setenv("GRADIR_CACHE", "0")
    program = next(p for p in PROGRAMS if p.name == "lagrad_generic_colsum")
    inputs = run_corpus.make_inputs(program, run_corpus._mlir22_inspect(program)[0])  # noqa: SLF001
    assert run_corpus.check_compiled(program, inputs)[0] == "pass"
    assert levels == [run_corpus.OPT_LEVEL] == [0]
