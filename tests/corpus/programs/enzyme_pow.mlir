// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ReverseMode/pow.mlir (commit 100fe8b5258badfa0f0c07b8fc5495cb14528935), https://github.com/EnzymeAD/Enzyme/blob/100fe8b5258badfa0f0c07b8fc5495cb14528935/enzyme/test/MLIR/ReverseMode/pow.mlir
// What: x^10 by a scalar f64 scf.for with constant bounds and an unparenthesised `-> f64` result type.
// Adaptations: removed the explicit `module {...}`, the @dppow wrapper (enzyme.autodiff) and the CHECK lines; added the gradir entry @grad_ppow (autodiff.grad) below the marker.
// gradir-corpus: entry=ppow wrt=0 reference=enzyme_ppow

  func.func @ppow(%x: f64) -> f64 {
    %cst = arith.constant 1.000000e+00 : f64
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %n = arith.constant 10 : index
    %r = scf.for %iv = %c0 to %n step %c1 iter_args(%r_it = %cst) -> f64 {
      %r_next = arith.mulf %r_it, %x : f64
      scf.yield %r_next : f64
    }
    return %r : f64
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_ppow(%x: f64) -> f64 {
  %g = autodiff.grad @ppow(%x) {wrt = array<i64: 0>} : (f64) -> f64
  return %g : f64
}
