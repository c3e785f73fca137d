// Source: llvm/llvm-project mlir/test/Dialect/Linalg/generalize-named-ops.mlir (commit 011c120affcee3dc885874277526e5b1c909cc7f), https://github.com/llvm/llvm-project/blob/011c120affcee3dc885874277526e5b1c909cc7f/mlir/test/Dialect/Linalg/generalize-named-ops.mlir
// What: linalg.depthwise_conv_2d_nhwc_hwc (3x3 window) with strides 2, accumulating into its init operand.
// Adaptations: kept only @depthwise_conv_2d_nhwc_hwc of the split file (dropped the CHECK lines and the other splits); memref -> tensor: the function takes the output as a tensor init and returns the convolution result (upstream writes into a memref out-parameter); shapes reduced (input 1x113x113x96 -> 1x7x7x2, filter 3x3x96 -> 3x3x2, output 1x56x56x96 -> 1x3x3x2; the stride and window kept); added the gradir entry @vjp_dw (autodiff.vjp) below the marker.
// gradir-corpus: entry=depthwise_conv_2d_nhwc_hwc wrt=0,1,2 reference=mlir_depthwise_hwc_strided inputs=signed

func.func @depthwise_conv_2d_nhwc_hwc(%input: tensor<1x7x7x2xf32>, %filter: tensor<3x3x2xf32>, %output: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
    ins(%input, %filter: tensor<1x7x7x2xf32>, tensor<3x3x2xf32>)
    outs(%output: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  return %0 : tensor<1x3x3x2xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_dw(%i: tensor<1x7x7x2xf32>, %f: tensor<3x3x2xf32>, %o: tensor<1x3x3x2xf32>, %ct: tensor<1x3x3x2xf32>) -> (tensor<1x3x3x2xf32>, tensor<1x7x7x2xf32>, tensor<3x3x2xf32>, tensor<1x3x3x2xf32>) {
  %r:4 = autodiff.vjp @depthwise_conv_2d_nhwc_hwc(%i, %f, %o, %ct) {wrt = array<i64: 0, 1, 2>} : (tensor<1x7x7x2xf32>, tensor<3x3x2xf32>, tensor<1x3x3x2xf32>, tensor<1x3x3x2xf32>) -> (tensor<1x3x3x2xf32>, tensor<1x7x7x2xf32>, tensor<3x3x2xf32>, tensor<1x3x3x2xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<1x3x3x2xf32>, tensor<1x7x7x2xf32>, tensor<3x3x2xf32>, tensor<1x3x3x2xf32>
}
