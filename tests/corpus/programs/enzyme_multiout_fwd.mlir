// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ForwardMode/multiout.mlir (commit 0694bc7d15b3599da27b90d3f2dd43fd99d78ccc), https://github.com/EnzymeAD/Enzyme/blob/0694bc7d15b3599da27b90d3f2dd43fd99d78ccc/enzyme/test/MLIR/ForwardMode/multiout.mlir
// What: a scalar function with two results, x*x and the argument x itself returned unchanged.
// Adaptations: removed the RUN/CHECK lines, the explicit `module {...}` and the @dsq/@dsq2 wrappers (enzyme.fwddiff); added the gradir entries @jvp_square (autodiff.jvp, as upstream's fwddiff with both results duplicated) and @vjp_square (autodiff.vjp) below the marker.
// gradir-corpus: entry=square wrt=0 reference=em_multiout inputs=signed

  func.func @square(%x : f64) -> (f64, f64) {
    %y = arith.mulf %x, %x : f64
    return %y, %x : f64, f64
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @jvp_square(%x: f64, %dx: f64) -> (f64, f64, f64, f64) {
  %r:4 = autodiff.jvp @square(%x, %dx) {wrt = array<i64: 0>} : (f64, f64) -> (f64, f64, f64, f64)
  return %r#0, %r#1, %r#2, %r#3 : f64, f64, f64, f64
}

func.func @vjp_square(%x: f64, %c0: f64, %c1: f64) -> (f64, f64, f64) {
  %r:3 = autodiff.vjp @square(%x, %c0, %c1) {wrt = array<i64: 0>} : (f64, f64, f64) -> (f64, f64, f64)
  return %r#0, %r#1, %r#2 : f64, f64, f64
}
