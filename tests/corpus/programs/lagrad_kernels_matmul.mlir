// Source: pengmai/lagrad test/LAGrad/kernels/matmul.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/kernels/matmul.mlir
// What: the named op linalg.matmul on f32 3x4 and 4x5 into a dense zero constant.
// Adaptations: `func` -> `func.func`; removed the commented-out code (map aliases and a hand-written adjoint); dropped the wrapper @grad_matmul (std `constant`, `standalone.grad`, `call_indirect`); added the gradir entry @vjp_matmul (autodiff.vjp wrt both arguments; upstream's wrapper differentiates the first) below the marker.
// gradir-corpus: entry=matmul wrt=0,1 reference=lg_matmul inputs=signed

func.func @matmul(%A : tensor<3x4xf32>, %B : tensor<4x5xf32>) -> tensor<3x5xf32> {
  %out = arith.constant dense<0.0> : tensor<3x5xf32>
  %res = linalg.matmul ins(%A, %B : tensor<3x4xf32>, tensor<4x5xf32>) outs(%out : tensor<3x5xf32>) -> tensor<3x5xf32>
  return %res : tensor<3x5xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_matmul(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %ct: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x4xf32>, tensor<4x5xf32>) {
  %r:3 = autodiff.vjp @matmul(%a, %b, %ct) {wrt = array<i64: 0, 1>} : (tensor<3x4xf32>, tensor<4x5xf32>, tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x4xf32>, tensor<4x5xf32>)
  return %r#0, %r#1, %r#2 : tensor<3x5xf32>, tensor<3x4xf32>, tensor<4x5xf32>
}
