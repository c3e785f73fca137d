// Source: llvm/llvm-project mlir/test/Dialect/Tensor/decompose-gather.mlir (commit 483eb7a37d4825ceb8dcf542fcd21e508a64e2c7), https://github.com/llvm/llvm-project/blob/483eb7a37d4825ceb8dcf542fcd21e508a64e2c7/mlir/test/Dialect/Tensor/decompose-gather.mlir
// What: tensor.gather of a 2x2x2x2 tensor along dimensions 1 and 2 at a 2x3 grid of index pairs, the gathered dimensions kept as unit dimensions (gather_dims([1, 2]), no rank reduction).
// Adaptations: kept only @gather_multiple_gather_dim_no_shrink of the file (dropped the CHECK lines, the other functions and the transform schedule); added the gradir entry @vjp_gather (autodiff.vjp wrt the source) below the marker.
// gradir-corpus: entry=gather_multiple_gather_dim_no_shrink wrt=0 reference=mlir_gather_dims12_keep inputs=signed

func.func @gather_multiple_gather_dim_no_shrink(%arg0: tensor<2x2x2x2xf32>, %arg1: tensor<2x3x2xindex>) -> tensor<2x3x2x1x1x2xf32> {
    %1 = tensor.gather %arg0[%arg1] gather_dims([1, 2]) : (tensor<2x2x2x2xf32>, tensor<2x3x2xindex>) -> tensor<2x3x2x1x1x2xf32>
  return %1 : tensor<2x3x2x1x1x2xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_gather(%x: tensor<2x2x2x2xf32>, %i: tensor<2x3x2xindex>, %ct: tensor<2x3x2x1x1x2xf32>) -> (tensor<2x3x2x1x1x2xf32>, tensor<2x2x2x2xf32>) {
  %r:2 = autodiff.vjp @gather_multiple_gather_dim_no_shrink(%x, %i, %ct) {wrt = array<i64: 0>} : (tensor<2x2x2x2xf32>, tensor<2x3x2xindex>, tensor<2x3x2x1x1x2xf32>) -> (tensor<2x3x2x1x1x2xf32>, tensor<2x2x2x2xf32>)
  return %r#0, %r#1 : tensor<2x3x2x1x1x2xf32>, tensor<2x2x2x2xf32>
}
