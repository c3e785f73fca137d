// Source: llvm/llvm-project mlir/test/Dialect/Linalg/decompose-ops.mlir (commit 34c07ec39fbc9a2907ac58bf70bd9fb176aa4df4), https://github.com/llvm/llvm-project/blob/34c07ec39fbc9a2907ac58bf70bd9fb176aa4df4/mlir/test/Dialect/Linalg/decompose-ops.mlir
// What: one linalg.generic with three results (x + a broadcast along rows, written transposed; (x + a) * b broadcast along columns; x + a again), two of its outputs sharing the same init tensor.
// Adaptations: kept only @simple_op_permuted_outputs of the split file (dropped the CHECK lines and the other splits); dynamic shapes made static (%arg0 ?x? -> 3x4, %arg1 ? -> 3, %arg2 ? -> 4, results 4x3, 3x4, 3x4), so the tensor.dim ops (and their index constants) became unused and were dropped and the tensor.empty ops take no sizes; added the gradir entry @vjp_three (autodiff.vjp) below the marker.
// gradir-corpus: entry=simple_op_permuted_outputs wrt=0,1,2 reference=mlir_generic_three_results inputs=signed

func.func @simple_op_permuted_outputs(%arg0 : tensor<3x4xf32>, %arg1 : tensor<3xf32>, %arg2 : tensor<4xf32>)
    -> (tensor<4x3xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %init1 = tensor.empty() : tensor<4x3xf32>
  %init2 = tensor.empty() : tensor<3x4xf32>
  %result:3 = linalg.generic {
    indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, 
                     affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1, d0)>,
                     affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
    iterator_types = ["parallel", "parallel"]}
    ins(%arg0, %arg1, %arg2 : tensor<3x4xf32>, tensor<3xf32>, tensor<4xf32>)
    outs(%init1, %init2, %init2 : tensor<4x3xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
    ^bb0(%b0 : f32, %b1 : f32, %b2 : f32, %b3 : f32, %b4 : f32, %b5 : f32) :
      %0 = arith.addf %b0, %b1 : f32
      %1 = arith.mulf %0, %b2 : f32
      linalg.yield %0, %1, %0 : f32, f32, f32
    } -> (tensor<4x3xf32>, tensor<3x4xf32>, tensor<3x4xf32>)
  return %result#0, %result#1, %result#2 : tensor<4x3xf32>, tensor<3x4xf32>, tensor<3x4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_three(%x: tensor<3x4xf32>, %a: tensor<3xf32>, %b: tensor<4xf32>, %c0: tensor<4x3xf32>, %c1: tensor<3x4xf32>, %c2: tensor<3x4xf32>) -> (tensor<4x3xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3xf32>, tensor<4xf32>) {
  %r:6 = autodiff.vjp @simple_op_permuted_outputs(%x, %a, %b, %c0, %c1, %c2) {wrt = array<i64: 0, 1, 2>} : (tensor<3x4xf32>, tensor<3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<3x4xf32>, tensor<3x4xf32>) -> (tensor<4x3xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3xf32>, tensor<4xf32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5 : tensor<4x3xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3xf32>, tensor<4xf32>
}
