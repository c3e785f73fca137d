// Source: pengmai/lagrad test/LAGrad/twoargs.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/twoargs.mlir
// What: scalar f32 product of two arguments.
// Adaptations: `func` -> `func.func`; removed the upstream comment line; dropped the driver @main, the helper @print_0d and the print declaration (std `constant`, `lagrad.diff`, `call_indirect`, memref printing); added the gradir entry @grad_mul (autodiff.grad wrt both arguments; upstream's lagrad.diff signature returns one f32) below the marker.
// gradir-corpus: entry=mul wrt=0,1 reference=lg_mul inputs=signed

func.func @mul(%a : f32, %b : f32) -> f32 {
  %res = arith.mulf %a, %b : f32
  return %res : f32
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_mul(%a: f32, %b: f32) -> (f32, f32) {
  %g:2 = autodiff.grad @mul(%a, %b) {wrt = array<i64: 0, 1>} : (f32, f32) -> (f32, f32)
  return %g#0, %g#1 : f32, f32
}
