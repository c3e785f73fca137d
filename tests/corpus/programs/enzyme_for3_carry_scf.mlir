// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ForwardMode/for3.mlir (commit 2446930b8a98f962e75c25f1f105693531f65fa5), https://github.com/EnzymeAD/Enzyme/blob/2446930b8a98f962e75c25f1f105693531f65fa5/enzyme/test/MLIR/ForwardMode/for3.mlir
// What: scf.for whose f64 iter_arg starts at 0.0 and is replaced every iteration by the loop-invariant argument x (the yield ignores the carried value): the result is x.
// Adaptations: kept only the first split (@carry_mismatch_scf; dropped the affine split, the @dcarry_mismatch_scf wrapper (enzyme.fwddiff), the RUN/CHECK lines and the explicit `module {...}`); added the gradir entries @jvp_carry (autodiff.jvp, as upstream's fwddiff) and @grad_carry (autodiff.grad) below the marker.
// gradir-corpus: entry=carry_mismatch_scf wrt=0 reference=em_identity inputs=signed

  func.func @carry_mismatch_scf(%x : f64) -> f64 {
    %zero = arith.constant 0.0 : f64
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c10 = arith.constant 10 : index
    %r = scf.for %i = %c0 to %c10 step %c1 iter_args(%acc = %zero) -> (f64) {
      scf.yield %x : f64
    }
    return %r : f64
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @jvp_carry(%x: f64, %dx: f64) -> (f64, f64) {
  %r:2 = autodiff.jvp @carry_mismatch_scf(%x, %dx) {wrt = array<i64: 0>} : (f64, f64) -> (f64, f64)
  return %r#0, %r#1 : f64, f64
}

func.func @grad_carry(%x: f64) -> f64 {
  %g = autodiff.grad @carry_mismatch_scf(%x) {wrt = array<i64: 0>} : (f64) -> f64
  return %g : f64
}
