// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ReverseMode/arith.mlir (commit 0e0d4e8c20f91b8381b5a4311bc36024a3172774), https://github.com/EnzymeAD/Enzyme/blob/0e0d4e8c20f91b8381b5a4311bc36024a3172774/enzyme/test/MLIR/ReverseMode/arith.mlir
// What: scalar arith.maxnumf of two f64 arguments.
// Adaptations: kept only @maxnumf of the split file (dropped its enzyme.autodiff wrapper @dmaxnumf, the other splits and the CHECK lines); added the gradir entry @grad_maxnumf (autodiff.grad wrt both) below the marker.
// gradir-corpus: entry=maxnumf wrt=0,1 reference=em_maxnumf

func.func @maxnumf(%a: f64, %b: f64) -> f64 {
  %res = arith.maxnumf %a, %b : f64
  return %res : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_maxnumf(%a: f64, %b: f64) -> (f64, f64) {
  %g:2 = autodiff.grad @maxnumf(%a, %b) {wrt = array<i64: 0, 1>} : (f64, f64) -> (f64, f64)
  return %g#0, %g#1 : f64, f64
}
