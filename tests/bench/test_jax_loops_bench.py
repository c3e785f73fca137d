"""bench/jax_loops.py: its PyTorch losses compute the JAX losses it exports (values and
gradients agree), so that the tools it times compute one function, and the gradient
entry it wraps around an exported program differentiates every argument."""

import importlib.util
import pathlib

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="JAX is not installed (the `jax` extra)")
torch = pytest.importorskip("torch", reason="PyTorch is not installed (the `oracle` extra)")
import jax.numpy as jnp  # noqa: E402

import gradir  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load_bench_module():
    spec = importlib.util.spec_from_file_location("jax_loops_bench", ROOT / "bench" / "jax_loops.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BENCH = load_bench_module()


@pytest.mark.parametrize("case", BENCH.cases(quick=True), ids=lambda case: case["name"].split(",")[0])
def test_the_pytorch_loss_is_the_jax_loss(case):
    inputs = case["inputs"]
    jax_loss, torch_loss = case["jax"](jax, jnp), case["torch"](torch)
    tensors = [torch.tensor(a, requires_grad=True) for a in inputs]
    value = torch_loss(*tensors)
    np.testing.assert_allclose(value.item(), float(jax_loss(*inputs)), rtol=1e-5)
    jax_gradients = jax.grad(jax_loss, argnums=tuple(range(len(inputs))))(*inputs)
    for ours, theirs in zip(torch.autograd.grad(value, tensors), jax_gradients, strict=True):
        np.testing.assert_allclose(ours.numpy(), theirs, rtol=1e-4, atol=1e-5 * float(np.abs(theirs).max()))


def test_the_gradient_entry_differentiates_every_argument():
    text = "func.func @loss(%arg0: tensor<3xf32>, %arg1: tensor<3xf32>) -> tensor<f32> {\n" \
        "  %p = arith.mulf %arg0, %arg1 : tensor<3xf32>\n  %s = autodiff.sum %p : tensor<3xf32> -> tensor<f32>\n" \
        "  return %s : tensor<f32>\n}\n"  # fmt: skip
    x, y = np.array([1.0, 2.0, 3.0], np.float32), np.array([4.0, 5.0, 6.0], np.float32)
    gx, gy = gradir.compile(BENCH.gradient_wrapper(text, 2), opt_level=0).grad_loss(x, y)
    np.testing.assert_array_equal(gx, y)
    np.testing.assert_array_equal(gy, x)


def test_the_results_page_is_the_table_and_the_hand_written_analysis():
    """jax_loops.md is regenerated whole by each run: the analysis lives in its own file,
    appended, so that a run cannot drop it; the committed page holds the committed JSON's
    table."""
    import json

    page = (ROOT / "bench" / "results" / "jax_loops.md").read_text()
    assert page.endswith("\n" + BENCH.ANALYSIS.read_text())
    results = json.loads((ROOT / "bench" / "results" / "jax_loops.json").read_text())["results"]
    assert BENCH.table(results) in page
