// Source: pengmai/lagrad test/LAGrad/dot.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/dot.mlir
// What: linalg.dot of two vectors into a 0-d tensor.
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration; removed the upstream comment lines (file descriptions, commented-out code); added the gradir entry @grad_dot (autodiff.grad) below the marker.
// gradir-corpus: entry=dot wrt=0,1 reference=dot

func.func @dot(%arg0 : tensor<4xf32>, %arg1 : tensor<4xf32>) -> tensor<f32> {
  %res = arith.constant dense<0.0> : tensor<f32> // %res is used only for the shape information.
  %val = linalg.dot ins(%arg0, %arg1 : tensor<4xf32>, tensor<4xf32>) outs(%res : tensor<f32>) -> tensor<f32>
  return %val : tensor<f32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_dot(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %g:2 = autodiff.grad @dot(%a, %b) {wrt = array<i64: 0, 1>} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %g#0, %g#1 : tensor<4xf32>, tensor<4xf32>
}
