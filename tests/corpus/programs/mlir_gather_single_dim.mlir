// Source: llvm/llvm-project mlir/test/Dialect/Tensor/decompose-gather.mlir (commit 483eb7a37d4825ceb8dcf542fcd21e508a64e2c7), https://github.com/llvm/llvm-project/blob/483eb7a37d4825ceb8dcf542fcd21e508a64e2c7/mlir/test/Dialect/Tensor/decompose-gather.mlir
// What: tensor.gather of a 2x2x2x2 tensor along dimension 1 at a 2x3 grid of indices (gather_dims([1]), the gathered dimension dropped from the result); indices repeat, so the gradient adds several slices into one.
// Adaptations: kept only @gather_single_gather_dim of the file (dropped the CHECK lines, the other functions and the transform schedule); added the gradir entry @vjp_gather (autodiff.vjp wrt the source) below the marker.
// gradir-corpus: entry=gather_single_gather_dim wrt=0 reference=mlir_gather_dim1 inputs=signed

func.func @gather_single_gather_dim(%arg0: tensor<2x2x2x2xf32>, %arg1: tensor<2x3x1xindex>) -> tensor<2x3x2x2x2xf32> {
    %1 = tensor.gather %arg0[%arg1] gather_dims([1]) : (tensor<2x2x2x2xf32>, tensor<2x3x1xindex>) -> tensor<2x3x2x2x2xf32>
  return %1 : tensor<2x3x2x2x2xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_gather(%x: tensor<2x2x2x2xf32>, %i: tensor<2x3x1xindex>, %ct: tensor<2x3x2x2x2xf32>) -> (tensor<2x3x2x2x2xf32>, tensor<2x2x2x2xf32>) {
  %r:2 = autodiff.vjp @gather_single_gather_dim(%x, %i, %ct) {wrt = array<i64: 0>} : (tensor<2x2x2x2xf32>, tensor<2x3x1xindex>, tensor<2x3x2x2x2xf32>) -> (tensor<2x3x2x2x2xf32>, tensor<2x2x2x2xf32>)
  return %r#0, %r#1 : tensor<2x3x2x2x2xf32>, tensor<2x2x2x2xf32>
}
