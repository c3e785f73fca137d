// Source: pengmai/lagrad test/LAGrad/quadratic.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/quadratic.mlir
// What: scalar f32 polynomial 4x^2 + x + 4 (one constant used twice).
// Adaptations: `func` -> `func.func`; removed the upstream comment line; dropped the driver @main and the print declaration (lagrad.grad and memref printing); added the gradir entry @grad_addandmul (autodiff.grad) below the marker.
// gradir-corpus: entry=addandmul wrt=0 reference=lg_quadratic inputs=signed

func.func @addandmul(%arg : f32) -> f32 {
  %cst = arith.constant 4.0 : f32
  %0 = arith.mulf %arg, %arg : f32
  %1 = arith.mulf %0, %cst : f32
  %2 = arith.addf %arg, %1 : f32
  %3 = arith.addf %cst, %2 : f32
  return %3 : f32
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_addandmul(%x: f32) -> f32 {
  %g = autodiff.grad @addandmul(%x) {wrt = array<i64: 0>} : (f32) -> f32
  return %g : f32
}
