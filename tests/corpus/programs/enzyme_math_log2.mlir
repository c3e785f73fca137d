// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ReverseMode/logexp2.mlir (commit 0694bc7d15b3599da27b90d3f2dd43fd99d78ccc), https://github.com/EnzymeAD/Enzyme/blob/0694bc7d15b3599da27b90d3f2dd43fd99d78ccc/enzyme/test/MLIR/ReverseMode/logexp2.mlir
// What: scalar math.log2.
// Adaptations: kept only @log2 of the file (dropped @exp2, the two enzyme.autodiff wrappers, the explicit `module {...}` and the CHECK lines); added the gradir entry @grad_log2 (autodiff.grad) below the marker.
// gradir-corpus: entry=log2 wrt=0 reference=enzyme_log2

  func.func @log2(%x: f64) -> f64 {
    %y = math.log2 %x : f64
    return %y : f64
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_log2(%x: f64) -> f64 {
  %g = autodiff.grad @log2(%x) {wrt = array<i64: 0>} : (f64) -> f64
  return %g : f64
}
