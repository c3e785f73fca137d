// Source: llvm/llvm-project mlir/test/Dialect/Linalg/generalize-named-ops.mlir (commit 011c120affcee3dc885874277526e5b1c909cc7f), https://github.com/llvm/llvm-project/blob/011c120affcee3dc885874277526e5b1c909cc7f/mlir/test/Dialect/Linalg/generalize-named-ops.mlir
// What: linalg.conv_1d_ncw_fcw (channels-first 1-d convolution, strides 1, dilations 1) accumulating into its init operand.
// Adaptations: kept only @conv_1d_ncw_fcw of the split file (dropped the CHECK lines and the other splits); memref -> tensor: the function takes the output as a tensor init and returns the convolution result (upstream writes into a memref<?x?x?xf32> out-parameter); dynamic shapes made static (input 2x3x6, filter 4x3x3, output 2x4x4); added the gradir entry @vjp_conv (autodiff.vjp) below the marker.
// gradir-corpus: entry=conv_1d_ncw_fcw wrt=0,1,2 reference=mlir_conv_1d_ncw_fcw inputs=signed

func.func @conv_1d_ncw_fcw(%input: tensor<2x3x6xf32>, %filter: tensor<4x3x3xf32>, %output: tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
  %0 = linalg.conv_1d_ncw_fcw {dilations = dense<1> : tensor<1xi64>,
                                       strides = dense<1> : tensor<1xi64>}
     ins (%input, %filter: tensor<2x3x6xf32>, tensor<4x3x3xf32>)
    outs (%output: tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  return %0 : tensor<2x4x4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_conv(%i: tensor<2x3x6xf32>, %f: tensor<4x3x3xf32>, %o: tensor<2x4x4xf32>, %ct: tensor<2x4x4xf32>) -> (tensor<2x4x4xf32>, tensor<2x3x6xf32>, tensor<4x3x3xf32>, tensor<2x4x4xf32>) {
  %r:4 = autodiff.vjp @conv_1d_ncw_fcw(%i, %f, %o, %ct) {wrt = array<i64: 0, 1, 2>} : (tensor<2x3x6xf32>, tensor<4x3x3xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> (tensor<2x4x4xf32>, tensor<2x3x6xf32>, tensor<4x3x3xf32>, tensor<2x4x4xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<2x4x4xf32>, tensor<2x3x6xf32>, tensor<4x3x3xf32>, tensor<2x4x4xf32>
}
