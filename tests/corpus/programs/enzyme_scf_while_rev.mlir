// Source: EnzymeAD/Enzyme enzyme/test/MLIR/ReverseMode/scf_while.mlir (commit 5354d70e6f1a44e121ca35dc9a3f33f1f586efa5), https://github.com/EnzymeAD/Enzyme/blob/5354d70e6f1a44e121ca35dc9a3f33f1f586efa5/enzyme/test/MLIR/ReverseMode/scf_while.mlir
// What: scf.while carrying an index counter and a scalar f32 whose body squares the scalar; the before-region continues while `counter == 10`, so as written the body never runs and the result is the input.
// Adaptations: removed the RUN/CHECK lines and the explicit `module {...}` (so that the added entry can call the function); added the gradir entry @grad_main (autodiff.grad) below the marker.
// gradir-corpus: entry=main wrt=0 reference=enzyme_while_rev

func.func @main(%init1: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index

  %res:2 = scf.while (%iter = %c0, %arg1 = %init1) : (index, f32) -> (index, f32) {
    // "Before" region.
    // In a "while" loop, this region computes the condition.
    %condition = arith.cmpi eq, %iter, %c10 : index

    // Forward the argument (as result or "after" region argument).
    scf.condition(%condition) %iter, %arg1 : index, f32

  } do {
  ^bb0(%iterAfter: index, %arg2: f32):
    // "After" region.
    // In a "while" loop, this region is the loop body.
    %next = arith.mulf %arg2, %arg2 : f32
    %nextIter = arith.addi %iterAfter,  %c1 : index

    // Forward the new value to the "before" region.
    // The operand types must match the types of the `scf.while` operands.
    scf.yield %nextIter, %next : index, f32
  }
  return %res#1 : f32
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_main(%x: f32) -> f32 {
  %g = autodiff.grad @main(%x) {wrt = array<i64: 0>} : (f32) -> f32
  return %g : f32
}
