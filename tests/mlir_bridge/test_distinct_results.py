"""Regression (found by the property suite): a gradient function returning one
value twice (two unused arguments get the same zero) crashed MLIR's
buffer-results-to-out-params with a segmentation fault."""
import numpy as np

import gradir
from exercised import assert_exercised

UNUSED_ARGUMENTS = """
func.func @loss(%a0: tensor<f32>, %a1: tensor<f32>, %a2: tensor<f32>) -> tensor<f32> {
  %v0 = autodiff.neg %a0 : tensor<f32>
  func.return %v0 : tensor<f32>
}
func.func @loss_grad(%a0: tensor<f32>, %a1: tensor<f32>, %a2: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %g:3 = autodiff.grad @loss(%a0, %a1, %a2) : (tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
  func.return %g#0, %g#1, %g#2 : tensor<f32>, tensor<f32>, tensor<f32>
}
"""


def test_repeated_results_get_their_own_buffers():
    exe = gradir.compile(UNUSED_ARGUMENTS)
    ones = [np.array(1.5, dtype=np.float32)] * 3
    grads = exe.loss_grad(*ones)
    assert [float(g) for g in grads] == [-1.0, 0.0, 0.0]


def test_repeated_results_gradcheck():
    result = gradir.gradcheck(UNUSED_ARGUMENTS, "loss", allow_vacuous=True)  # a branch not taken: zeros
    assert_exercised(result)
