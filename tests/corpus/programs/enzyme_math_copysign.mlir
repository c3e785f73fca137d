// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ReverseMode/math.mlir (commit 0694bc7d15b3599da27b90d3f2dd43fd99d78ccc), https://github.com/EnzymeAD/Enzyme/blob/0694bc7d15b3599da27b90d3f2dd43fd99d78ccc/enzyme/test/MLIR/ReverseMode/math.mlir
// What: scalar math.copysign (magnitude of x, sign of y), on inputs of both signs.
// Adaptations: kept only @copysign of the split file (dropped its enzyme.autodiff wrapper @dcopysign, the other splits and the CHECK lines); added the gradir entry @grad_copysign (autodiff.grad wrt %x; %y is constant, as upstream's enzyme_const) below the marker.
// gradir-corpus: entry=copysign wrt=0 reference=em_copysign inputs=signed

func.func @copysign(%x: f64, %y: f64) -> f64 {
  %res = math.copysign %x, %y : f64
  return %res : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_copysign(%x: f64, %y: f64) -> f64 {
  %g = autodiff.grad @copysign(%x, %y) {wrt = array<i64: 0>} : (f64, f64) -> f64
  return %g : f64
}
