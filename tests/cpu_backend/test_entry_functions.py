"""`gradir.compile(..., functions=...)`: only the named functions are compiled for themselves.

Every other function, the user's and the ones the autodiff passes make, is private and
compiled only where it is inlined into a named one: the same numbers from much less
machine code (what vmap, jacobian, hessian and gradcheck compile with)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import gradir
from gradir.errors import ArgumentError

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ROOT / "examples" / "product.mlir"

CHAIN = """
func.func @layer(%w: tensor<3x3xf64>, %x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %y = autodiff.matmul %x, %w : (tensor<2x3xf64>, tensor<3x3xf64>) -> tensor<2x3xf64>
  %t = autodiff.tanh %y : tensor<2x3xf64>
  return %t : tensor<2x3xf64>
}
func.func @loss(%w: tensor<3x3xf64>, %x: tensor<2x3xf64>) -> tensor<f64> {
  %h = func.call @layer(%w, %x) : (tensor<3x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %o = func.call @layer(%w, %h) : (tensor<3x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %s = autodiff.mul %o, %o : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %l = autodiff.sum %s : tensor<2x3xf64> -> tensor<f64>
  return %l : tensor<f64>
}
func.func @step(%w: tensor<3x3xf64>, %x: tensor<2x3xf64>) -> (tensor<f64>, tensor<3x3xf64>) {
  %l = func.call @loss(%w, %x) : (tensor<3x3xf64>, tensor<2x3xf64>) -> tensor<f64>
  %g = autodiff.grad @loss(%w, %x) {wrt = array<i64: 0>} : (tensor<3x3xf64>, tensor<2x3xf64>) -> tensor<3x3xf64>
  return %l, %g : tensor<f64>, tensor<3x3xf64>
}
"""

RNG = np.random.default_rng(3)
W, X = RNG.standard_normal((3, 3)) * 0.6, RNG.standard_normal((2, 3)) * 0.6


def test_only_the_named_functions_are_callable_and_they_compute_the_same():
    whole = gradir.compile(CHAIN, opt_level=0)
    step_only = gradir.compile(CHAIN, functions=["step"], opt_level=0)
    assert {"layer", "loss", "step", "loss_grad_0"} <= set(whole.signatures)
    assert sorted(step_only.signatures) == ["step"]
    for got, want in zip(step_only.step(W, X), whole.step(W, X)):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(ArgumentError, match="loss"):
        step_only.loss(W, X)


def test_one_name_is_a_str_and_a_derived_function_may_be_named():
    grad_only = gradir.compile(CHAIN, functions="loss_grad_0", opt_level=0)
    assert sorted(grad_only.signatures) == ["loss_grad_0"]
    np.testing.assert_array_equal(grad_only.loss_grad_0(W, X), gradir.compile(CHAIN, opt_level=0).step(W, X)[1])


def test_a_private_function_named_is_made_public():
    private = CHAIN.replace("func.func @layer", "func.func private @layer")
    exe = gradir.compile(private, functions=("layer", "step"), opt_level=0)
    assert sorted(exe.signatures) == ["layer", "step"]
    np.testing.assert_allclose(exe.layer(W, X), np.tanh(X @ W), rtol=1e-14)


def test_the_other_functions_leave_no_machine_code():
    """What makes it worth having: no machine code for the functions nobody calls."""
    every_function = ["layer", "loss", "step", *gradir.compile(CHAIN, opt_level=0).deferred_functions]
    whole = gradir.compile(CHAIN, functions=every_function, opt_level=0).llvm_text
    step_only = gradir.compile(CHAIN, functions=["step"], opt_level=0).llvm_text
    for name in ("layer", "loss", "loss_grad_0"):
        assert f"llvm.func @__gradir_{name}(" in whole, name
        assert f"llvm.func @__gradir_{name}(" not in step_only, name
    assert len(step_only) < len(whole) / 2


def test_the_batched_api_compiles_only_its_wrapper():
    hessian = gradir.hessian(CHAIN, "loss", wrt=[0], opt_level=0)
    assert list(hessian._executable._signatures) == ["__gradir_batched_entry"]
    # Differences of the gradient, column by column: the Hessian's numbers are still its own.
    grad = gradir.compile(CHAIN, functions="loss_grad_0", opt_level=0).loss_grad_0
    eps, h = 1e-6, hessian(W, X)
    for index in np.ndindex(3, 3):
        step = np.zeros((3, 3))
        step[index] = eps
        column = (grad(W + step, X) - grad(W - step, X)) / (2 * eps)
        np.testing.assert_allclose(h[(..., *index)], column, rtol=1e-6, atol=1e-8)


def test_export_declares_only_the_named_functions(tmp_path):
    path = gradir.export(PRODUCT, path=tmp_path / "libf.so", functions=["df"])
    manifest = json.loads((tmp_path / "libf.json").read_text())
    assert sorted(manifest["functions"]) == ["df"]
    assert "df(" in (tmp_path / "libf.h").read_text() and " f(" not in (tmp_path / "libf.h").read_text()
    # Called in a fresh process, from the library alone.
    code = (
        f"import numpy as np, gradir; lib = gradir.load({str(path)!r}); "
        "ga, gb = lib.df(np.arange(4, dtype=np.float32), np.full(4, 2.0, np.float32)); print(ga.tolist(), gb.tolist())"
    )
    # From a folder without a `gradir/` in it: a checkout's would shadow the installed package.
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path, check=False
    )
    assert done.returncode == 0, done.stderr
    a, b = np.arange(4.0), np.full(4, 2.0)
    assert done.stdout.strip() == f"{(2 * a * b).tolist()} {(a * a + 1).tolist()}"


def test_the_compilation_cache_keys_on_the_functions(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADIR_CACHE", "1")
    monkeypatch.setenv("GRADIR_CACHE_DIR", str(tmp_path))
    first = gradir.compile(PRODUCT, functions=["df"])
    other = gradir.compile(PRODUCT, functions=["f"])
    again = gradir.compile(PRODUCT, functions=["df"])
    assert (first.from_disk, other.from_disk, again.from_disk) == (False, False, True)
    assert sorted(other.signatures) == ["f"] and sorted(again.signatures) == ["df"]
