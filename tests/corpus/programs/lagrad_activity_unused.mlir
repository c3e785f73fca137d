// Source: pengmai/lagrad test/LAGrad/activity/unused.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/activity/unused.mlir
// What: elementwise tensor arith.mulf by a dense constant, with a second product of the argument computed and never used.
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration; added the gradir entry @vjp_unused (autodiff.vjp, the function returns a tensor) below the marker.
// gradir-corpus: entry=unused wrt=0 reference=lg_unused inputs=signed

func.func @unused(%arg0: tensor<3xf64>) -> tensor<3xf64> {
  %cst1 = arith.constant dense<-1.2> : tensor<3xf64>
  %cst2 = arith.constant dense<5.4> : tensor<3xf64>
  %1 = arith.mulf %arg0, %cst1 : tensor<3xf64>
  %2 = arith.mulf %arg0, %cst2 : tensor<3xf64>
  return %1 : tensor<3xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_unused(%x: tensor<3xf64>, %ct: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %r:2 = autodiff.vjp @unused(%x, %ct) {wrt = array<i64: 0>} : (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  return %r#0, %r#1 : tensor<3xf64>, tensor<3xf64>
}
