// Source: llvm/llvm-project mlir/test/Dialect/Linalg/transform-op-decompose.mlir (commit 005330bd1da279cf9567db6dc79359127e820ab6), https://github.com/llvm/llvm-project/blob/005330bd1da279cf9567db6dc79359127e820ab6/mlir/test/Dialect/Linalg/transform-op-decompose.mlir
// What: linalg.depthwise_conv_2d_nhwc_hwc with stride 2 along the width.
// Adaptations: kept only @depthwise_conv_2d_nhwc_hwc of the file (dropped the CHECK lines, the other functions and the transform schedule); shapes reduced (input 1x1x113x96 -> 1x1x9x4, filter 1x3x96 -> 1x3x4, output 1x1x56x96 -> 1x1x4x4); the init, a bare tensor.empty upstream (the convolution accumulates into undefined values), is zero-filled with linalg.fill so that the result is defined; added the gradir entry @vjp_depthwise (autodiff.vjp) below the marker.
// gradir-corpus: entry=depthwise_conv_2d_nhwc_hwc wrt=0,1 reference=depthwise_conv_2d_nhwc_hwc inputs=signed

func.func @depthwise_conv_2d_nhwc_hwc(%input: tensor<1x1x9x4xf32>, %filter: tensor<1x3x4xf32>) -> tensor<1x1x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x1x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
         ins(%input, %filter: tensor<1x1x9x4xf32>, tensor<1x3x4xf32>)
         outs(%init: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32>
  return %0: tensor<1x1x4x4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_depthwise(%i: tensor<1x1x9x4xf32>, %f: tensor<1x3x4xf32>, %ct: tensor<1x1x4x4xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x9x4xf32>, tensor<1x3x4xf32>) {
  %r:3 = autodiff.vjp @depthwise_conv_2d_nhwc_hwc(%i, %f, %ct) {wrt = array<i64: 0, 1>} : (tensor<1x1x9x4xf32>, tensor<1x3x4xf32>, tensor<1x1x4x4xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x9x4xf32>, tensor<1x3x4xf32>)
  return %r#0, %r#1, %r#2 : tensor<1x1x4x4xf32>, tensor<1x1x9x4xf32>, tensor<1x3x4xf32>
}
