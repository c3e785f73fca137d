// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ForwardMode/math.mlir (commit 163042e224c3686634ef72a0f225ae82d1c2d2dd), https://github.com/EnzymeAD/Enzyme/blob/163042e224c3686634ef72a0f225ae82d1c2d2dd/enzyme/test/MLIR/ForwardMode/math.mlir
// What: scalar math.asinh (forward-mode test upstream).
// Adaptations: kept only @asinh of the split file (dropped its enzyme.fwddiff wrapper @dasinh, the other splits and the CHECK lines); added the gradir entries @jvp_asinh (autodiff.jvp, as upstream's fwddiff) and @grad_asinh (autodiff.grad) below the marker.
// gradir-corpus: entry=asinh wrt=0 reference=em_asinh inputs=signed

func.func @asinh(%x: f64) -> f64 {
  %res = math.asinh %x : f64
  return %res : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @jvp_asinh(%x: f64, %dx: f64) -> (f64, f64) {
  %r:2 = autodiff.jvp @asinh(%x, %dx) {wrt = array<i64: 0>} : (f64, f64) -> (f64, f64)
  return %r#0, %r#1 : f64, f64
}

func.func @grad_asinh(%x: f64) -> f64 {
  %g = autodiff.grad @asinh(%x) {wrt = array<i64: 0>} : (f64) -> f64
  return %g : f64
}
