// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ForwardMode/minmaxf.mlir (commit 0694bc7d15b3599da27b90d3f2dd43fd99d78ccc), https://github.com/EnzymeAD/Enzyme/blob/0694bc7d15b3599da27b90d3f2dd43fd99d78ccc/enzyme/test/MLIR/ForwardMode/minmaxf.mlir
// What: scalar arith.maximumf of two arguments.
// Adaptations: kept only @maximumf of the split file (dropped @dmaximumf with its enzyme.fwddiff call, the @minimumf split and the CHECK lines); added the gradir entries @jvp_maximumf (autodiff.jvp, as upstream's fwddiff) and @grad_maximumf (autodiff.grad) below the marker.
// gradir-corpus: entry=maximumf wrt=0,1 reference=enzyme_maximumf

func.func @maximumf(%a: f64, %b: f64) -> f64 {
  %res = arith.maximumf %a, %b : f64
  return %res : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @jvp_maximumf(%a: f64, %b: f64, %da: f64, %db: f64) -> (f64, f64) {
  %r:2 = autodiff.jvp @maximumf(%a, %b, %da, %db) {wrt = array<i64: 0, 1>} : (f64, f64, f64, f64) -> (f64, f64)
  return %r#0, %r#1 : f64, f64
}

func.func @grad_maximumf(%a: f64, %b: f64) -> (f64, f64) {
  %g:2 = autodiff.grad @maximumf(%a, %b) {wrt = array<i64: 0, 1>} : (f64, f64) -> (f64, f64)
  return %g#0, %g#1 : f64, f64
}
