// Source: llvm/llvm-project mlir/test/Conversion/ControlFlowToSCF/test.mlir (commit 1c695ddeb3fe557a46217817a8732eada6874122), https://github.com/llvm/llvm-project/blob/1c695ddeb3fe557a46217817a8732eada6874122/mlir/test/Conversion/ControlFlowToSCF/test.mlir
// What: a loop written with cf.br/cf.cond_br that calls @bar on its state each iteration and leaves, returning the state it called @bar with (the block argument, not @bar's new value), once @bar's flag is set.
// Adaptations: kept only @exit_loop_iter_use and its callee of the split file (dropped the CHECK lines and the other splits); upstream declares @bar without a body: gave it one (flag = arg > 3.0, value = arg * 1.5) so that the program runs; added the gradir entry @grad_exit (autodiff.grad) below the marker.
// gradir-corpus: entry=exit_loop_iter_use wrt=0 reference=mlir_exit_loop_iter_use

func.func private @bar(%arg: f32) -> (i1, f32) {
  %three = arith.constant 3.0 : f32
  %k = arith.constant 1.5 : f32
  %c = arith.cmpf ogt, %arg, %three : f32
  %v = arith.mulf %arg, %k : f32
  return %c, %v : i1, f32
}

// This test makes sure that the exit block using an iteration variable works
// correctly.

func.func @exit_loop_iter_use(%arg: f32) -> f32 {
  cf.br ^bb0(%arg : f32)

^bb0(%arg1: f32):
  %cond, %value = call @bar(%arg1) : (f32) -> (i1, f32)
  cf.cond_br %cond, ^bb1, ^bb0(%value : f32)

^bb1:
  return %arg1 : f32
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_exit(%x: f32) -> f32 {
  %g = autodiff.grad @exit_loop_iter_use(%x) {wrt = array<i64: 0>} : (f32) -> f32
  return %g : f32
}
