// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ReverseMode/affine_for.mlir (commit 3b70043a872db4fad13522cb049c67ce9315cb89), https://github.com/EnzymeAD/Enzyme/blob/3b70043a872db4fad13522cb049c67ce9315cb89/enzyme/test/MLIR/ReverseMode/affine_for.mlir
// What: x^128 by an affine.for with a scalar f32 iter_arg.
// Adaptations: removed the explicit `module {...}` and the RUN/CHECK lines (upstream differentiates with --enzyme-wrap); added the gradir entry @grad_reduce (autodiff.grad) below the marker.
// gradir-corpus: entry=reduce wrt=0 reference=enzyme_affine_reduce inputs=near_one

  func.func @reduce(%x: f32) -> (f32) {
    %sum_0 = arith.constant 1.0 : f32

    %sum = affine.for %iv = 0 to 128
        iter_args(%sum_iter = %sum_0) -> (f32) {
      %sum_next = arith.mulf %sum_iter, %x : f32
      affine.yield %sum_next : f32
    }

    return %sum : f32
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_reduce(%x: f32) -> f32 {
  %g = autodiff.grad @reduce(%x) {wrt = array<i64: 0>} : (f32) -> f32
  return %g : f32
}
