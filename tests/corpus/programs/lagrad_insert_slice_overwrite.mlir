// Source: pengmai/lagrad test/LAGrad/tensor/insert_slice.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/tensor/insert_slice.mlir
// What: a 4-vector inserted by a rank-reducing insert_slice at row 3 of a 5x4 zero constant, then element [3, 3] of the result is extracted, doubled and written back over itself by tensor.insert (upstream marks this function disabled: "moving the entries of results around" was broken in LAGrad).
// Adaptations: `func` -> `func.func`; kept only @disabled_insert of the file's two functions (the other, @insert, is lagrad_insert_slice); removed the upstream comment lines; dropped the driver @main and the print declaration; added the gradir entry @vjp_disabled_insert (autodiff.vjp) below the marker.
// gradir-corpus: entry=disabled_insert wrt=0 reference=lg_insert_slice_overwrite inputs=signed

func.func @disabled_insert(%t: tensor<4xf64>) -> tensor<5x4xf64> {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %two = arith.constant 2.0 : f64
  %space = arith.constant dense<0.0> : tensor<5x4xf64>
  %res_0 = tensor.insert_slice %t into %space[%c3, 0] [1, 4] [1, 1] : tensor<4xf64> into tensor<5x4xf64>
  %th = tensor.extract %res_0[%c3, %c3] : tensor<5x4xf64>
  %th_1 = arith.mulf %th, %two : f64
  %res_1 = tensor.insert %th_1 into %res_0[%c3, %c3] : tensor<5x4xf64>
  return %res_1 : tensor<5x4xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_disabled_insert(%t: tensor<4xf64>, %ct: tensor<5x4xf64>) -> (tensor<5x4xf64>, tensor<4xf64>) {
  %r:2 = autodiff.vjp @disabled_insert(%t, %ct) {wrt = array<i64: 0>} : (tensor<4xf64>, tensor<5x4xf64>) -> (tensor<5x4xf64>, tensor<4xf64>)
  return %r#0, %r#1 : tensor<5x4xf64>, tensor<4xf64>
}
