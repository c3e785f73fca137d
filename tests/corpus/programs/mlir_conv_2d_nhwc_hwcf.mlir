// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/test-conv-2d-nhwc-hwcf-call.mlir (commit 058ca9294e9ea00646f6e7bf445fc38b5b901c2d), https://github.com/llvm/llvm-project/blob/058ca9294e9ea00646f6e7bf445fc38b5b901c2d/mlir/test/Integration/Dialect/Linalg/CPU/test-conv-2d-nhwc-hwcf-call.mlir
// What: linalg.conv_2d_nhwc_hwcf (strides 1, dilations 1) accumulating into its init operand.
// Adaptations: memref -> tensor: the function takes the output as a tensor init and returns the convolution result (upstream writes into a memref<?x?x?x?xf32> out-parameter); dynamic shapes made static and small (input 2x5x5x2, filter 3x3x2x2, output 2x3x3x2; upstream runs 3x8x8x3, 3x3x3x1, 3x6x6x1); dropped @alloc_4d_filled_f32, @main, the transform schedule and the print declaration; added the gradir entry @vjp_conv (autodiff.vjp) below the marker.
// gradir-corpus: entry=conv_2d_nhwc_hwcf wrt=0,1,2 reference=conv_2d_nhwc_hwcf inputs=signed

func.func @conv_2d_nhwc_hwcf(%arg0: tensor<2x5x5x2xf32>, %arg1: tensor<3x3x2x2xf32>, %arg2: tensor<2x3x3x2xf32>) -> tensor<2x3x3x2xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>,
                          strides = dense<1> : tensor<2xi64>}
     ins (%arg0, %arg1: tensor<2x5x5x2xf32>, tensor<3x3x2x2xf32>)
    outs (%arg2: tensor<2x3x3x2xf32>) -> tensor<2x3x3x2xf32>
  return %0 : tensor<2x3x3x2xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_conv(%i: tensor<2x5x5x2xf32>, %f: tensor<3x3x2x2xf32>, %o: tensor<2x3x3x2xf32>, %ct: tensor<2x3x3x2xf32>) -> (tensor<2x3x3x2xf32>, tensor<2x5x5x2xf32>, tensor<3x3x2x2xf32>, tensor<2x3x3x2xf32>) {
  %r:4 = autodiff.vjp @conv_2d_nhwc_hwcf(%i, %f, %o, %ct) {wrt = array<i64: 0, 1, 2>} : (tensor<2x5x5x2xf32>, tensor<3x3x2x2xf32>, tensor<2x3x3x2xf32>, tensor<2x3x3x2xf32>) -> (tensor<2x3x3x2xf32>, tensor<2x5x5x2xf32>, tensor<3x3x2x2xf32>, tensor<2x3x3x2xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<2x3x3x2xf32>, tensor<2x5x5x2xf32>, tensor<3x3x2x2xf32>, tensor<2x3x3x2xf32>
}
