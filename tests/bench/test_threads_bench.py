"""bench/threads.py: it loads beside bench/cpu.py (whose programs it borrows), and the
serial and parallel executables it compares compute the same gradient, which it checks
before timing (a check that let a wrong parallel result through would time nonsense)."""
import importlib.util
import pathlib
import sys

import numpy as np
import pytest

import gradir

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load_threads_bench():
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        spec = importlib.util.spec_from_file_location("threads_bench", ROOT / "bench" / "threads.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(ROOT / "bench"))
    return module


def test_the_small_mlp_gradient_is_the_same_on_one_and_two_threads():
    bench = load_threads_bench()
    rng = np.random.default_rng(0)
    inputs = bench._mlp_inputs(rng, bench.SMALL_B, bench.SMALL_I, bench.SMALL_H, bench.SMALL_O)
    serial = gradir.compile(bench.SMALL_MLP, num_threads=1)
    parallel = gradir.compile(bench.SMALL_MLP, num_threads=2)
    bench._check(serial, parallel, inputs, exact=False)


def test_the_check_refuses_different_gradients():
    bench = load_threads_bench()
    rng = np.random.default_rng(1)
    inputs = bench._mlp_inputs(rng, bench.SMALL_B, bench.SMALL_I, bench.SMALL_H, bench.SMALL_O)
    serial = gradir.compile(bench.SMALL_MLP, num_threads=1)

    class Perturbed:
        def call(self, name, *arguments):
            first, *rest = serial.call(name, *arguments)
            return (first * 1.01, *rest)

    with pytest.raises(AssertionError):
        bench._check(serial, Perturbed(), inputs, exact=False)
