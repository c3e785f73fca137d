// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/test-tensor-matmul.mlir (commit 058ca9294e9ea00646f6e7bf445fc38b5b901c2d), https://github.com/llvm/llvm-project/blob/058ca9294e9ea00646f6e7bf445fc38b5b901c2d/mlir/test/Integration/Dialect/Linalg/CPU/test-tensor-matmul.mlir
// What: linalg.matmul on tensors accumulating into a dense<1000.0> constant.
// Adaptations: the body of upstream's @main turned into a function @matmul_acc: the constants %A and %B became its arguments (same shapes), %C stays a constant; dropped the printing (tensor.cast, call to @printMemrefF32), its declaration and the transform schedule; added the gradir entry @vjp_matmul_acc (autodiff.vjp) below the marker.
// gradir-corpus: entry=matmul_acc wrt=0,1 reference=matmul_acc inputs=signed

func.func @matmul_acc(%A: tensor<2x3xf32>, %B: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %C = arith.constant dense<1000.0> : tensor<2x4xf32>

  %D = linalg.matmul ins(%A, %B: tensor<2x3xf32>, tensor<3x4xf32>)
                     outs(%C: tensor<2x4xf32>) -> tensor<2x4xf32>
  return %D : tensor<2x4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_matmul_acc(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %ct: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x3xf32>, tensor<3x4xf32>) {
  %r:3 = autodiff.vjp @matmul_acc(%a, %b, %ct) {wrt = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<2x3xf32>, tensor<3x4xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x4xf32>, tensor<2x3xf32>, tensor<3x4xf32>
}
