// Source: llvm/llvm-project mlir/test/Dialect/Linalg/generalize-named-ops.mlir (commit 011c120affcee3dc885874277526e5b1c909cc7f), https://github.com/llvm/llvm-project/blob/011c120affcee3dc885874277526e5b1c909cc7f/mlir/test/Dialect/Linalg/generalize-named-ops.mlir
// What: linalg.batch_reduce_matmul: the sum over the batch of A_b B_b, accumulated into a 2-d init.
// Adaptations: kept only @batch_reduce_gemm of the split file (dropped the CHECK lines and the other splits); memref -> tensor: the function takes the output as a tensor init and returns the result (upstream writes into a memref<8x8xf32> out-parameter); shapes reduced (lhs 7x8x9 -> 3x2x4, rhs 7x9x8 -> 3x4x2, out 8x8 -> 2x2); added the gradir entry @vjp_brgemm (autodiff.vjp) below the marker.
// gradir-corpus: entry=batch_reduce_gemm wrt=0,1,2 reference=mlir_batch_reduce_matmul inputs=signed

func.func @batch_reduce_gemm(%lhs: tensor<3x2x4xf32>, %rhs: tensor<3x4x2xf32>, %out: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = linalg.batch_reduce_matmul ins(%lhs, %rhs: tensor<3x2x4xf32>, tensor<3x4x2xf32>)
                             outs(%out: tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_brgemm(%a: tensor<3x2x4xf32>, %b: tensor<3x4x2xf32>, %c: tensor<2x2xf32>, %ct: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<3x2x4xf32>, tensor<3x4x2xf32>, tensor<2x2xf32>) {
  %r:4 = autodiff.vjp @batch_reduce_gemm(%a, %b, %c, %ct) {wrt = array<i64: 0, 1, 2>} : (tensor<3x2x4xf32>, tensor<3x4x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<3x2x4xf32>, tensor<3x4x2xf32>, tensor<2x2xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<2x2xf32>, tensor<3x2x4xf32>, tensor<3x4x2xf32>, tensor<2x2xf32>
}
