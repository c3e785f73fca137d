// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ReverseMode/scf_for_mincut.mlir (commit 09dcbcf20ddacac99e165f9dd7e7e406247bce1d), https://github.com/EnzymeAD/Enzyme/blob/09dcbcf20ddacac99e165f9dd7e7e406247bce1d/enzyme/test/MLIR/ReverseMode/scf_for_mincut.mlir
// What: ten iterations of s <- cos(s*s) on a scalar f32 loop state started at the argument.
// Adaptations: kept only the first split (@main; dropped the memref split @recompute_if, the @dmain wrapper (enzyme.autodiff), the RUN/CHECK lines and the explicit `module {...}`); the loop keeps upstream's discardable attribute {enzyme.cache_use_tensor}; added the gradir entry @grad_main (autodiff.grad) below the marker.
// gradir-corpus: entry=main wrt=0 reference=em_cos_square_loop

  func.func @main(%arg0: f32) -> (f32) {
    %lb = arith.constant 0 : index
    %ub = arith.constant 10 : index
    %step = arith.constant 1 : index

    %sum = scf.for %iv = %lb to %ub step %step
        iter_args(%sum_iter = %arg0) -> (f32) {
      %sum_next = arith.mulf %sum_iter, %sum_iter : f32
      %cos_next = math.cos %sum_next : f32
      scf.yield %cos_next : f32
    } {enzyme.cache_use_tensor}

    return %sum : f32
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_main(%x: f32) -> f32 {
  %g = autodiff.grad @main(%x) {wrt = array<i64: 0>} : (f32) -> f32
  return %g : f32
}
