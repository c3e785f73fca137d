// Source: llvm/llvm-project mlir/test/Dialect/Linalg/generalize-named-polymorphic-ops.mlir (commit 03a5b92df2dd58ec447a46f18d1640e43f91d04a), https://github.com/llvm/llvm-project/blob/03a5b92df2dd58ec447a46f18d1640e43f91d04a/mlir/test/Dialect/Linalg/generalize-named-polymorphic-ops.mlir
// What: a mixed-precision linalg.matmul: an f16 left operand (extended) times an f64 right operand (truncated), accumulated into an f32 init.
// Adaptations: kept only @generalize_matmul_tensor_f16f64f32 of the split file (dropped the CHECK lines and the other splits); shapes reduced (A 16x8 -> 4x3, B 8x32 -> 3x5, C 16x32 -> 4x5); added the gradir entry @vjp_matmul (autodiff.vjp) below the marker.
// gradir-corpus: entry=generalize_matmul_tensor_f16f64f32 wrt=0,1,2 reference=mlir_matmul_acc inputs=signed

func.func @generalize_matmul_tensor_f16f64f32(%A : tensor<4x3xf16>, %B: tensor<3x5xf64>, %C: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = linalg.matmul ins(%A, %B: tensor<4x3xf16>, tensor<3x5xf64>)
                          outs(%C: tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0: tensor<4x5xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_matmul(%a: tensor<4x3xf16>, %b: tensor<3x5xf64>, %c: tensor<4x5xf32>, %ct: tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x3xf16>, tensor<3x5xf64>, tensor<4x5xf32>) {
  %r:4 = autodiff.vjp @generalize_matmul_tensor_f16f64f32(%a, %b, %c, %ct) {wrt = array<i64: 0, 1, 2>} : (tensor<4x3xf16>, tensor<3x5xf64>, tensor<4x5xf32>, tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x3xf16>, tensor<3x5xf64>, tensor<4x5xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<4x5xf32>, tensor<4x3xf16>, tensor<3x5xf64>, tensor<4x5xf32>
}
