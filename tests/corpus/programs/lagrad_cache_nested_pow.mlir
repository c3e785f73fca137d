// Source: pengmai/lagrad test/LAGrad/cache/nested_pow.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/cache/nested_pow.mlir
// What: scalar x^(3n): an outer scf.for with an index-argument trip count around an inner constant 3-trip scf.for, both carrying the f64 product.
// Adaptations: `func` -> `func.func`; removed the commented-out hand-written adjoint and the comment lines; dropped the driver @main and the print declaration (lagrad.grad, `linalg.init_tensor`/`tensor.insert` result printing); added the gradir entry @grad_pow (autodiff.grad wrt %x) below the marker.
// gradir-corpus: entry=pow wrt=0 reference=lg_nested_pow inputs=lg_pow4

func.func @pow(%x: f64, %n: index) -> f64 {
  %r_init = arith.constant 1.0 : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %res = scf.for %iv = %c0 to %n step %c1 iter_args(%r_outer = %r_init) -> f64 {
    %r_outer_next = scf.for %jv = %c0 to %c3 step %c1 iter_args(%r = %r_outer) -> f64 {
      %r_next = arith.mulf %r, %x : f64
      scf.yield %r_next : f64
    }
    scf.yield %r_outer_next : f64
  }
  return %res : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_pow(%x: f64, %n: index) -> f64 {
  %g = autodiff.grad @pow(%x, %n) {wrt = array<i64: 0>} : (f64, index) -> f64
  return %g : f64
}
