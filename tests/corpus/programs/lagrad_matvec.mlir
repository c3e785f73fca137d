// Source: pengmai/lagrad test/LAGrad/matvec.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/matvec.mlir
// What: linalg.matvec followed by an elementwise product with a constant vector (arith.mulf on tensors).
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration; removed the upstream comment lines (file descriptions, commented-out code); added the gradir entry @vjp_matvec (autodiff.vjp) below the marker.
// gradir-corpus: entry=matvec wrt=0,1 reference=matvec

func.func @matvec(%arg0 : tensor<3x4xf32>, %arg1 : tensor<4xf32>) -> tensor<3xf32> {
  %res = arith.constant dense<0.0> : tensor<3xf32>
  %val = linalg.matvec ins(%arg0, %arg1 : tensor<3x4xf32>, tensor<4xf32>) outs(%res : tensor<3xf32>) -> tensor<3xf32>
  %c = arith.constant dense<[1.1, -1.2, 1.0]> : tensor<3xf32>
  %final = arith.mulf %val, %c : tensor<3xf32>
  return %final : tensor<3xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_matvec(%a: tensor<3x4xf32>, %x: tensor<4xf32>, %ct: tensor<3xf32>) -> (tensor<3xf32>, tensor<3x4xf32>, tensor<4xf32>) {
  %r:3 = autodiff.vjp @matvec(%a, %x, %ct) {wrt = array<i64: 0, 1>} : (tensor<3x4xf32>, tensor<4xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3x4xf32>, tensor<4xf32>)
  return %r#0, %r#1, %r#2 : tensor<3xf32>, tensor<3x4xf32>, tensor<4xf32>
}
