// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/test-conv-3d-ndhwc-dhwcf-call.mlir (commit 207edf528f6b0311a74996a9bbdb9b2ef2618073), https://github.com/llvm/llvm-project/blob/207edf528f6b0311a74996a9bbdb9b2ef2618073/mlir/test/Integration/Dialect/Linalg/CPU/test-conv-3d-ndhwc-dhwcf-call.mlir
// What: linalg.conv_3d_ndhwc_dhwcf (3x3x3 window, one channel in and out, strides 1, dilations 1) accumulating into its init operand.
// Adaptations: memref -> tensor: the function takes the output as a tensor init and returns the convolution result (upstream writes into a memref<?x?x?x?x?xf32> out-parameter); dynamic shapes made static and smaller (input 1x4x4x4x1, filter 3x3x3x1x1, output 1x2x2x2x1; upstream runs 1x8x8x8x1 into 1x6x6x6x1); dropped @alloc_5d_filled_f32, @main, the transform schedule, the print declaration and the RUN/CHECK lines; added the gradir entry @vjp_conv (autodiff.vjp) below the marker.
// gradir-corpus: entry=conv_3d_ndhwc_dhwcf wrt=0,1,2 reference=mlir_conv_3d_ndhwc_dhwcf inputs=signed

func.func @conv_3d_ndhwc_dhwcf(%arg0: tensor<1x4x4x4x1xf32>, %arg1: tensor<3x3x3x1x1xf32>, %arg2: tensor<1x2x2x2x1xf32>) -> tensor<1x2x2x2x1xf32> {
  %0 = linalg.conv_3d_ndhwc_dhwcf {dilations = dense<1> : tensor<3xi64>,
                           strides = dense<1> : tensor<3xi64>}
     ins (%arg0, %arg1: tensor<1x4x4x4x1xf32>, tensor<3x3x3x1x1xf32>)
    outs (%arg2: tensor<1x2x2x2x1xf32>) -> tensor<1x2x2x2x1xf32>
  return %0 : tensor<1x2x2x2x1xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_conv(%i: tensor<1x4x4x4x1xf32>, %f: tensor<3x3x3x1x1xf32>, %o: tensor<1x2x2x2x1xf32>, %ct: tensor<1x2x2x2x1xf32>) -> (tensor<1x2x2x2x1xf32>, tensor<1x4x4x4x1xf32>, tensor<3x3x3x1x1xf32>, tensor<1x2x2x2x1xf32>) {
  %r:4 = autodiff.vjp @conv_3d_ndhwc_dhwcf(%i, %f, %o, %ct) {wrt = array<i64: 0, 1, 2>} : (tensor<1x4x4x4x1xf32>, tensor<3x3x3x1x1xf32>, tensor<1x2x2x2x1xf32>, tensor<1x2x2x2x1xf32>) -> (tensor<1x2x2x2x1xf32>, tensor<1x4x4x4x1xf32>, tensor<3x3x3x1x1xf32>, tensor<1x2x2x2x1xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<1x2x2x2x1xf32>, tensor<1x4x4x4x1xf32>, tensor<3x3x3x1x1xf32>, tensor<1x2x2x2x1xf32>
}
