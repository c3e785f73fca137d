"""bench/cpu.py: its matmul programs compute the products its rows are named after, and
the four tools' MLP gradients it times are checked against each other (a tool computing
another function is caught before anything is timed)."""
import importlib.util
import pathlib

import numpy as np
import pytest

import gradir

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load_bench_module():
    spec = importlib.util.spec_from_file_location("cpu_bench", ROOT / "bench" / "cpu.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("a_transposed, b_transposed", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_source_computes_op_a_times_op_b(a_transposed, b_transposed):
    bench = load_bench_module()
    m, k, n = 5, 7, 3
    rng = np.random.default_rng(0)
    a = rng.standard_normal((k, m) if a_transposed else (m, k)).astype(np.float32)
    b = rng.standard_normal((n, k) if b_transposed else (k, n)).astype(np.float32)
    result = gradir.compile(bench.matmul_source(m, k, n, a_transposed, b_transposed)).f(a, b)
    expected = (a.T if a_transposed else a) @ (b.T if b_transposed else b)
    np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-5)


def test_the_matmul_rows_are_a_linear_layers_three_products():
    bench = load_bench_module()
    forward, weight, inputs = bench.MATMULS.values()
    assert forward == (8192, 784, 2048, False, False)  # x W
    assert weight == (784, 8192, 2048, True, False)  # x^T dz
    assert inputs == (8192, 2048, 784, False, True)  # dz W^T


def test_the_tools_mlp_gradients_agree_and_a_wrong_one_is_caught():
    pytest.importorskip("torch", reason="the oracle extra (torch==2.13.0) is not installed")
    pytest.importorskip("jax", reason="JAX is not installed")
    import jax
    import jax.numpy as jnp

    bench = load_bench_module()
    batch, hidden = 4, 8
    inputs = bench.mlp_inputs(batch, hidden)
    source = bench.mlp_source(batch, hidden)
    calls, _ = bench.gradient_callables(source, bench.mlp_torch, lambda *args: bench.mlp_jax(jnp, jax, *args), inputs, [2, 3, 4, 5])
    bench.check_gradients(calls)

    def twice_the_loss(*args):
        return 2 * bench.mlp_jax(jnp, jax, *args)

    wrong, _ = bench.gradient_callables(source, bench.mlp_torch, twice_the_loss, inputs, [2, 3, 4, 5])
    with pytest.raises(AssertionError, match="jax"):
        bench.check_gradients(wrong)


def test_the_results_page_section_is_replaced_and_survives_the_gmm_page_regeneration(tmp_path):
    bench = load_bench_module()
    spec = importlib.util.spec_from_file_location("plot_gmm", ROOT / "bench" / "plot_gmm.py")
    plot_gmm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plot_gmm)
    page = tmp_path / "RESULTS.md"
    page.write_text("# ADBench GMM\n\ntable\n")
    bench.write_section(page, "CPU, first run", bench.SECTION)
    bench.write_section(page, "CPU, second run", bench.SECTION)
    text = page.read_text()
    assert "first run" not in text and text.count("CPU, second run") == 1 and text.startswith("# ADBench GMM\n\ntable\n")
    # plot_gmm.py rewrites the page from its JSON: the CPU section is carried over.
    assert "CPU, second run" in plot_gmm.other_sections(page)
    assert "table" not in plot_gmm.other_sections(page)
