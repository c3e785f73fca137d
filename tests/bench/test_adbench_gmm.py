"""bench/adbench_gmm.py: the timing protocol (objective and gradient alternate) and the gradient check."""
import importlib.util
import pathlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load_bench_module():
    spec = importlib.util.spec_from_file_location("adbench_gmm", ROOT / "bench" / "adbench_gmm.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_objective_and_gradient_calls_alternate_until_the_repetition_cap():
    bench = load_bench_module()
    calls = []
    objective_time, gradient_time = bench.measure(
        lambda: calls.append("objective"), lambda: calls.append("gradient"), budget_s=60.0, max_repetitions=4
    )
    assert calls == ["objective", "gradient"] * 4
    assert objective_time["repetitions"] == gradient_time["repetitions"] == 4
    assert 0 <= objective_time["min_s"] <= objective_time["median_s"]


def test_a_spent_budget_stops_after_the_minimum_repetitions():
    bench = load_bench_module()
    calls = []
    bench.measure(lambda: calls.append("o"), lambda: calls.append("g"), budget_s=0.0, max_repetitions=10)
    assert calls == ["o", "g", "o", "g"]


def test_check_flags_a_wrong_gradient_entry():
    bench = load_bench_module()
    reference = {
        "value": 2.0,
        "d_alphas": np.array([1.0, 2.0]),
        "d_means": np.ones((2, 3)),
        "d_icf": np.zeros((2, 6)),
    }
    exact = [reference["d_alphas"], reference["d_means"], reference["d_icf"]]
    assert bench.check(2.0, exact, reference)["correct"]
    wrong_icf = np.zeros((2, 6))
    wrong_icf[1, 4] = 1e-6
    result = bench.check(2.0, [exact[0], exact[1], wrong_icf], reference)
    assert not result["correct"] and result["gradient_error"] == 1e-6  # relative to max(1, max |d icf|)
