// Source: pengmai/lagrad test/LAGrad/functioncall.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/functioncall.mlir
// What: scalar f32 calls: f(a, b) = square(square(a)) * b through two helper functions.
// Adaptations: `func` -> `func.func` (three functions); dropped the driver @main and the print declaration; removed the upstream comment lines (file descriptions, commented-out code); added the gradir entry @grad_f (autodiff.grad) below the marker.
// gradir-corpus: entry=f wrt=0,1 reference=functioncall

func.func @square(%arg0: f32) -> f32 {
  %0 = arith.mulf %arg0, %arg0 : f32
  return %0 : f32
}

func.func @mymul(%arg0: f32, %arg1: f32) -> f32 {
  %0 = arith.mulf %arg0, %arg1 : f32
  return %0 : f32
}

func.func @f(%arg0: f32, %arg1: f32) -> f32 {
  %0 = call @square(%arg0) : (f32) -> f32
  %1 = call @square(%0) : (f32) -> f32
  %2 = call @mymul(%1, %arg1) : (f32, f32) -> f32
  return %2 : f32
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_f(%a: f32, %b: f32) -> (f32, f32) {
  %g:2 = autodiff.grad @f(%a, %b) {wrt = array<i64: 0, 1>} : (f32, f32) -> (f32, f32)
  return %g#0, %g#1 : f32, f32
}
