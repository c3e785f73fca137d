// Source: llvm/llvm-project mlir/test/Dialect/Linalg/transform-op-decompose.mlir (commit 005330bd1da279cf9567db6dc79359127e820ab6), https://github.com/llvm/llvm-project/blob/005330bd1da279cf9567db6dc79359127e820ab6/mlir/test/Dialect/Linalg/transform-op-decompose.mlir
// What: linalg.pooling_nhwc_max (window given by the shape of a filter operand) into its init operand.
// Adaptations: kept only @pooling_nhwc_max of the file (dropped the CHECK lines, the other functions and the transform schedule); dynamic shapes made static (input ?x1x?x? -> 2x1x5x3, window 1x? -> 1x2, init ?x1x?x? -> 2x1x4x3); added the gradir entry @vjp_pooling_nhwc_max (autodiff.vjp) below the marker.
// gradir-corpus: entry=pooling_nhwc_max wrt=0 reference=pooling_nhwc_max inputs=pooling_max

func.func @pooling_nhwc_max(%input: tensor<2x1x5x3xf32>, %filter: tensor<1x2xf32>, %init: tensor<2x1x4x3xf32>) -> tensor<2x1x4x3xf32> {
  %0 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>,
                                strides = dense<1> : tensor<2xi64>}
     ins (%input, %filter: tensor<2x1x5x3xf32>, tensor<1x2xf32>)
    outs (%init: tensor<2x1x4x3xf32>) -> tensor<2x1x4x3xf32>
  return %0 : tensor<2x1x4x3xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_pooling_nhwc_max(%i: tensor<2x1x5x3xf32>, %f: tensor<1x2xf32>, %o: tensor<2x1x4x3xf32>, %ct: tensor<2x1x4x3xf32>) -> (tensor<2x1x4x3xf32>, tensor<2x1x5x3xf32>) {
  %r:2 = autodiff.vjp @pooling_nhwc_max(%i, %f, %o, %ct) {wrt = array<i64: 0>} : (tensor<2x1x5x3xf32>, tensor<1x2xf32>, tensor<2x1x4x3xf32>, tensor<2x1x4x3xf32>) -> (tensor<2x1x4x3xf32>, tensor<2x1x5x3xf32>)
  return %r#0, %r#1 : tensor<2x1x4x3xf32>, tensor<2x1x5x3xf32>
}
