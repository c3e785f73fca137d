// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ForwardMode/multiresult.mlir (commit 1155aa73c7fd5f4bf45cabd5868abe55e92c476c), https://github.com/EnzymeAD/Enzyme/blob/1155aa73c7fd5f4bf45cabd5868abe55e92c476c/enzyme/test/MLIR/ForwardMode/multiresult.mlir
// What: scalar math.sincos, an op with two results, both returned.
// Adaptations: kept only @both (dropped @onlysin, @onlycos, the enzyme.fwddiff wrappers, the RUN/CHECK lines and the explicit `module {...}`); added the gradir entries @jvp_both (autodiff.jvp, as upstream's fwddiff) and @vjp_both (autodiff.vjp) below the marker.
// gradir-corpus: entry=both wrt=0 reference=em_sincos inputs=signed

  func.func @both(%x : f64) -> (f64, f64) {
    %s, %c = math.sincos %x : f64
    return %s, %c : f64, f64
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @jvp_both(%x: f64, %dx: f64) -> (f64, f64, f64, f64) {
  %r:4 = autodiff.jvp @both(%x, %dx) {wrt = array<i64: 0>} : (f64, f64) -> (f64, f64, f64, f64)
  return %r#0, %r#1, %r#2, %r#3 : f64, f64, f64, f64
}

func.func @vjp_both(%x: f64, %c0: f64, %c1: f64) -> (f64, f64, f64) {
  %r:3 = autodiff.vjp @both(%x, %c0, %c1) {wrt = array<i64: 0>} : (f64, f64, f64) -> (f64, f64, f64)
  return %r#0, %r#1, %r#2 : f64, f64, f64
}
