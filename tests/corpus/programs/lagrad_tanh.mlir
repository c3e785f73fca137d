// Source: pengmai/lagrad test/LAGrad/arith/tanh.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/arith/tanh.mlir
// What: scalar f64 math.tanh.
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration; added the gradir entry @grad_mytanh (autodiff.grad) below the marker.
// gradir-corpus: entry=mytanh wrt=0 reference=mytanh

func.func @mytanh(%x: f64) -> f64 {
  %0 = math.tanh %x : f64
  return %0 : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_mytanh(%x: f64) -> f64 {
  %g = autodiff.grad @mytanh(%x) {wrt = array<i64: 0>} : (f64) -> f64
  return %g : f64
}
