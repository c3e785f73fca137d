// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ReverseMode/scf_for.mlir (commit 042e567d0592a29364156a47057b262396a5f7ed), https://github.com/EnzymeAD/Enzyme/blob/042e567d0592a29364156a47057b262396a5f7ed/enzyme/test/MLIR/ReverseMode/scf_for.mlir
// What: x^ub by a scalar f32 scf.for iter_arg whose upper bound is an index argument (dynamic trip count); scalar in, scalar out.
// Adaptations: removed the RUN/CHECK lines (upstream differentiates with --enzyme-wrap, no entry op in the file); added the gradir entry @grad_reduce (autodiff.grad wrt %x, as upstream's argTys=enzyme_active,enzyme_const) below the marker.
// gradir-corpus: entry=reduce wrt=0 reference=enzyme_reduce inputs=enzyme_reduce

func.func @reduce(%x: f32, %ub: index) -> (f32) {
  %lb = arith.constant 0 : index
  %step = arith.constant 1 : index

  // Initial sum set to 0.
  %sum_0 = arith.constant 1.0 : f32
  // iter_args binds initial values to the loop's region arguments.
  %sum = scf.for %iv = %lb to %ub step %step
      iter_args(%sum_iter = %sum_0) -> (f32) {
    %sum_next = arith.mulf %sum_iter, %x : f32
    // Yield current iteration sum to next iteration %sum_iter or to %sum
    // if final iteration.
    scf.yield %sum_next : f32
  }
  return %sum : f32
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_reduce(%x: f32, %ub: index) -> f32 {
  %g = autodiff.grad @reduce(%x, %ub) {wrt = array<i64: 0>} : (f32, index) -> f32
  return %g : f32
}
