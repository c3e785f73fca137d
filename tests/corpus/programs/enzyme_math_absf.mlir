// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ReverseMode/math.mlir (commit 0694bc7d15b3599da27b90d3f2dd43fd99d78ccc), https://github.com/EnzymeAD/Enzyme/blob/0694bc7d15b3599da27b90d3f2dd43fd99d78ccc/enzyme/test/MLIR/ReverseMode/math.mlir
// What: scalar math.absf (|x|), on inputs of both signs.
// Adaptations: kept only @absf of the split file (dropped its enzyme.autodiff wrapper, the other splits and the CHECK lines); added the gradir entry @grad_absf (autodiff.grad) below the marker.
// gradir-corpus: entry=absf wrt=0 reference=em_absf inputs=signed

func.func @absf(%x: f64) -> f64 {
  %res = math.absf %x : f64
  return %res : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_absf(%x: f64) -> f64 {
  %g = autodiff.grad @absf(%x) {wrt = array<i64: 0>} : (f64) -> f64
  return %g : f64
}
