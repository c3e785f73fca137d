// Source: llvm/llvm-project mlir/test/Dialect/Linalg/transform-op-decompose.mlir (commit 005330bd1da279cf9567db6dc79359127e820ab6), https://github.com/llvm/llvm-project/blob/005330bd1da279cf9567db6dc79359127e820ab6/mlir/test/Dialect/Linalg/transform-op-decompose.mlir
// What: linalg.conv_2d (plain 2-d convolution, no batch or channels) accumulating into its init operand.
// Adaptations: kept only @conv_2d of the file (dropped the CHECK lines, the other functions and the transform schedule); dynamic shapes made static (input 1x? -> 1x6, filter 1x? -> 1x3, init 1x? -> 1x4); added the gradir entry @vjp_conv_2d (autodiff.vjp) below the marker.
// gradir-corpus: entry=conv_2d wrt=0,1,2 reference=conv_2d inputs=signed

func.func @conv_2d(%input: tensor<1x6xf32>, %filter: tensor<1x3xf32>, %init: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %0 = linalg.conv_2d
     ins (%input, %filter: tensor<1x6xf32>, tensor<1x3xf32>)
    outs (%init: tensor<1x4xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_conv_2d(%i: tensor<1x6xf32>, %f: tensor<1x3xf32>, %o: tensor<1x4xf32>, %ct: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x6xf32>, tensor<1x3xf32>, tensor<1x4xf32>) {
  %r:4 = autodiff.vjp @conv_2d(%i, %f, %o, %ct) {wrt = array<i64: 0, 1, 2>} : (tensor<1x6xf32>, tensor<1x3xf32>, tensor<1x4xf32>, tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x6xf32>, tensor<1x3xf32>, tensor<1x4xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<1x4xf32>, tensor<1x6xf32>, tensor<1x3xf32>, tensor<1x4xf32>
}
