// Source: pengmai/lagrad test/LAGrad/add3.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/add3.mlir
// What: scalar f32 function x -> x + (x + x).
// Adaptations: `func` -> `func.func`; dropped the driver @main (lagrad.grad call, memref printing) and the print declaration; removed the upstream comment lines (file descriptions, commented-out code); added the gradir entry @grad_add3 (autodiff.grad) below the marker.
// gradir-corpus: entry=add3 wrt=0 reference=add3

func.func @add3(%arg : f32) -> f32 {
  %partial = arith.addf %arg, %arg : f32
  %res = arith.addf %arg, %partial : f32
  return %res : f32
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_add3(%x: f32) -> f32 {
  %g = autodiff.grad @add3(%x) {wrt = array<i64: 0>} : (f32) -> f32
  return %g : f32
}
