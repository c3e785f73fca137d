// Source: pengmai/lagrad test/LAGrad/tensor/insert_overwrite_scalar.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/tensor/insert_overwrite_scalar.mlir
// What: in-place overwrite of a 0-d tensor: its element is extracted, doubled and inserted back into the argument itself.
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration; added the gradir entry @grad_insert_overwrite_scalar (autodiff.grad, the result is a 0-d tensor) below the marker.
// gradir-corpus: entry=insert_overwrite_scalar wrt=0 reference=lg_double inputs=signed

func.func @insert_overwrite_scalar(%t: tensor<f64>) -> tensor<f64> {
  %cst = arith.constant 2.0 : f64
  %s = tensor.extract %t[] : tensor<f64>
  %m = arith.mulf %cst, %s : f64
  %t_new = tensor.insert %m into %t[] : tensor<f64>
  return %t_new : tensor<f64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_insert_overwrite_scalar(%t: tensor<f64>) -> tensor<f64> {
  %g = autodiff.grad @insert_overwrite_scalar(%t) {wrt = array<i64: 0>} : (tensor<f64>) -> tensor<f64>
  return %g : tensor<f64>
}
