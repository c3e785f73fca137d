// A sparse literal must index inside its tensor and give one value per index.
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics | filecheck %s

// CHECK: sparse_literal_invalid.mlir:[[# @LINE + 2]]:23: error: sparse index [5] is outside tensor<2xf32>
func.func @outside() -> tensor<2xf32> {
  %c = arith.constant sparse<[[5]], 1.0> : tensor<2xf32>
  return %c : tensor<2xf32>
}

// -----

// CHECK: sparse_literal_invalid.mlir:[[# @LINE + 2]]:23: error: a sparse literal of tensor<2x2xf32> needs one value per index and 2 coordinates per index
func.func @counts() -> tensor<2x2xf32> {
  %c = arith.constant sparse<[[0, 0], [1, 1]], [1.0, 2.0, 3.0]> : tensor<2x2xf32>
  return %c : tensor<2x2xf32>
}
