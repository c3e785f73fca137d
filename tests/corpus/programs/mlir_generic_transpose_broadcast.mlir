// Source: llvm/llvm-project mlir/test/Dialect/Linalg/decompose-generic-by-unfolding-projected-permutation.mlir (commit 02be6352969a132b6058ed12811e087d93267872), https://github.com/llvm/llvm-project/blob/02be6352969a132b6058ed12811e087d93267872/mlir/test/Dialect/Linalg/decompose-generic-by-unfolding-projected-permutation.mlir
// What: a 5-d linalg.generic dividing a 3-d tensor, read transposed and broadcast through the map (d0, d1, d2, d3, d4) -> (d2, d3, d1), by a 5-d tensor.
// Adaptations: kept only @transpose_and_broadcast of the split file (dropped the CHECK lines and the other splits); shapes reduced (x 7x8x9 -> 2x3x4, y and z 5x9x7x8x10 -> 2x4x2x3x2, i.e. d0..d4 = 2, 4, 2, 3, 2); added the gradir entry @vjp_tb (autodiff.vjp wrt x and y; z is only the init) below the marker.
// gradir-corpus: entry=transpose_and_broadcast wrt=0,1 reference=mlir_transpose_broadcast_div inputs=signed

#projection = affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d1)>
#identity   = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>

func.func @transpose_and_broadcast(%x : tensor<2x3x4xf32>, %y:  tensor<2x4x2x3x2xf32>, %z :  tensor<2x4x2x3x2xf32>) ->  tensor<2x4x2x3x2xf32> {
  %res = linalg.generic
     { indexing_maps = [#projection, #identity, #identity], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]}
     ins(%x, %y : tensor<2x3x4xf32>, tensor<2x4x2x3x2xf32>) outs(%z : tensor<2x4x2x3x2xf32>) {
     ^bb0(%in: f32, %in_1: f32, %out: f32):
       %div = arith.divf %in, %in_1 : f32
       linalg.yield %div : f32
  } -> tensor<2x4x2x3x2xf32>
  return %res : tensor<2x4x2x3x2xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_tb(%x: tensor<2x3x4xf32>, %y: tensor<2x4x2x3x2xf32>, %z: tensor<2x4x2x3x2xf32>, %ct: tensor<2x4x2x3x2xf32>) -> (tensor<2x4x2x3x2xf32>, tensor<2x3x4xf32>, tensor<2x4x2x3x2xf32>) {
  %r:3 = autodiff.vjp @transpose_and_broadcast(%x, %y, %z, %ct) {wrt = array<i64: 0, 1>} : (tensor<2x3x4xf32>, tensor<2x4x2x3x2xf32>, tensor<2x4x2x3x2xf32>, tensor<2x4x2x3x2xf32>) -> (tensor<2x4x2x3x2xf32>, tensor<2x3x4xf32>, tensor<2x4x2x3x2xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x4x2x3x2xf32>, tensor<2x3x4xf32>, tensor<2x4x2x3x2xf32>
}
