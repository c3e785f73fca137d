// Source: pengmai/lagrad test/LAGrad/nestedcall.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/nestedcall.mlir
// What: scalar f64 chain of calls: @outer calls @square, which calls @mul(x, x) (a callee defined after its caller).
// Adaptations: `func` -> `func.func` (three functions); removed the upstream comment line; dropped the driver @main and the print declaration (lagrad.grad and memref printing); added the gradir entry @grad_outer (autodiff.grad) below the marker.
// gradir-corpus: entry=outer wrt=0 reference=lg_square inputs=signed

func.func @square(%arg0: f64) -> f64 {
  %0 = call @mul(%arg0, %arg0) : (f64, f64) -> f64
  return %0 : f64
}

func.func @mul(%arg0: f64, %arg1: f64) -> f64 {
  %0 = arith.mulf %arg0, %arg1 : f64
  return %0 : f64
}

func.func @outer(%arg0: f64) -> f64 {
  %0 = call @square(%arg0) : (f64) -> f64
  return %0 : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_outer(%x: f64) -> f64 {
  %g = autodiff.grad @outer(%x) {wrt = array<i64: 0>} : (f64) -> f64
  return %g : f64
}
