// Source: llvm/llvm-project mlir/test/Dialect/Linalg/generalize-named-polymorphic-ops.mlir (commit 03a5b92df2dd58ec447a46f18d1640e43f91d04a), https://github.com/llvm/llvm-project/blob/03a5b92df2dd58ec447a46f18d1640e43f91d04a/mlir/test/Dialect/Linalg/generalize-named-polymorphic-ops.mlir
// What: linalg.pooling_nhwc_max with a 2x2 window, dilations [1, 2] and strides [2, 4], into its init operand.
// Adaptations: kept only @generalize_pooling_nhwc_max_f32 of the split file (dropped the CHECK lines and the other splits); added the gradir entry @vjp_pool (autodiff.vjp wrt the input and the init; the window operand only provides the shape) below the marker.
// gradir-corpus: entry=generalize_pooling_nhwc_max_f32 wrt=0,2 reference=mlir_pool_nhwc_max_strided inputs=signed

func.func @generalize_pooling_nhwc_max_f32(%input : tensor<1x4x16x1xf32>, %shape: tensor<2x2xf32>, %output: tensor<1x2x4x1xf32>) -> tensor<1x2x4x1xf32> {
  %0 = linalg.pooling_nhwc_max {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 4]> : tensor<2xi64>}
    ins(%input, %shape : tensor<1x4x16x1xf32>, tensor<2x2xf32>) outs(%output : tensor<1x2x4x1xf32>) -> tensor<1x2x4x1xf32>
  return %0: tensor<1x2x4x1xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_pool(%i: tensor<1x4x16x1xf32>, %s: tensor<2x2xf32>, %o: tensor<1x2x4x1xf32>, %ct: tensor<1x2x4x1xf32>) -> (tensor<1x2x4x1xf32>, tensor<1x4x16x1xf32>, tensor<1x2x4x1xf32>) {
  %r:3 = autodiff.vjp @generalize_pooling_nhwc_max_f32(%i, %s, %o, %ct) {wrt = array<i64: 0, 2>} : (tensor<1x4x16x1xf32>, tensor<2x2xf32>, tensor<1x2x4x1xf32>, tensor<1x2x4x1xf32>) -> (tensor<1x2x4x1xf32>, tensor<1x4x16x1xf32>, tensor<1x2x4x1xf32>)
  return %r#0, %r#1, %r#2 : tensor<1x2x4x1xf32>, tensor<1x4x16x1xf32>, tensor<1x2x4x1xf32>
}
