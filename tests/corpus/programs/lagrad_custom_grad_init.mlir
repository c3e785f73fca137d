// Source: pengmai/lagrad test/LAGrad/custom_grad_init.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/custom_grad_init.mlir
// What: elementwise tensor product with a non-uniform dense constant; upstream seeds it with a custom gradient signal (a Jacobian row), i.e. a vjp.
// Adaptations: `func` -> `func.func`; removed the upstream comment lines; dropped the driver @main and the print declaration (lagrad.grad {grad_signal}); added the gradir entry @vjp_custom_grad (autodiff.vjp, the same role as upstream's grad_signal) below the marker.
// gradir-corpus: entry=custom_grad wrt=0 reference=lg_custom_grad inputs=signed

func.func @custom_grad(%arg0: tensor<2xf64>) -> tensor<2xf64> {
  %cst = arith.constant dense<[2.3, -1.1]> : tensor<2xf64>
  %0 = arith.mulf %arg0, %cst : tensor<2xf64>
  return %0 : tensor<2xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_custom_grad(%x: tensor<2xf64>, %ct: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>) {
  %r:2 = autodiff.vjp @custom_grad(%x, %ct) {wrt = array<i64: 0>} : (tensor<2xf64>, tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>)
  return %r#0, %r#1 : tensor<2xf64>, tensor<2xf64>
}
