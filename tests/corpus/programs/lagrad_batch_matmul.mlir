// Source: pengmai/lagrad test/LAGrad/batch_matmul.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/batch_matmul.mlir
// What: linalg.batch_matmul on tensors with a zero constant accumulator.
// Adaptations: `func` -> `func.func`; dropped the driver @main (tensor.generate input, lagrad.grad, printing) and the print declaration; added the gradir entry @vjp_bmm (autodiff.vjp) below the marker.
// gradir-corpus: entry=bmm wrt=0,1 reference=bmm

func.func @bmm(%A: tensor<4x3x5xf64>, %B: tensor<4x5x3xf64>) -> tensor<4x3x3xf64> {
  %init = arith.constant dense<0.0> : tensor<4x3x3xf64>
  %out = linalg.batch_matmul ins(%A, %B : tensor<4x3x5xf64>, tensor<4x5x3xf64>) outs(%init : tensor<4x3x3xf64>) -> tensor<4x3x3xf64>
  return %out : tensor<4x3x3xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_bmm(%a: tensor<4x3x5xf64>, %b: tensor<4x5x3xf64>, %ct: tensor<4x3x3xf64>) -> (tensor<4x3x3xf64>, tensor<4x3x5xf64>, tensor<4x5x3xf64>) {
  %r:3 = autodiff.vjp @bmm(%a, %b, %ct) {wrt = array<i64: 0, 1>} : (tensor<4x3x5xf64>, tensor<4x5x3xf64>, tensor<4x3x3xf64>) -> (tensor<4x3x3xf64>, tensor<4x3x5xf64>, tensor<4x5x3xf64>)
  return %r#0, %r#1, %r#2 : tensor<4x3x3xf64>, tensor<4x3x5xf64>, tensor<4x5x3xf64>
}
