// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ForwardMode/affine.mlir (commit 2e0a547c5cd9e98a0621bc051e5804f3a561f0f7), https://github.com/EnzymeAD/Enzyme/blob/2e0a547c5cd9e98a0621bc051e5804f3a561f0f7/enzyme/test/MLIR/ForwardMode/affine.mlir
// What: affine.for with constant bounds adding the scalar argument to an f64 iter_arg ten times, starting from 10.0.
// Adaptations: kept only @loop of the file (dropped @if_then_else, @if_then, the enzyme.fwddiff wrappers, the explicit `module {...}` and the CHECK lines); added the gradir entries @jvp_loop (autodiff.jvp, as upstream's fwddiff) and @grad_loop (autodiff.grad) below the marker.
// gradir-corpus: entry=loop wrt=0 reference=enzyme_affine_loop

  func.func @loop(%x : f64) -> f64 {
    %cst = arith.constant 10.000000e+00 : f64
    %r = affine.for %arg1 = 0 to 10 step 1 iter_args(%arg2 = %cst) -> (f64) {
      %n = arith.addf %arg2, %x : f64
      affine.yield %n : f64
    }
    return %r : f64
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @jvp_loop(%x: f64, %dx: f64) -> (f64, f64) {
  %r:2 = autodiff.jvp @loop(%x, %dx) {wrt = array<i64: 0>} : (f64, f64) -> (f64, f64)
  return %r#0, %r#1 : f64, f64
}

func.func @grad_loop(%x: f64) -> f64 {
  %g = autodiff.grad @loop(%x) {wrt = array<i64: 0>} : (f64) -> f64
  return %g : f64
}
