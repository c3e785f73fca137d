// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/test-conv-1d-call.mlir (commit 0578ec0adcbd4c76ef593a4334bf0d721c228b6b), https://github.com/llvm/llvm-project/blob/0578ec0adcbd4c76ef593a4334bf0d721c228b6b/mlir/test/Integration/Dialect/Linalg/CPU/test-conv-1d-call.mlir
// What: linalg.conv_1d (plain 1-d convolution, no batch or channels) accumulating into its init operand.
// Adaptations: memref -> tensor: the function takes the output as a tensor init and returns the convolution result (upstream writes into a memref<?xf32> out-parameter); dynamic shapes made static at upstream's sizes (input 8, filter 3, output 6); dropped @alloc_1d_filled_f32, @main, the transform schedule, the print declaration and the RUN/CHECK lines; added the gradir entry @vjp_conv_1d (autodiff.vjp) below the marker.
// gradir-corpus: entry=conv_1d wrt=0,1,2 reference=mlir_conv_1d inputs=signed

func.func @conv_1d(%arg0: tensor<8xf32>, %arg1: tensor<3xf32>, %arg2: tensor<6xf32>) -> tensor<6xf32> {
  %0 = linalg.conv_1d ins (%arg0, %arg1: tensor<8xf32>, tensor<3xf32>)
                outs (%arg2: tensor<6xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_conv_1d(%i: tensor<8xf32>, %f: tensor<3xf32>, %o: tensor<6xf32>, %ct: tensor<6xf32>) -> (tensor<6xf32>, tensor<8xf32>, tensor<3xf32>, tensor<6xf32>) {
  %r:4 = autodiff.vjp @conv_1d(%i, %f, %o, %ct) {wrt = array<i64: 0, 1, 2>} : (tensor<8xf32>, tensor<3xf32>, tensor<6xf32>, tensor<6xf32>) -> (tensor<6xf32>, tensor<8xf32>, tensor<3xf32>, tensor<6xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<6xf32>, tensor<8xf32>, tensor<3xf32>, tensor<6xf32>
}
