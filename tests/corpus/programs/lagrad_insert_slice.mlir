// Source: pengmai/lagrad test/LAGrad/tensor/insert_slice.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/tensor/insert_slice.mlir
// What: a 4-vector inserted by a rank-reducing tensor.insert_slice ([1, 4] sizes) at a dynamic row offset (index constant) of a 5x4 zero constant.
// Adaptations: `func` -> `func.func`; kept only @insert of the file's two functions (the other, @disabled_insert, is lagrad_insert_slice_overwrite); removed the upstream comment lines (a note and a commented-out hand-written adjoint); dropped the driver @main and the print declaration; added the gradir entry @vjp_insert (autodiff.vjp) below the marker.
// gradir-corpus: entry=insert wrt=0 reference=lg_insert_slice inputs=signed

func.func @insert(%t: tensor<4xf64>) -> tensor<5x4xf64> {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %two = arith.constant 2.0 : f64
  %space = arith.constant dense<0.0> : tensor<5x4xf64>
  %res_0 = tensor.insert_slice %t into %space[%c3, 0] [1, 4] [1, 1] : tensor<4xf64> into tensor<5x4xf64>
  return %res_0 : tensor<5x4xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_insert(%t: tensor<4xf64>, %ct: tensor<5x4xf64>) -> (tensor<5x4xf64>, tensor<4xf64>) {
  %r:2 = autodiff.vjp @insert(%t, %ct) {wrt = array<i64: 0>} : (tensor<4xf64>, tensor<5x4xf64>) -> (tensor<5x4xf64>, tensor<4xf64>)
  return %r#0, %r#1 : tensor<5x4xf64>, tensor<4xf64>
}
