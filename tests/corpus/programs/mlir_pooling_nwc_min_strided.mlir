// Source: llvm/llvm-project mlir/test/Dialect/Linalg/generalize-named-polymorphic-ops.mlir (commit 03a5b92df2dd58ec447a46f18d1640e43f91d04a), https://github.com/llvm/llvm-project/blob/03a5b92df2dd58ec447a46f18d1640e43f91d04a/mlir/test/Dialect/Linalg/generalize-named-polymorphic-ops.mlir
// What: linalg.pooling_nwc_min with a window of 2, dilation 2 and stride 4, into its init operand.
// Adaptations: kept only @generalize_pooling_nwc_min_f32 of the split file (dropped the CHECK lines and the other splits); added the gradir entry @vjp_pool (autodiff.vjp wrt the input and the init; the window operand only provides the shape) below the marker.
// gradir-corpus: entry=generalize_pooling_nwc_min_f32 wrt=0,2 reference=mlir_pool_nwc_min_strided inputs=signed

func.func @generalize_pooling_nwc_min_f32(%input : tensor<1x16x1xf32>, %shape: tensor<2xf32>, %output: tensor<1x4x1xf32>) -> tensor<1x4x1xf32> {
  %0 = linalg.pooling_nwc_min {dilations = dense<[2]> : tensor<1xi64>, strides = dense<[4]> : tensor<1xi64>}
    ins(%input, %shape : tensor<1x16x1xf32>, tensor<2xf32>) outs(%output : tensor<1x4x1xf32>) -> tensor<1x4x1xf32>
  return %0: tensor<1x4x1xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_pool(%i: tensor<1x16x1xf32>, %s: tensor<2xf32>, %o: tensor<1x4x1xf32>, %ct: tensor<1x4x1xf32>) -> (tensor<1x4x1xf32>, tensor<1x16x1xf32>, tensor<1x4x1xf32>) {
  %r:3 = autodiff.vjp @generalize_pooling_nwc_min_f32(%i, %s, %o, %ct) {wrt = array<i64: 0, 2>} : (tensor<1x16x1xf32>, tensor<2xf32>, tensor<1x4x1xf32>, tensor<1x4x1xf32>) -> (tensor<1x4x1xf32>, tensor<1x16x1xf32>, tensor<1x4x1xf32>)
  return %r#0, %r#1, %r#2 : tensor<1x4x1xf32>, tensor<1x16x1xf32>, tensor<1x4x1xf32>
}
