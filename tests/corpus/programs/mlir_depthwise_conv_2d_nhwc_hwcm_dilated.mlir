// Source: llvm/llvm-project mlir/test/Dialect/Linalg/generalize-named-ops.mlir (commit 011c120affcee3dc885874277526e5b1c909cc7f), https://github.com/llvm/llvm-project/blob/011c120affcee3dc885874277526e5b1c909cc7f/mlir/test/Dialect/Linalg/generalize-named-ops.mlir
// What: linalg.depthwise_conv_2d_nhwc_hwcm (channel multiplier 3, a 5-d result) with dilations 2, accumulating into its init operand.
// Adaptations: kept only the second @depthwise_conv_2d_nhwc_hwcm of the split file (the dilated one; dropped the CHECK lines and the other splits); memref -> tensor: the function takes the output as a tensor init and returns the convolution result (upstream writes into a memref<2x2x3x2x3xf32> out-parameter), same shapes; added the gradir entry @vjp_dw (autodiff.vjp) below the marker.
// gradir-corpus: entry=depthwise_conv_2d_nhwc_hwcm wrt=0,1,2 reference=mlir_depthwise_hwcm_dilated inputs=signed

func.func @depthwise_conv_2d_nhwc_hwcm(%input: tensor<2x4x5x2xf32>, %filter: tensor<2x2x2x3xf32>, %output: tensor<2x2x3x2x3xf32>) -> tensor<2x2x3x2x3xf32> {
  %0 = linalg.depthwise_conv_2d_nhwc_hwcm
     { dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64> }
     ins(%input, %filter : tensor<2x4x5x2xf32>, tensor<2x2x2x3xf32>)
    outs(%output : tensor<2x2x3x2x3xf32>) -> tensor<2x2x3x2x3xf32>
  return %0 : tensor<2x2x3x2x3xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_dw(%i: tensor<2x4x5x2xf32>, %f: tensor<2x2x2x3xf32>, %o: tensor<2x2x3x2x3xf32>, %ct: tensor<2x2x3x2x3xf32>) -> (tensor<2x2x3x2x3xf32>, tensor<2x4x5x2xf32>, tensor<2x2x2x3xf32>, tensor<2x2x3x2x3xf32>) {
  %r:4 = autodiff.vjp @depthwise_conv_2d_nhwc_hwcm(%i, %f, %o, %ct) {wrt = array<i64: 0, 1, 2>} : (tensor<2x4x5x2xf32>, tensor<2x2x2x3xf32>, tensor<2x2x3x2x3xf32>, tensor<2x2x3x2x3xf32>) -> (tensor<2x2x3x2x3xf32>, tensor<2x4x5x2xf32>, tensor<2x2x2x3xf32>, tensor<2x2x3x2x3xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<2x2x3x2x3xf32>, tensor<2x4x5x2xf32>, tensor<2x2x2x3xf32>, tensor<2x2x3x2x3xf32>
}
