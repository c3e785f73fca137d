// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ForwardMode/divf.mlir (commit dd60ff53b16a76e859044bf60fc54e5b52338c99), https://github.com/EnzymeAD/Enzyme/blob/dd60ff53b16a76e859044bf60fc54e5b52338c99/enzyme/test/MLIR/ForwardMode/divf.mlir
// What: scalar x / y with both operands differentiated.
// Adaptations: removed the RUN/CHECK lines, the explicit `module {...}` and the @ddiv wrapper (enzyme.fwddiff); added the gradir entries @jvp_div (autodiff.jvp wrt both, as upstream's fwddiff) and @grad_div (autodiff.grad) below the marker.
// gradir-corpus: entry=div wrt=0,1 reference=em_div inputs=signed

  func.func @div(%x: f64, %y: f64) -> f64 {
    %r = arith.divf %x, %y : f64
    return %r : f64
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @jvp_div(%x: f64, %y: f64, %dx: f64, %dy: f64) -> (f64, f64) {
  %r:2 = autodiff.jvp @div(%x, %y, %dx, %dy) {wrt = array<i64: 0, 1>} : (f64, f64, f64, f64) -> (f64, f64)
  return %r#0, %r#1 : f64, f64
}

func.func @grad_div(%x: f64, %y: f64) -> (f64, f64) {
  %g:2 = autodiff.grad @div(%x, %y) {wrt = array<i64: 0, 1>} : (f64, f64) -> (f64, f64)
  return %g#0, %g#1 : f64, f64
}
