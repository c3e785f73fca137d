// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ReverseMode/math.mlir (commit 0694bc7d15b3599da27b90d3f2dd43fd99d78ccc), https://github.com/EnzymeAD/Enzyme/blob/0694bc7d15b3599da27b90d3f2dd43fd99d78ccc/enzyme/test/MLIR/ReverseMode/math.mlir
// What: scalar fused multiply-add math.fma x * y + z.
// Adaptations: kept only @fma of the split file (dropped @dfma with its enzyme.autodiff call, the other splits and the CHECK lines); added the gradir entry @grad_fma (autodiff.grad wrt all three, as upstream's activity) below the marker.
// gradir-corpus: entry=fma wrt=0,1,2 reference=enzyme_fma

func.func @fma(%x: f64, %y: f64, %z: f64) -> f64 {
  %res = math.fma %x, %y, %z : f64
  return %res : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_fma(%x: f64, %y: f64, %z: f64) -> (f64, f64, f64) {
  %g:3 = autodiff.grad @fma(%x, %y, %z) {wrt = array<i64: 0, 1, 2>} : (f64, f64, f64) -> (f64, f64, f64)
  return %g#0, %g#1, %g#2 : f64, f64, f64
}
