// Source: pengmai/lagrad test/LAGrad/arithops.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/arithops.mlir
// What: scalar f32 square (x * x) written with the pre-arith std op `mulf`.
// Adaptations: `func` -> `func.func`; std `mulf` -> `arith.mulf`; removed the upstream comment lines (file description and a commented-out -x/(1+x) variant); dropped the driver @main and the print declaration (std `constant`, `standalone.grad`, `call_indirect`, memref printing); added the gradir entry @grad_f (autodiff.grad) below the marker.
// gradir-corpus: entry=f wrt=0 reference=lg_square

func.func @f(%arg0: f32) -> f32 {
  %0 = arith.mulf %arg0, %arg0 : f32
  return %0 : f32
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_f(%x: f32) -> f32 {
  %g = autodiff.grad @f(%x) {wrt = array<i64: 0>} : (f32) -> f32
  return %g : f32
}
