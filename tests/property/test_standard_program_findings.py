"""What the random standard-MLIR programs (`test_standard_programs.py`) found,
each minimised to a small program: a regression test per fixed bug, a strict
xfail per open one (it turns red the day the bug is fixed, so the mark is
removed then)."""
import numpy as np
import pytest

import gradir
from gradir.source import load_module

# ---- fixed: a linalg.generic with several results did not read back ----------------------------

TWO_RESULTS = """
func.func @f(%x: tensor<3x4xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %zero = arith.constant dense<0.0> : tensor<3xf32>
  %low = arith.constant dense<-5.0> : tensor<3xf32>
  %r:2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x4xf32>) outs(%zero, %low : tensor<3xf32>, tensor<3xf32>) {
  ^bb0(%a: f32, %sum: f32, %max: f32):
    %s = math.sin %a : f32
    %t = arith.addf %sum, %s : f32
    %m = arith.maximumf %s, %max : f32
    linalg.yield %t, %m : f32, f32
  } -> (tensor<3xf32>, tensor<3xf32>)
  return %r#0, %r#1 : tensor<3xf32>, tensor<3xf32>
}
"""


def test_a_generic_with_two_results_reads_back_and_gradchecks():
    """xDSL 0.74 prints `-> (t1, t2)` (as MLIR does) but parsed only `-> t1, t2`:
    `gradir.gradcheck`, which reparses the program it promotes to f64, failed on
    every generic with two results ("Expected '->'", at the line after it)."""
    module = load_module(TWO_RESULTS)
    assert "-> (tensor<3xf32>, tensor<3xf32>)" in str(module)
    assert str(load_module(str(module))) == str(module)
    x = np.array([[0.1, 0.9, -0.4, 0.3], [1.2, -0.2, 0.5, 0.05], [-0.7, 0.6, 0.2, 1.0]])
    result = gradir.gradcheck(TWO_RESULTS, "f", inputs=[x])
    assert result.ok, result.report()
