// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ReverseMode/bbarg-order.mlir (commit 09dcbcf20ddacac99e165f9dd7e7e406247bce1d), https://github.com/EnzymeAD/Enzyme/blob/09dcbcf20ddacac99e165f9dd7e7e406247bce1d/enzyme/test/MLIR/ReverseMode/bbarg-order.mlir
// What: a loop written with branches between blocks: ^bb1 branches back to itself while its argument (x + 1) is below 0, then returns it.
// Adaptations: removed the explicit `module {...}`, the @diff wrapper (enzyme.autodiff) and the CHECK lines; added the gradir entry @grad_bbargs (autodiff.grad, as upstream's autodiff) below the marker. The loop never changes its argument, so it ends only where x + 1 >= 0: the default inputs (x in [0.25, 1.25)) are there.
// gradir-corpus: entry=bbargs wrt=0 reference=enzyme_bbarg_order

  func.func @bbargs(%x: f64) -> f64 {
    %cst1 = arith.constant 1.000000e+00 : f64
    %2 = arith.addf %x, %cst1 : f64
    cf.br ^bb1(%2 : f64)
  ^bb1(%1 : f64):
    %cst = arith.constant 0.000000e+00 : f64
    %flag = arith.cmpf ult, %1, %cst : f64
    cf.cond_br %flag, ^bb1(%1 : f64), ^bb2(%1 : f64)
  ^bb2(%ret : f64):
    return %ret : f64
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_bbargs(%x: f64) -> f64 {
  %g = autodiff.grad @bbargs(%x) {wrt = array<i64: 0>} : (f64) -> f64
  return %g : f64
}
