// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ForwardMode/select.mlir (commit 0694bc7d15b3599da27b90d3f2dd43fd99d78ccc), https://github.com/EnzymeAD/Enzyme/blob/0694bc7d15b3599da27b90d3f2dd43fd99d78ccc/enzyme/test/MLIR/ForwardMode/select.mlir
// What: scalar ReLU written as `arith.cmpf ugt` + arith.select.
// Adaptations: removed the explicit `module {...}`, the @drelu wrapper (enzyme.fwddiff) and the CHECK lines; added the gradir entries @jvp_relu (autodiff.jvp, as upstream's fwddiff) and @grad_relu (autodiff.grad) below the marker.
// gradir-corpus: entry=relu wrt=0 reference=enzyme_relu inputs=signed

  func.func @relu(%x: f64) -> f64 {
    %zero = arith.constant 0.000000e+00 : f64
    %c = arith.cmpf ugt, %x, %zero : f64
    %r = arith.select %c, %x, %zero : f64
    return %r : f64
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @jvp_relu(%x: f64, %dx: f64) -> (f64, f64) {
  %r:2 = autodiff.jvp @relu(%x, %dx) {wrt = array<i64: 0>} : (f64, f64) -> (f64, f64)
  return %r#0, %r#1 : f64, f64
}

func.func @grad_relu(%x: f64) -> f64 {
  %g = autodiff.grad @relu(%x) {wrt = array<i64: 0>} : (f64) -> f64
  return %g : f64
}
