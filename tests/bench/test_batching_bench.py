"""bench/batching.py: results are checked against torch.func's before anything is timed,
calls alternate between the tools, and a missing tool is reported, not fatal."""
import importlib.util
import pathlib

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load_bench_module():
    spec = importlib.util.spec_from_file_location("batching_bench", ROOT / "bench" / "batching.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_calls_alternate_and_a_missing_tool_is_skipped():
    bench = load_bench_module()
    calls = []

    def tool(name, value):
        def make(args):
            return 0.5, lambda: calls.append(name) or value
        return make

    def missing(args):
        raise ImportError("no module named jax")

    tools = {"gradir": tool("gradir", np.ones(3)), "torch.func": tool("torch.func", np.ones(3)), "JAX": missing}
    results = bench.run_case([], tools, repeats=3)
    assert calls == ["torch.func", "gradir", "torch.func"] + ["gradir", "torch.func"] * 3
    assert results["JAX"] == {"skipped": "ImportError: no module named jax"}
    assert results["gradir"]["relative_error"] == 0.0 and results["gradir"]["compile_s"] == 0.5
    assert "| gradir |" in bench.markdown({"machine": "m", "repeats": 3, "cases": {
        case: results for case in bench.CASES}})


def test_a_wrong_result_stops_the_run_before_timing():
    bench = load_bench_module()
    tools = {"gradir": lambda args: (0.0, lambda: [np.full(3, 1.1)]),
             "torch.func": lambda args: (0.0, lambda: [np.ones(3)])}
    with pytest.raises(SystemExit, match="gradir: result differs"):
        bench.run_case([], tools, repeats=2)
    with pytest.raises(AssertionError, match="shape"):
        bench.relative_error(np.ones(2), np.ones(3))
