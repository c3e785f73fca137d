// Source: llvm/llvm-project mlir/test/Dialect/Linalg/transform-op-decompose.mlir (commit 005330bd1da279cf9567db6dc79359127e820ab6), https://github.com/llvm/llvm-project/blob/005330bd1da279cf9567db6dc79359127e820ab6/mlir/test/Dialect/Linalg/transform-op-decompose.mlir
// What: linalg.softmax over the last dimension of a 3-d tensor.
// Adaptations: kept only @softmax of the file (dropped the CHECK lines, the other functions and the transform schedule); shapes reduced (2x16x32 -> 2x3x4); added the gradir entry @vjp_softmax (autodiff.vjp wrt the input; the destination only provides the shape) below the marker.
// gradir-corpus: entry=softmax wrt=0 reference=softmax_last inputs=signed

func.func @softmax(%arg0: tensor<2x3x4xf32>, %dst: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %1 = linalg.softmax dimension(2) ins(%arg0 : tensor<2x3x4xf32>) outs(%dst: tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_softmax(%x: tensor<2x3x4xf32>, %d: tensor<2x3x4xf32>, %ct: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %r:2 = autodiff.vjp @softmax(%x, %d, %ct) {wrt = array<i64: 0>} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>)
  return %r#0, %r#1 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}
