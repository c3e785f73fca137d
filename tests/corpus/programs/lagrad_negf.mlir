// Source: pengmai/lagrad test/LAGrad/arith/negf.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/arith/negf.mlir
// What: scalar arith.negf of an f64 argument.
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration (and its `linalg.init_tensor`/`tensor.insert`/`tensor.cast` result printing); added the gradir entry @grad_negf (autodiff.grad, wrt the only argument as upstream's lagrad.grad) below the marker.
// gradir-corpus: entry=negf wrt=0 reference=lg_negf inputs=signed

func.func @negf(%arg0: f64) -> f64 {
  %1 = arith.negf %arg0 : f64
  return %1 : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_negf(%x: f64) -> f64 {
  %g = autodiff.grad @negf(%x) {wrt = array<i64: 0>} : (f64) -> f64
  return %g : f64
}
