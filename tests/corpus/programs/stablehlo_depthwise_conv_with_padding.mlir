// Source: openxla/stablehlo stablehlo/conversions/linalg/tests/convolution.mlir (commit 3c9301c116f97fbaf696959a0ede32712aec587b), https://github.com/openxla/stablehlo/blob/3c9301c116f97fbaf696959a0ede32712aec587b/stablehlo/conversions/linalg/tests/convolution.mlir
// What: a grouped stablehlo.convolution (feature_group_count 2, channel multiplier 2, padding [[0,0],[1,1]]) as emitted: tensor.pad of the input, the filter reshaped 2x2x1x4 -> 16 -> 2x2x2x2 (collapse_shape then expand_shape, splitting the output features into channel x multiplier), linalg.depthwise_conv_2d_nhwc_hwcm into a zero fill, and collapse_shape of the 5-d result to NHWC.
// Adaptations: the function is the linalg that `stablehlo-opt --stablehlo-legalize-to-linalg --canonicalize` emits for the upstream stablehlo function, reconstructed by hand from its CHECK lines (SSA names, map aliases and op order as the CHECK lines give them; upstream stablehlo input and CHECK lines themselves not copied); @depthwise_conv_with_padding only; the test's marker attribute someattr on the depthwise convolution dropped; added the gradir entry @vjp_depthwise_conv_with_padding (autodiff.vjp wrt input and filter) below the marker.
// gradir-corpus: entry=depthwise_conv_with_padding wrt=0,1 reference=stablehlo_depthwise_conv_with_padding inputs=signed

func.func @depthwise_conv_with_padding(%arg0: tensor<2x4x5x2xf32>, %arg1: tensor<2x2x1x4xf32>) -> tensor<2x3x6x4xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %padded = tensor.pad %arg0 low[0, 0, 1, 0] high[0, 0, 1, 0] {
  ^bb0(%arg2: index, %arg3: index, %arg4: index, %arg5: index):
    tensor.yield %cst : f32
  } : tensor<2x4x5x2xf32> to tensor<2x4x7x2xf32>
  %collapsed = tensor.collapse_shape %arg1 [[0, 1, 2, 3]] : tensor<2x2x1x4xf32> into tensor<16xf32>
  %expanded = tensor.expand_shape %collapsed [[0, 1, 2, 3]] output_shape [2, 2, 2, 2] : tensor<16xf32> into tensor<2x2x2x2xf32>
  %0 = tensor.empty() : tensor<2x3x6x2x2xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x3x6x2x2xf32>) -> tensor<2x3x6x2x2xf32>
  %2 = linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%padded, %expanded : tensor<2x4x7x2xf32>, tensor<2x2x2x2xf32>) outs(%1 : tensor<2x3x6x2x2xf32>) -> tensor<2x3x6x2x2xf32>
  %collapsed_0 = tensor.collapse_shape %2 [[0], [1], [2], [3, 4]] : tensor<2x3x6x2x2xf32> into tensor<2x3x6x4xf32>
  return %collapsed_0 : tensor<2x3x6x4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_depthwise_conv_with_padding(%a0: tensor<2x4x5x2xf32>, %a1: tensor<2x2x1x4xf32>, %c0: tensor<2x3x6x4xf32>) -> (tensor<2x3x6x4xf32>, tensor<2x4x5x2xf32>, tensor<2x2x1x4xf32>) {
  %r:3 = autodiff.vjp @depthwise_conv_with_padding(%a0, %a1, %c0) {wrt = array<i64: 0, 1>} : (tensor<2x4x5x2xf32>, tensor<2x2x1x4xf32>, tensor<2x3x6x4xf32>) -> (tensor<2x3x6x4xf32>, tensor<2x4x5x2xf32>, tensor<2x2x1x4xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x3x6x4xf32>, tensor<2x4x5x2xf32>, tensor<2x2x1x4xf32>
}
