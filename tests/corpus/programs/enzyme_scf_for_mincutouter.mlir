// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ReverseMode/scf_for_mincutouter.mlir (commit 2740d65d233c2b01f798e8042700dc5c10a0be7c), https://github.com/EnzymeAD/Enzyme/blob/2740d65d233c2b01f798e8042700dc5c10a0be7c/enzyme/test/MLIR/ReverseMode/scf_for_mincutouter.mlir
// What: ten iterations of s <- (cos(s*x) + x) * (s + x) on a scalar f32 loop state started at x, the loop body also reading x from outside.
// Adaptations: removed the RUN/CHECK lines (upstream differentiates with --enzyme-wrap, no entry op in the file) and the explicit `module {...}`; added the gradir entry @grad_main (autodiff.grad, as upstream's argTys=enzyme_active) below the marker.
// gradir-corpus: entry=main wrt=0 reference=em_mincutouter inputs=em_mincutouter

  func.func @main(%arg0: f32) -> (f32) {
    %lb = arith.constant 0 : index
    %ub = arith.constant 10 : index
    %step = arith.constant 1 : index

    %sum = scf.for %iv = %lb to %ub step %step
        iter_args(%sum_iter = %arg0) -> (f32) {
      %sum_next = arith.mulf %sum_iter, %arg0 : f32
      %sq_next = arith.addf %sum_iter, %arg0 : f32
      %cos_next = math.cos %sum_next : f32
      %z_next = arith.addf %cos_next, %arg0 : f32
      %y_next = arith.mulf %z_next, %sq_next : f32
      scf.yield %y_next : f32
    }

    return %sum : f32
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_main(%x: f32) -> f32 {
  %g = autodiff.grad @main(%x) {wrt = array<i64: 0>} : (f32) -> f32
  return %g : f32
}
