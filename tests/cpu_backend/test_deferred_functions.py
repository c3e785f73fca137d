"""`gradir.compile` compiles the functions the autodiff passes made at their first call.

The user's public functions are compiled up front; a derived one (`loss_grad_0`, a vmap's
helper) is public and callable too, but compiled alone when first called, from the text the
first compile read, with the same options, through the compilation cache like any compile."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest

import gradir
from gradir import compilation
from gradir.compilation_cache import DEFERRED_FIELD, ORDER_FIELD
from gradir.errors import ArgumentError, RunTimeCheckError

CHAIN = """
func.func @layer(%w: tensor<3x3xf64>, %x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %y = autodiff.matmul %x, %w : (tensor<2x3xf64>, tensor<3x3xf64>) -> tensor<2x3xf64>
  %t = autodiff.tanh %y : tensor<2x3xf64>
  return %t : tensor<2x3xf64>
}
func.func @loss(%w: tensor<3x3xf64>, %x: tensor<2x3xf64>) -> tensor<f64> {
  %h = func.call @layer(%w, %x) : (tensor<3x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %s = autodiff.mul %h, %h : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %l = autodiff.sum %s : tensor<2x3xf64> -> tensor<f64>
  return %l : tensor<f64>
}
func.func @step(%w: tensor<3x3xf64>, %x: tensor<2x3xf64>) -> (tensor<f64>, tensor<3x3xf64>) {
  %l = func.call @loss(%w, %x) : (tensor<3x3xf64>, tensor<2x3xf64>) -> tensor<f64>
  %g = autodiff.grad @loss(%w, %x) {wrt = array<i64: 0>} : (tensor<3x3xf64>, tensor<2x3xf64>) -> tensor<3x3xf64>
  return %l, %g : tensor<f64>, tensor<3x3xf64>
}
"""
DERIVED = ("layer_vjp_0", "loss_grad_0", "loss_vjp_0")

RNG = np.random.default_rng(5)
W, X = RNG.standard_normal((3, 3)) * 0.6, RNG.standard_normal((2, 3)) * 0.6


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    """An empty compilation cache of this test's own."""
    monkeypatch.setenv("GRADIR_CACHE", "1")
    monkeypatch.setenv("GRADIR_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def entries(cache: Path) -> list[dict]:
    return [json.loads(path.read_text()) for path in sorted(cache.glob("*/*/lib.json"))]


@pytest.fixture
def deferred_compiles(monkeypatch) -> list[tuple[str, ...]]:
    """The `functions` of every compile made for a deferred function, in order."""
    compiles, original = [], compilation._compile_cpu

    def counting(source, checkpoint_every, check_numerics, options, functions=None):
        if functions is not None:
            compiles.append(functions)
        return original(source, checkpoint_every, check_numerics, options, functions)

    monkeypatch.setattr(compilation, "_compile_cpu", counting)
    return compiles


def test_derived_functions_are_callable_but_leave_no_machine_code_up_front():
    exe = gradir.compile(CHAIN, opt_level=0)
    assert exe.deferred_functions == DERIVED
    assert {"layer", "loss", "step", *DERIVED} <= set(exe.signatures)
    for name in ("layer", "loss", "step"):
        assert f"llvm.func @__gradir_{name}(" in exe.llvm_text, name
    for name in DERIVED:
        assert f"llvm.func @__gradir_{name}(" not in exe.llvm_text, name


def test_a_deferred_function_computes_what_it_computes_compiled_up_front(deferred_compiles):
    lazy = gradir.compile(CHAIN, opt_level=0)
    eager = gradir.compile(CHAIN, functions=["step", *DERIVED], opt_level=0)
    assert eager.deferred_functions == () and deferred_compiles == [("step", *DERIVED)]
    up_front = lazy.compile_seconds
    np.testing.assert_array_equal(lazy.loss_grad_0(W, X), eager.loss_grad_0(W, X))
    np.testing.assert_array_equal(lazy.loss_grad_0(W, X), lazy.step(W, X)[1])
    # Compiled alone (not its sibling vjp), once, and counted in compile_seconds.
    assert deferred_compiles[1:] == [("loss_grad_0",)]
    assert lazy.compile_seconds > up_front
    value, gradient = lazy.loss_vjp_0(W, X, np.float64(1.0))
    assert value == lazy.loss(W, X)
    np.testing.assert_array_equal(gradient, eager.loss_grad_0(W, X))
    assert deferred_compiles[1:] == [("loss_grad_0",), ("loss_vjp_0",)]


def test_compile_deferred_compiles_the_rest_together(deferred_compiles):
    exe = gradir.compile(CHAIN, opt_level=0)
    exe.loss_grad_0(W, X)
    exe.compile_deferred()
    exe.compile_deferred()
    exe.loss_vjp_0(W, X, 1.0)
    assert deferred_compiles == [("loss_grad_0",), ("layer_vjp_0", "loss_vjp_0")]


def test_a_wrong_call_of_a_deferred_function_is_refused_before_compiling(deferred_compiles):
    exe = gradir.compile(CHAIN, opt_level=0)
    with pytest.raises(ArgumentError, match="loss_grad_0"):
        exe.loss_grad_0(W)
    with pytest.raises(ArgumentError, match="shape"):
        exe.loss_grad_0(W, X.T)
    for name in (["loss_grad_0"], {"loss_grad_0": 1}, None):  # not a str, some not even hashable
        with pytest.raises(ArgumentError, match="a function name is a str"):
            exe.call(name, W, X)
    assert deferred_compiles == []


def test_threads_calling_a_deferred_function_at_once_compile_it_once(deferred_compiles):
    exe = gradir.compile(CHAIN, opt_level=0)
    results = [None] * 4

    def call(index: int) -> None:
        results[index] = exe.loss_grad_0(W, X)

    threads = [threading.Thread(target=call, args=(index,)) for index in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert deferred_compiles == [("loss_grad_0",)]
    for result in results:
        np.testing.assert_array_equal(result, results[0])


def test_the_deferred_function_compiles_the_text_read_first(tmp_path):
    """Edited after the compile, the file is not read again: its derivative stays the one of
    the function compiled (here, of sum(tanh(xw)^2), not of twice it)."""
    path = tmp_path / "chain.mlir"
    path.write_text(CHAIN)
    exe = gradir.compile(path, opt_level=0)
    path.write_text(
        CHAIN.replace(
            "%l = autodiff.sum %s",
            "%s2 = autodiff.add %s, %s : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>\n  %l = autodiff.sum %s2",
        )
    )
    np.testing.assert_array_equal(exe.loss_grad_0(W, X), exe.step(W, X)[1])
    edited = gradir.compile(path, functions="loss_grad_0", opt_level=0).loss_grad_0(W, X)
    np.testing.assert_allclose(edited, 2 * exe.loss_grad_0(W, X), rtol=1e-14)


def test_the_options_carry_to_the_deferred_compile():
    """check_numerics: the deferred gradient checks its NaNs too (log of a negative number)."""
    source = """
func.func @f(%x: tensor<3xf64>) -> tensor<f64> {
  %l = autodiff.log %x : tensor<3xf64>
  %s = autodiff.sum %l : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
func.func @df(%x: tensor<3xf64>) -> tensor<3xf64> {
  %g = autodiff.grad @f(%x) : (tensor<3xf64>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}
"""
    checked = gradir.compile(source, check_numerics=True)
    assert "f_grad_0" in checked.deferred_functions
    np.testing.assert_allclose(checked.f_grad_0(np.array([1.0, 2.0, 4.0])), [1.0, 0.5, 0.25], rtol=1e-15)
    with pytest.raises(RunTimeCheckError, match="NaN"):
        checked.f_grad_0(np.array([1.0, -2.0, 4.0]))


def test_explicit_functions_and_modules_of_derived_functions_only_defer_nothing():
    assert gradir.compile(CHAIN, functions=["step"], opt_level=0).deferred_functions == ()
    # The user's functions private: the derived ones are all there is to compile.
    private = CHAIN.replace("func.func @", "func.func private @").replace("private @step", "@step")
    private = private.replace("func.func @step", "func.func private @step")
    exe = gradir.compile(private, opt_level=0)
    assert exe.deferred_functions == () and sorted(exe.signatures) == list(DERIVED)
    assert "llvm.func @__gradir_loss_grad_0(" in exe.llvm_text


def test_a_vmap_helper_is_deferred_too():
    source = """
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = autodiff.sin %x : tensor<3xf64>
  return %y : tensor<3xf64>
}
func.func @batched(%xs: tensor<4x3xf64>) -> tensor<4x3xf64> {
  %ys = autodiff.vmap @f(%xs) {in_axes = array<i64: 0>, out_axes = array<i64: 0>, size = 4 : i64} : (tensor<4x3xf64>) -> tensor<4x3xf64>
  return %ys : tensor<4x3xf64>
}
"""
    exe = gradir.compile(source, opt_level=0)
    (helper,) = exe.deferred_functions
    assert helper.startswith("f_vmap")
    xs = RNG.standard_normal((4, 3))
    np.testing.assert_allclose(exe.call(helper, xs)[0], np.sin(xs), rtol=1e-15)
    np.testing.assert_array_equal(exe.batched(xs), exe.call(helper, xs)[0])


def test_the_cache_entry_records_the_deferred_functions_and_each_gets_its_own(cache):
    first = gradir.compile(CHAIN, opt_level=0)
    (entry,) = entries(cache)
    assert sorted(entry["functions"]) == ["layer", "loss", "step"]
    assert sorted(entry[DEFERRED_FIELD]) == list(DERIVED)
    want = first.loss_grad_0(W, X)
    assert len(entries(cache)) == 2
    again = gradir.compile(CHAIN, opt_level=0)
    assert again.from_disk and again.deferred_functions == DERIVED
    np.testing.assert_array_equal(again.loss_grad_0(W, X), want)
    assert again.compile_seconds == 0.0  # the gradient's entry was on disk too
    # A user compiling the gradient alone gets the same entry.
    assert gradir.compile(CHAIN, functions=["loss_grad_0"], opt_level=0).from_disk


def test_a_cached_executable_lists_its_functions_in_the_modules_order(cache):
    """The entry holds the user's functions and the derived ones are left out, yet
    `signatures` lists them all in the order the compile that made the entry did."""
    compiled = gradir.compile(CHAIN, opt_level=0)
    (entry,) = entries(cache)
    assert entry[ORDER_FIELD] == list(compiled.signatures)
    assert list(compiled.signatures) != [*entry["functions"], *entry[DEFERRED_FIELD]]  # interleaved
    cached = gradir.compile(CHAIN, opt_level=0)
    assert cached.from_disk and list(cached.signatures) == list(compiled.signatures)


def test_a_malformed_order_field_is_a_broken_entry_compiled_again(cache, caplog):
    gradir.compile(CHAIN, opt_level=0)
    (manifest,) = cache.glob("*/*/lib.json")
    recorded = json.loads(manifest.read_text())
    recorded[ORDER_FIELD] = "layer, loss"
    manifest.write_text(json.dumps(recorded))
    exe = gradir.compile(CHAIN, opt_level=0)
    assert not exe.from_disk and f"malformed {ORDER_FIELD}" in caplog.text


def test_a_malformed_deferred_field_is_a_broken_entry_compiled_again(cache, caplog):
    gradir.compile(CHAIN, opt_level=0)
    (manifest,) = cache.glob("*/*/lib.json")
    recorded = json.loads(manifest.read_text())
    recorded[DEFERRED_FIELD] = {"loss_grad_0": {"arguments": "nonsense"}}
    manifest.write_text(json.dumps(recorded))
    exe = gradir.compile(CHAIN, opt_level=0)
    assert not exe.from_disk and "malformed deferred_functions" in caplog.text
    np.testing.assert_array_equal(exe.loss_grad_0(W, X), exe.step(W, X)[1])
