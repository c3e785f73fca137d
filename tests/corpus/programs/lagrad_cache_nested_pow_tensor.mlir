// Source: pengmai/lagrad test/LAGrad/cache/nested_pow_tensor.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/cache/nested_pow_tensor.mlir
// What: elementwise x^(3n) of a 4-vector: an outer scf.for with an index-argument trip count around an inner constant 3-trip scf.for, both carrying the product tensor.
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration; added the gradir entry @vjp_tensor_pow (autodiff.vjp wrt %x) below the marker.
// gradir-corpus: entry=tensor_pow wrt=0 reference=lg_nested_pow_tensor inputs=lg_pow4

func.func @tensor_pow(%x: tensor<4xf64>, %n: index) -> tensor<4xf64> {
  %r_init = arith.constant dense<1.0> : tensor<4xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %res = scf.for %iv = %c0 to %n step %c1 iter_args(%r_outer = %r_init) -> tensor<4xf64> {
    %r_outer_next = scf.for %jv = %c0 to %c3 step %c1 iter_args(%r = %r_outer) -> tensor<4xf64> {
      %r_next = arith.mulf %r, %x : tensor<4xf64>
      scf.yield %r_next : tensor<4xf64>
    }
    scf.yield %r_outer_next : tensor<4xf64>
  }
  return %res : tensor<4xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_tensor_pow(%x: tensor<4xf64>, %n: index, %ct: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %r:2 = autodiff.vjp @tensor_pow(%x, %n, %ct) {wrt = array<i64: 0>} : (tensor<4xf64>, index, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return %r#0, %r#1 : tensor<4xf64>, tensor<4xf64>
}
