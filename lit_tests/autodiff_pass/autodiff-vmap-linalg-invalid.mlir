// Linalg ops autodiff-vmap cannot batch are one-line errors at the op's location.
// RUN: autodiff-opt %s -p autodiff-vmap --split-input-file --verify-diagnostics | filecheck %s

// linalg.pack has a derivative rule but no batching rule yet.
func.func @f(%x: tensor<4x4xf64>) -> tensor<2x2x2x2xf64> {
  %e = tensor.empty() : tensor<2x2x2x2xf64>
  // CHECK: autodiff-vmap-linalg-invalid.mlir:[[# @LINE + 1]]:3: error: vmap of 'linalg.pack' is not supported
  %p = linalg.pack %x inner_dims_pos = [0, 1] inner_tiles = [2, 2] into %e : tensor<4x4xf64> -> tensor<2x2x2x2xf64>
  return %p : tensor<2x2x2x2xf64>
}
func.func @main(%xs: tensor<3x4x4xf64>) -> tensor<3x2x2x2x2xf64> {
  %r = autodiff.vmap @f(%xs) {in_axes = array<i64: 0>, out_axes = array<i64: 0>, size = 3 : i64} : (tensor<3x4x4xf64>) -> tensor<3x2x2x2x2xf64>
  return %r : tensor<3x2x2x2x2xf64>
}
