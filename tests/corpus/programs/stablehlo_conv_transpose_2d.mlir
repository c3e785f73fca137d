// Source: openxla/stablehlo stablehlo/conversions/linalg/tests/convolution.mlir (commit 3c9301c116f97fbaf696959a0ede32712aec587b), https://github.com/openxla/stablehlo/blob/3c9301c116f97fbaf696959a0ede32712aec587b/stablehlo/conversions/linalg/tests/convolution.mlir
// What: a transposed convolution (stablehlo.convolution with lhs_dilate [1, 2], rhs_dilate [2, 2] and padding) as emitted: the dilated and padded input is a strided tensor.insert_slice ([0, p, p, 0], strides [1, 1, 2, 1]) of the input into a zero fill, then linalg.conv_2d_nhwc_hwcf with dilations 2 into a zero fill.
// Adaptations: the function is the linalg that `stablehlo-opt --stablehlo-legalize-to-linalg --canonicalize` emits for the upstream stablehlo function, reconstructed by hand from its CHECK lines (SSA names, map aliases and op order as the CHECK lines give them; upstream stablehlo input and CHECK lines themselves not copied); @conv_transpose_2d only; sizes reduced (input 2x9x10x3 -> 1x3x3x2, filter 4x4x3x3 -> 2x2x2x2, padding 6 -> 2 on each side, so the padded input 2x21x31x3 -> 1x7x9x2 and the result 2x15x25x3 -> 1x5x7x2; the insert_slice offsets [0, 6, 6, 0] -> [0, 2, 2, 0]); added the gradir entry @vjp_conv_transpose_2d (autodiff.vjp wrt input and filter) below the marker.
// gradir-corpus: entry=conv_transpose_2d wrt=0,1 reference=stablehlo_conv_transpose_2d inputs=signed

func.func @conv_transpose_2d(%arg0: tensor<1x3x3x2xf32>, %arg1: tensor<2x2x2x2xf32>) -> tensor<1x5x7x2xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<1x5x7x2xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x5x7x2xf32>) -> tensor<1x5x7x2xf32>
  %2 = tensor.empty() : tensor<1x7x9x2xf32>
  %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<1x7x9x2xf32>) -> tensor<1x7x9x2xf32>
  %inserted_slice = tensor.insert_slice %arg0 into %3[0, 2, 2, 0] [1, 3, 3, 2] [1, 1, 2, 1] : tensor<1x3x3x2xf32> into tensor<1x7x9x2xf32>
  %4 = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%inserted_slice, %arg1 : tensor<1x7x9x2xf32>, tensor<2x2x2x2xf32>) outs(%1 : tensor<1x5x7x2xf32>) -> tensor<1x5x7x2xf32>
  return %4 : tensor<1x5x7x2xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_conv_transpose_2d(%a0: tensor<1x3x3x2xf32>, %a1: tensor<2x2x2x2xf32>, %c0: tensor<1x5x7x2xf32>) -> (tensor<1x5x7x2xf32>, tensor<1x3x3x2xf32>, tensor<2x2x2x2xf32>) {
  %r:3 = autodiff.vjp @conv_transpose_2d(%a0, %a1, %c0) {wrt = array<i64: 0, 1>} : (tensor<1x3x3x2xf32>, tensor<2x2x2x2xf32>, tensor<1x5x7x2xf32>) -> (tensor<1x5x7x2xf32>, tensor<1x3x3x2xf32>, tensor<2x2x2x2xf32>)
  return %r#0, %r#1, %r#2 : tensor<1x5x7x2xf32>, tensor<1x3x3x2xf32>, tensor<2x2x2x2xf32>
}
