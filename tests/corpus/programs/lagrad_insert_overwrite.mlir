// Source: pengmai/lagrad test/LAGrad/tensor/insert_overwrite.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/tensor/insert_overwrite.mlir
// What: in-place overwrite: the second row of the argument is extracted (extract_slice 1x2), doubled, and inserted back into the argument itself (insert_slice at the same offsets), so the argument's old row must get no gradient from the identity path.
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration; removed the commented-out hand-written adjoint and other comment lines; added the gradir entry @vjp_insert_overwrite (autodiff.vjp) below the marker.
// gradir-corpus: entry=insert_overwrite wrt=0 reference=lg_insert_overwrite inputs=signed

func.func @insert_overwrite(%t: tensor<2x2xf64>) -> tensor<2x2xf64> {
  %cst = arith.constant dense<2.0> : tensor<1x2xf64>
  %s = tensor.extract_slice %t[1, 0] [1, 2] [1, 1] : tensor<2x2xf64> to tensor<1x2xf64>
  %m = arith.mulf %s, %cst : tensor<1x2xf64>
  %t_new = tensor.insert_slice %m into %t[1, 0] [1, 2] [1, 1] : tensor<1x2xf64> into tensor<2x2xf64>
  return %t_new : tensor<2x2xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_insert_overwrite(%t: tensor<2x2xf64>, %ct: tensor<2x2xf64>) -> (tensor<2x2xf64>, tensor<2x2xf64>) {
  %r:2 = autodiff.vjp @insert_overwrite(%t, %ct) {wrt = array<i64: 0>} : (tensor<2x2xf64>, tensor<2x2xf64>) -> (tensor<2x2xf64>, tensor<2x2xf64>)
  return %r#0, %r#1 : tensor<2x2xf64>, tensor<2x2xf64>
}
