// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ForwardMode/trunc.mlir (commit 456cf5eddf25fda4d25e499e2f621df5f0ac28d1), https://github.com/EnzymeAD/Enzyme/blob/456cf5eddf25fda4d25e499e2f621df5f0ac28d1/enzyme/test/MLIR/ForwardMode/trunc.mlir
// What: arith.truncf of an f64 argument to an f32 result.
// Adaptations: removed the RUN/CHECK lines, the explicit `module {...}` and the @dsq wrapper (enzyme.fwddiff); added the gradir entries @jvp_f (autodiff.jvp, as upstream's fwddiff) and @grad_f (autodiff.grad) below the marker.
// gradir-corpus: entry=f wrt=0 reference=em_truncf inputs=signed

  func.func @f(%x : f64) -> f32 {
    %y = arith.truncf %x : f64 to f32
    return %y : f32
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @jvp_f(%x: f64, %dx: f64) -> (f32, f32) {
  %r:2 = autodiff.jvp @f(%x, %dx) {wrt = array<i64: 0>} : (f64, f64) -> (f32, f32)
  return %r#0, %r#1 : f32, f32
}

func.func @grad_f(%x: f64) -> f64 {
  %g = autodiff.grad @f(%x) {wrt = array<i64: 0>} : (f64) -> f64
  return %g : f64
}
