"""bench/compile_latency.py: its cache-off row is the compile alone (nothing stored) and reports
where the time went, and the page it writes keeps the other scripts' sections of RESULTS.md."""
import importlib.util
import pathlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load_latency_bench():
    spec = importlib.util.spec_from_file_location("compile_latency_bench", ROOT / "bench" / "compile_latency.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def inputs_and_an_empty_cache(bench, work: pathlib.Path) -> pathlib.Path:
    """`first_call`'s inputs written into `work`; the empty cache folder it is given."""
    rng = np.random.default_rng(0)
    np.savez(work / "inputs.npz", **{f"a{i}": rng.standard_normal(s).astype(np.float32) for i, s in enumerate(bench.SHAPES)})
    cache = work / "cache"
    cache.mkdir()
    return cache


def test_the_cache_off_row_stores_nothing_and_reports_its_stages(tmp_path):
    bench = load_latency_bench()
    cache = inputs_and_an_empty_cache(bench, tmp_path)
    stages: dict[str, float] = {}
    seconds, results = bench.first_call(bench.CACHE_OFF, cache, tmp_path, stages)
    assert seconds > 0 and [r.shape for r in results] == [tuple(s) for s in bench.SHAPES[2:]]
    assert list(cache.iterdir()) == []  # GRADIR_CACHE=0: no entry written
    assert {"parse", "autodiff-reverse", "cpu-llvm", "cpu-jit"} <= set(stages)
    assert "cache-lookup" not in stages and sum(stages.values()) < seconds


def test_the_stage_table_keeps_each_stages_minimum_and_what_no_stage_covers():
    bench = load_latency_bench()
    runs = [{"cpu-jit": 1.0, "parse": 0.002}, {"cpu-jit": 0.8, "parse": 0.003, "verify": 0.1}]
    table = bench.stage_table(runs, cold_off=1.0)
    assert "| `cpu-jit` | 0.800 | 80% |" in table
    assert "| `verify` | 0.000 |" not in table  # a stage one run lacks counts as 0 there: under 5 ms
    assert "| the 2 stages under 5 ms | 0.002 | 0% |" in table
    assert "| outside the stages (imports, context, the call) | 0.198 | 20% |" in table


def test_the_page_section_is_replaced_and_the_others_kept(tmp_path, monkeypatch):
    bench = load_latency_bench()
    page = tmp_path / "RESULTS.md"
    page.write_text("# GMM\n\n<!-- section: bench/cpu.py -->\ncpu\n<!-- end section: bench/cpu.py -->\n")
    monkeypatch.setattr(bench, "RESULTS", tmp_path)
    monkeypatch.setattr(bench, "PAGE", page)
    (tmp_path / "compile_latency_analysis.md").write_text("The analysis.\n")
    rows = [{"case": case, "min_s": seconds, "median_s": seconds, "vs_jax_cold": seconds / 0.5, "runs_s": [seconds]}
            for case, seconds in (("gradir cold", 2.0), (bench.CACHE_OFF, 1.5), ("jax cold", 0.5))]  # fmt: skip
    data = {"machine": "m", "date": "d", "repeats": 1, "load_average_1_5_15_min_before_after": [1, 2, 3, 4, 5, 6],
            "rows": rows, "cache_off_stages_s": [{"cpu-jit": 0.9}]}  # fmt: skip
    for _ in range(2):  # written twice: the section is replaced, not appended again
        bench.publish(data)
    text = page.read_text()
    assert text.count(bench.SECTION[0]) == 1 and "cpu\n<!-- end section: bench/cpu.py -->" in text
    assert "| gradir cold, cache off | 1.500 | 1.500 | 3.00x |" in text
    assert "load average (1, 5, 15 min) [1, 2, 3] before and [4, 5, 6] after" in text
    assert "## Analysis\n\nThe analysis.\n" + bench.SECTION[1] in text


def test_the_functions_row_compiles_only_mlp_grad_and_gives_its_numbers(tmp_path):
    bench = load_latency_bench()
    cache = inputs_and_an_empty_cache(bench, tmp_path)
    _, whole = bench.first_call(bench.CACHE_OFF, cache, tmp_path, {})
    _, called = bench.first_call(bench.CACHE_OFF_CALLED, cache, tmp_path)
    assert list(cache.iterdir()) == []
    for got, want in zip(called, whole, strict=True):
        np.testing.assert_array_equal(got, want)
    assert 'functions="mlp_grad"' in (tmp_path / "first_call_gradir_cold_cache_off_functions=mlp_grad.py").read_text()
