// Source: pengmai/lagrad test/LAGrad/generic/nonconst_out.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/generic/nonconst_out.mlir
// What: linalg.matvec accumulating into a computed (non-constant) init C * B.
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration; removed the upstream comment lines (file descriptions, commented-out code); added the gradir entry @vjp_f (autodiff.vjp) below the marker.
// gradir-corpus: entry=f wrt=0,1,2 reference=nonconst_out

func.func @f(%A: tensor<4x4xf64>, %B: tensor<4xf64>, %C: tensor<4xf64>) -> tensor<4xf64> {
  %out_0 = arith.mulf %C, %B : tensor<4xf64>
  %out_1 = linalg.matvec ins(%A, %B : tensor<4x4xf64>, tensor<4xf64>) outs(%out_0 : tensor<4xf64>) -> tensor<4xf64>
  return %out_1 : tensor<4xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_f(%a: tensor<4x4xf64>, %b: tensor<4xf64>, %c: tensor<4xf64>, %ct: tensor<4xf64>) -> (tensor<4xf64>, tensor<4x4xf64>, tensor<4xf64>, tensor<4xf64>) {
  %r:4 = autodiff.vjp @f(%a, %b, %c, %ct) {wrt = array<i64: 0, 1, 2>} : (tensor<4x4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4x4xf64>, tensor<4xf64>, tensor<4xf64>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<4xf64>, tensor<4x4xf64>, tensor<4xf64>, tensor<4xf64>
}
