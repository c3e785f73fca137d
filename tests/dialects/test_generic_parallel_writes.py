"""A `linalg.generic` whose "parallel" loop an output's indexing map does not use writes each
element of that output several times: MLIR 22 verifies it, but the order of those writes is
undefined. gradir differentiated it as marked (elementwise): a wrong gradient and no error
(the gradient function never ran the primal generic), and the CPU backend crashed compiling
the primal. It is now refused where it is written; marked "reduction" it is the accumulation
it meant, and its gradient is right."""
from __future__ import annotations

import pathlib
import subprocess
import sys

import numpy as np
import pytest

import gradir

PROGRAM = """
func.func @f(%a: tensor<3x4xf64>, %init: tensor<3xf64>) -> tensor<f64> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "ITERATOR"]} ins(%a : tensor<3x4xf64>) outs(%init : tensor<3xf64>) {
  ^bb0(%x: f64, %acc: f64):
    %s = arith.mulf %acc, %x : f64
    linalg.yield %s : f64
  } -> tensor<3xf64>
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<f64>
  %z0 = linalg.fill ins(%z : f64) outs(%e : tensor<f64>) -> tensor<f64>
  %l = linalg.reduce ins(%r : tensor<3xf64>) outs(%z0 : tensor<f64>) dimensions = [0]
    (%p: f64, %q: f64) {
      %t = arith.addf %p, %q : f64
      linalg.yield %t : f64
    }
  return %l : tensor<f64>
}
func.func @df(%a: tensor<3x4xf64>, %init: tensor<3xf64>) -> (tensor<3x4xf64>, tensor<3xf64>) {
  %g:2 = autodiff.grad @f(%a, %init) : (tensor<3x4xf64>, tensor<3xf64>) -> (tensor<3x4xf64>, tensor<3xf64>)
  return %g#0, %g#1 : tensor<3x4xf64>, tensor<3xf64>
}
"""
PARALLEL = PROGRAM.replace("ITERATOR", "parallel")
REDUCTION = PROGRAM.replace("ITERATOR", "reduction")
MESSAGE = 'loop 1 is "parallel" but the indexing map of output 0'


@pytest.mark.parametrize("functions", [None, ["df"]])
def test_a_parallel_loop_writing_an_output_element_twice_is_refused_where_written(functions):
    with pytest.raises(gradir.SourceError, match=MESSAGE) as caught:
        gradir.compile(PARALLEL, target="cpu", functions=functions)
    assert caught.value.location is not None and caught.value.location.endswith(":3:3")


def test_the_cli_says_it_in_one_line(tmp_path):
    path = tmp_path / "p.mlir"
    path.write_text(PARALLEL)
    for tool in ("autodiff-run", "autodiff-gradcheck"):
        run = subprocess.run(
            [str(pathlib.Path(sys.executable).parent / tool), str(path), "--entry", "f"],
            capture_output=True, text=True, timeout=300, cwd=tmp_path,
        )  # fmt: skip
        assert run.returncode == 1, run.stderr
        assert run.stderr.count("\n") == 1 and MESSAGE in run.stderr and "internal error" not in run.stderr


def test_marked_reduction_the_accumulation_has_the_product_rule_gradient():
    a = np.arange(1, 13, dtype=np.float64).reshape(3, 4) / 4
    init = np.array([1.0, 2.0, 3.0])
    grad_a, grad_init = gradir.compile(REDUCTION, target="cpu").df(a, init)
    products = np.prod(a, axis=1)
    np.testing.assert_allclose(grad_init, products, rtol=1e-12)
    np.testing.assert_allclose(grad_a, (init * products)[:, None] / a, rtol=1e-12)
