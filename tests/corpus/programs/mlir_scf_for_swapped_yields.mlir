// Source: llvm/llvm-project mlir/test/Dialect/Bufferization/Transforms/one-shot-module-bufferize-invalid.mlir (commit 1e65231a781550c81d89d69f7d77709bc9ce450c), https://github.com/llvm/llvm-project/blob/1e65231a781550c81d89d69f7d77709bc9ce450c/mlir/test/Dialect/Bufferization/Transforms/one-shot-module-bufferize-invalid.mlir
// What: an scf.for carrying two tensors that each get a 4-element tensor inserted at offset 0 and are yielded swapped (ping-pong); one element of each result, at position %step, is returned.
// Adaptations: kept only @scf_for of the split file (dropped the expected-error and comment lines and the other splits); dynamic shapes made static (%A, %B and the loop states tensor<?xf32> -> tensor<6xf32>); added the gradir entry @vjp_scf_for (autodiff.vjp wrt %A, %B, %C; the bounds are index arguments) below the marker.
// gradir-corpus: entry=scf_for wrt=0,1,2 reference=mlir_scf_for_swapped inputs=mlir_scf_for_swapped

func.func @scf_for(%A : tensor<6xf32>,
              %B : tensor<6xf32> {bufferization.writable = true},
              %C : tensor<4xf32>,
              %lb : index, %ub : index, %step : index)
  -> (f32, f32)
{
  %r0:2 = scf.for %i = %lb to %ub step %step iter_args(%tA = %A, %tB = %B)
      -> (tensor<6xf32>, tensor<6xf32>)
  {
    %ttA = tensor.insert_slice %C into %tA[0][4][1] : tensor<4xf32> into tensor<6xf32>
    %ttB = tensor.insert_slice %C into %tB[0][4][1] : tensor<4xf32> into tensor<6xf32>
    scf.yield %ttB, %ttA : tensor<6xf32>, tensor<6xf32>
  }

  %f0 = tensor.extract %r0#0[%step] : tensor<6xf32>
  %f1 = tensor.extract %r0#1[%step] : tensor<6xf32>
  return %f0, %f1: f32, f32
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_scf_for(%a: tensor<6xf32>, %b: tensor<6xf32>, %c: tensor<4xf32>, %lb: index, %ub: index, %step: index, %d0: f32, %d1: f32) -> (f32, f32, tensor<6xf32>, tensor<6xf32>, tensor<4xf32>) {
  %r:5 = autodiff.vjp @scf_for(%a, %b, %c, %lb, %ub, %step, %d0, %d1) {wrt = array<i64: 0, 1, 2>} : (tensor<6xf32>, tensor<6xf32>, tensor<4xf32>, index, index, index, f32, f32) -> (f32, f32, tensor<6xf32>, tensor<6xf32>, tensor<4xf32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4 : f32, f32, tensor<6xf32>, tensor<6xf32>, tensor<4xf32>
}
