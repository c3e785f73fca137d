// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ForwardMode/for2.mlir (commit 38e9edb5ff5f80658c43c20740d9dd13fe1dc428), https://github.com/EnzymeAD/Enzyme/blob/38e9edb5ff5f80658c43c20740d9dd13fe1dc428/enzyme/test/MLIR/ForwardMode/for2.mlir
// What: scalar f64 scf.for with constant bounds adding x to an iter_arg initialised with x, ten times (named @square upstream).
// Adaptations: removed the explicit `module {...}`, the @dsq wrapper (enzyme.fwddiff) and the CHECK lines; added the gradir entries @jvp_square (autodiff.jvp, as upstream's fwddiff) and @grad_square (autodiff.grad) below the marker.
// gradir-corpus: entry=square wrt=0 reference=enzyme_for2

  func.func @square(%x : f64) -> f64 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c10 = arith.constant 10 : index
    %r = scf.for %arg1 = %c0 to %c10 step %c1 iter_args(%arg2 = %x) -> (f64) {
      %n = arith.addf %arg2, %x : f64
      scf.yield %n : f64
    }
    return %r : f64
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @jvp_square(%x: f64, %dx: f64) -> (f64, f64) {
  %r:2 = autodiff.jvp @square(%x, %dx) {wrt = array<i64: 0>} : (f64, f64) -> (f64, f64)
  return %r#0, %r#1 : f64, f64
}

func.func @grad_square(%x: f64) -> f64 {
  %g = autodiff.grad @square(%x) {wrt = array<i64: 0>} : (f64) -> f64
  return %g : f64
}
