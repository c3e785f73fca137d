// Source: llvm/llvm-project mlir/test/Dialect/SCF/one-shot-bufferize.mlir (commit 72bd2da712c55ec732a40de0db5430204e2b24e6), https://github.com/llvm/llvm-project/blob/72bd2da712c55ec732a40de0db5430204e2b24e6/mlir/test/Dialect/SCF/one-shot-bufferize.mlir
// What: scf.execute_region yielding a scalar, a tensor with one element overwritten by tensor.insert and another scalar, after which the original (not overwritten) tensor is read at the same index: the insert must not alias the argument.
// Adaptations: kept only @execute_region_with_conflict of the split file (dropped the CHECK lines, the upstream comment and the other splits); dynamic shape made static (tensor<?xf32> -> tensor<9xf32>, so index 7 is in range); added the gradir entry @vjp_execute_region_with_conflict (autodiff.vjp wrt the tensor) below the marker.
// gradir-corpus: entry=execute_region_with_conflict wrt=0 reference=mu_execute_region_with_conflict inputs=signed

func.func @execute_region_with_conflict(
    %t1 : tensor<9xf32> {bufferization.writable = true})
  -> (f32, tensor<9xf32>, f32)
{
  %f1 = arith.constant 0.0 : f32
  %idx = arith.constant 7 : index

  %0, %1, %2 = scf.execute_region -> (f32, tensor<9xf32>, f32) {
    %t2 = tensor.insert %f1 into %t1[%idx] : tensor<9xf32>
    scf.yield %f1, %t2, %f1 : f32, tensor<9xf32>, f32
  }

  %3 = tensor.extract %t1[%idx] : tensor<9xf32>

  return %0, %1, %3 : f32, tensor<9xf32>, f32
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_execute_region_with_conflict(%a0: tensor<9xf32>, %c0: f32, %c1: tensor<9xf32>, %c2: f32) -> (f32, tensor<9xf32>, f32, tensor<9xf32>) {
  %r:4 = autodiff.vjp @execute_region_with_conflict(%a0, %c0, %c1, %c2) {wrt = array<i64: 0>} : (tensor<9xf32>, f32, tensor<9xf32>, f32) -> (f32, tensor<9xf32>, f32, tensor<9xf32>)
  return %r#0, %r#1, %r#2, %r#3 : f32, tensor<9xf32>, f32, tensor<9xf32>
}
