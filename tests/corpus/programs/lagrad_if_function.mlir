// Source: pengmai/lagrad test/LAGrad/if_function.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/if_function.mlir
// What: scalar scf.if on `x >= 0` whose then-branch calls @square (and adds 0.0), else-branch yields x unchanged.
// Adaptations: `func` -> `func.func` (two functions); the `call` inside the scf.if -> `func.call` (MLIR 22 resolves a bare `call` only directly in a func.func body); dropped the driver @main, the helper @print and the print declaration; added the gradir entry @grad_ifelsefunc (autodiff.grad) below the marker.
// gradir-corpus: entry=ifelsefunc wrt=0 reference=lg_if_function inputs=signed

func.func @square(%arg0: f64) -> f64{
  %0 = arith.mulf %arg0, %arg0 : f64
  return %0 : f64
}

func.func @ifelsefunc(%arg0: f64) -> f64 {
  %cst = arith.constant 0.0 : f64
  %0 = arith.cmpf "oge", %arg0, %cst : f64
  %1 = scf.if %0 -> f64 {
    %2 = func.call @square(%arg0) : (f64) -> f64
    %3 = arith.addf %2, %cst : f64
    scf.yield %3 : f64
  } else {
    scf.yield %arg0 : f64
  }
  return %1 : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_ifelsefunc(%x: f64) -> f64 {
  %g = autodiff.grad @ifelsefunc(%x) {wrt = array<i64: 0>} : (f64) -> f64
  return %g : f64
}
