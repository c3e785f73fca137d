// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ReverseMode/affine_for2.mlir (commit 2740d65d233c2b01f798e8042700dc5c10a0be7c), https://github.com/EnzymeAD/Enzyme/blob/2740d65d233c2b01f798e8042700dc5c10a0be7c/enzyme/test/MLIR/ReverseMode/affine_for2.mlir
// What: x^n by an affine.for whose upper bound is the index argument n (a symbol), carrying a scalar f32 product.
// Adaptations: removed the RUN/CHECK lines (upstream differentiates with --enzyme-wrap, no entry op in the file) and the explicit `module {...}`; added the gradir entry @grad_reduce (autodiff.grad wrt %x, as upstream's argTys=enzyme_active,enzyme_const) below the marker.
// gradir-corpus: entry=reduce wrt=0 reference=enzyme_reduce inputs=enzyme_reduce

  func.func @reduce(%x: f32, %n : index) -> (f32) {
    %sum_0 = arith.constant 1.0 : f32

    %sum = affine.for %iv = 0 to %n
        iter_args(%sum_iter = %sum_0) -> (f32) {
      %sum_next = arith.mulf %sum_iter, %x : f32
      affine.yield %sum_next : f32
    }

    return %sum : f32
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_reduce(%x: f32, %n: index) -> f32 {
  %g = autodiff.grad @reduce(%x, %n) {wrt = array<i64: 0>} : (f32, index) -> f32
  return %g : f32
}
