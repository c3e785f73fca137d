// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ReverseMode/for_loop_partial_inactive.mlir (commit 0694bc7d15b3599da27b90d3f2dd43fd99d78ccc), https://github.com/EnzymeAD/Enzyme/blob/0694bc7d15b3599da27b90d3f2dd43fd99d78ccc/enzyme/test/MLIR/ReverseMode/for_loop_partial_inactive.mlir
// What: scf.for with a dynamic upper bound and two scalar f32 iter_args (results bound as `%sum, %unused`), the second one never returned (inactive).
// Adaptations: kept only @some_res_inactive of the split file (dropped its enzyme.autodiff wrapper, the affine split and the CHECK lines); dropped `private` on @some_res_inactive so that it can be called directly; added the gradir entry @grad_some_res_inactive (autodiff.grad wrt %x, as upstream's activity) below the marker.
// gradir-corpus: entry=some_res_inactive wrt=0 reference=enzyme_reduce inputs=enzyme_reduce

func.func @some_res_inactive(%x: f32, %ub: index) -> (f32) {
  %lb = arith.constant 0 : index
  %step = arith.constant 1 : index

  %sum_0 = arith.constant 1.0 : f32
  %sum, %unused = scf.for %iv = %lb to %ub step %step
      iter_args(%sum_iter = %sum_0, %inactive = %sum_0) -> (f32, f32) {
    %sum_next = arith.mulf %sum_iter, %x : f32
    %inactive_next = arith.addf %sum_next, %inactive : f32
    scf.yield %sum_next, %inactive_next : f32, f32
  }
  return %sum : f32
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_some_res_inactive(%x: f32, %ub: index) -> f32 {
  %g = autodiff.grad @some_res_inactive(%x, %ub) {wrt = array<i64: 0>} : (f32, index) -> f32
  return %g : f32
}
