// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/test-conv-1d-nwc-wcf-call.mlir (commit 058ca9294e9ea00646f6e7bf445fc38b5b901c2d), https://github.com/llvm/llvm-project/blob/058ca9294e9ea00646f6e7bf445fc38b5b901c2d/mlir/test/Integration/Dialect/Linalg/CPU/test-conv-1d-nwc-wcf-call.mlir
// What: linalg.conv_1d_nwc_wcf (batch 3, one channel in and out, strides 1, dilations 1) accumulating into its init operand.
// Adaptations: memref -> tensor: the function takes the output as a tensor init and returns the convolution result (upstream writes into a memref<?x?x?xf32> out-parameter); dynamic shapes made static at upstream's sizes (input 3x8x1, filter 3x1x1, output 3x6x1); dropped @alloc_3d_filled_f32, @main, the transform schedule, the print declaration and the RUN/CHECK lines; added the gradir entry @vjp_conv (autodiff.vjp) below the marker.
// gradir-corpus: entry=conv_1d_nwc_wcf wrt=0,1,2 reference=mlir_conv_1d_nwc_wcf inputs=signed

func.func @conv_1d_nwc_wcf(%arg0: tensor<3x8x1xf32>, %arg1: tensor<3x1x1xf32>, %arg2: tensor<3x6x1xf32>) -> tensor<3x6x1xf32> {
  %0 = linalg.conv_1d_nwc_wcf {dilations = dense<1> : tensor<1xi64>,
                         strides = dense<1> : tensor<1xi64>}
     ins (%arg0, %arg1: tensor<3x8x1xf32>, tensor<3x1x1xf32>)
    outs (%arg2: tensor<3x6x1xf32>) -> tensor<3x6x1xf32>
  return %0 : tensor<3x6x1xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_conv(%i: tensor<3x8x1xf32>, %f: tensor<3x1x1xf32>, %o: tensor<3x6x1xf32>, %ct: tensor<3x6x1xf32>) -> (tensor<3x6x1xf32>, tensor<3x8x1xf32>, tensor<3x1x1xf32>, tensor<3x6x1xf32>) {
  %r:4 = autodiff.vjp @conv_1d_nwc_wcf(%i, %f, %o, %ct) {wrt = array<i64: 0, 1, 2>} : (tensor<3x8x1xf32>, tensor<3x1x1xf32>, tensor<3x6x1xf32>, tensor<3x6x1xf32>) -> (tensor<3x6x1xf32>, tensor<3x8x1xf32>, tensor<3x1x1xf32>, tensor<3x6x1xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<3x6x1xf32>, tensor<3x8x1xf32>, tensor<3x1x1xf32>, tensor<3x6x1xf32>
}
