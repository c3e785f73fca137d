// Source: llvm/llvm-project mlir/test/Dialect/Linalg/named-ops.mlir (commit 03464b2ca766d6d8d3ee5768553e1add0d3e3230), https://github.com/llvm/llvm-project/blob/03464b2ca766d6d8d3ee5768553e1add0d3e3230/mlir/test/Dialect/Linalg/named-ops.mlir
// What: linalg.depthwise_conv_3d_ndhwc_dhwcm with different strides per spatial dimension ([2, 1, 3]) and a channel multiplier, on a zero-filled init.
// Adaptations: kept only @depthwise_conv_3d_ndhwc_dhwcm of the split file (dropped the CHECK line and the other splits); shapes reduced (input 2x6x13x12x6 -> 1x4x2x6x2, filter 2x1x3x6x6 -> 2x1x3x2x2, result 2x3x13x4x6x6 -> 1x2x2x2x2x2; the strides [2, 1, 3] kept); added the gradir entry @vjp_depthwise_conv_3d_ndhwc_dhwcm (autodiff.vjp wrt input and filter) below the marker.
// gradir-corpus: entry=depthwise_conv_3d_ndhwc_dhwcm wrt=0,1 reference=mu_depthwise_3d_ndhwc_dhwcm inputs=signed

func.func @depthwise_conv_3d_ndhwc_dhwcm(%input: tensor<1x4x2x6x2xf32>, %filter: tensor<2x1x3x2x2xf32>) -> tensor<1x2x2x2x2x2xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %init = tensor.empty() : tensor<1x2x2x2x2x2xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<1x2x2x2x2x2xf32>) -> tensor<1x2x2x2x2x2xf32>
  %0 = linalg.depthwise_conv_3d_ndhwc_dhwcm {dilations = dense<1> : tensor<3xi64>, strides = dense<[2, 1, 3]> : tensor<3xi64>}
    ins(%input, %filter : tensor<1x4x2x6x2xf32>, tensor<2x1x3x2x2xf32>)
    outs(%fill : tensor<1x2x2x2x2x2xf32>) -> tensor<1x2x2x2x2x2xf32>
  return %0 : tensor<1x2x2x2x2x2xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_depthwise_conv_3d_ndhwc_dhwcm(%a0: tensor<1x4x2x6x2xf32>, %a1: tensor<2x1x3x2x2xf32>, %c0: tensor<1x2x2x2x2x2xf32>) -> (tensor<1x2x2x2x2x2xf32>, tensor<1x4x2x6x2xf32>, tensor<2x1x3x2x2xf32>) {
  %r:3 = autodiff.vjp @depthwise_conv_3d_ndhwc_dhwcm(%a0, %a1, %c0) {wrt = array<i64: 0, 1>} : (tensor<1x4x2x6x2xf32>, tensor<2x1x3x2x2xf32>, tensor<1x2x2x2x2x2xf32>) -> (tensor<1x2x2x2x2x2xf32>, tensor<1x4x2x6x2xf32>, tensor<2x1x3x2x2xf32>)
  return %r#0, %r#1, %r#2 : tensor<1x2x2x2x2x2xf32>, tensor<1x4x2x6x2xf32>, tensor<2x1x3x2x2xf32>
}
