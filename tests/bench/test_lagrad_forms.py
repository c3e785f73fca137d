"""bench/lagrad_forms.py: at the corpus sizes each of its templates (bench/lagrad_templates)
is the corpus program, and at other sizes (all different, so no placeholder can stand for
the wrong one) it still computes the corpus reference and its gradir entry the reference's
gradient; the timing protocol alternates the tools."""
import importlib.util
import pathlib
import sys
import time

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "tests" / "corpus" / "programs"

CORPUS_SIZES = {"gmm_full": {"k": 3, "d": 3, "n": 5}, "lstm": {"l": 2, "b": 3, "c": 4}}


def load_bench_module():
    spec = importlib.util.spec_from_file_location("lagrad_forms", ROOT / "bench" / "lagrad_forms.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("template", sorted(CORPUS_SIZES))
def test_the_template_at_the_corpus_sizes_is_the_corpus_program(template):
    bench = load_bench_module()
    corpus = (PROGRAMS / f"lagrad_{template}.mlir").read_text()
    instantiated = bench.instantiate(template, **CORPUS_SIZES[template])
    assert bench.program_body(instantiated) == bench.program_body(corpus)


def test_a_size_without_a_placeholder_or_a_placeholder_without_a_size_is_refused():
    bench = load_bench_module()
    with pytest.raises(KeyError, match="appear nowhere"):
        bench.instantiate("gmm_full", k=3, d=3, n=5, c=4)
    with pytest.raises(KeyError, match="no size given"):
        bench.instantiate("gmm_full", k=3, d=3)


def _compile_and_compare(torch, text, entries, arguments, reference, wrt):
    """The objective and the gradir entry's gradient against `reference` and torch.autograd."""
    import gradir

    tensors = [torch.tensor(a, requires_grad=i in wrt) for i, a in enumerate(arguments)]
    expected = reference(*tensors)
    expected_gradients = torch.autograd.grad(expected, [tensors[i] for i in wrt])
    executable = gradir.compile(text, target="cpu")
    objective, gradient = entries
    np.testing.assert_allclose(executable.call(objective, *arguments)[0], float(expected), rtol=1e-10)
    for ours, theirs in zip(executable.call(gradient, *arguments), expected_gradients, strict=True):
        np.testing.assert_allclose(ours, theirs.numpy(), rtol=1e-8, atol=1e-12)


def test_the_gmm_template_at_other_sizes_computes_the_reference():
    torch = pytest.importorskip("torch", reason="the oracle extra (torch==2.13.0) is not installed")
    sys.path.insert(0, str(ROOT / "tests" / "corpus"))
    import references

    bench = load_bench_module()
    k, d, n = 2, 4, 7
    rng = np.random.default_rng(0)
    arguments = [
        rng.standard_normal(k), rng.standard_normal((k, d)), 0.3 * rng.standard_normal((k, d)),
        0.3 * rng.standard_normal((k, d, d)), rng.standard_normal((n, d)), 1.5, 2,
    ]  # fmt: skip
    text = bench.instantiate("gmm_full", k=k, d=d, n=n)
    _compile_and_compare(torch, text, ("mlir_gmm_opt_full", "grad_gmm"), arguments, references.gmm_full, (0, 1, 2, 3))


def test_the_lstm_template_at_other_sizes_computes_the_reference():
    torch = pytest.importorskip("torch", reason="the oracle extra (torch==2.13.0) is not installed")
    sys.path.insert(0, str(ROOT / "tests" / "corpus"))
    import references

    bench = load_bench_module()
    l, b, c = 3, 5, 8  # noqa: E741 - ADBench's name
    rng = np.random.default_rng(0)
    arguments = [
        0.5 * rng.uniform(-1, 1, (l, 2, 4, b)), 0.5 * rng.uniform(-1, 1, (3, b)),
        0.5 * rng.uniform(-1, 1, (l, 2, b)), rng.uniform(0, 1, (c, b)),
    ]  # fmt: skip
    text = bench.instantiate("lstm", l=l, b=b, c=c)
    _compile_and_compare(torch, text, ("mlstm_objective", "grad_lstm"), arguments, references.lstm_objective, (0, 1))


def test_the_race_alternates_contestants_times_each_turns_first_call_apart_and_repeats_fast_ones():
    bench = load_bench_module()
    calls = []

    def slow():
        calls.append("slow")
        time.sleep(0.02)

    def fast():
        calls.append("fast")

    turns = {"fast": lambda slice_s: bench.take_turn(fast, slice_s), "slow": lambda slice_s: bench.take_turn(slow, slice_s)}
    times = bench.race(turns, budget_s=0.0, slice_s=0.01)
    turns = [name for index, name in enumerate(calls) if index == 0 or calls[index - 1] != name]
    assert turns == ["fast", "slow"] * 3  # three rounds, in turn
    assert calls.count("slow") == 2 * 3  # per turn: a first call timed apart, then one fills the slice
    assert times["slow"]["calls"] == 3 and times["fast"]["calls"] > 3
    assert 0 <= times["fast"]["min_ms"] <= times["fast"]["median_ms"]
