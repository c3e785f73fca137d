// Source: llvm/llvm-project mlir/test/Dialect/Linalg/elementwise/generalize-named-ops.mlir (commit f24d1f94bf290a9a3476449b849a674ec09f00d5), https://github.com/llvm/llvm-project/blob/f24d1f94bf290a9a3476449b849a674ec09f00d5/mlir/test/Dialect/Linalg/elementwise/generalize-named-ops.mlir
// What: linalg.elementwise kind tanh with explicit indexing_maps: the 2-d input read transposed and broadcast along the new leading dimension of the 3-d output.
// Adaptations: kept only @unary_transpose_broadcast_tanh of the split file (dropped the CHECK lines and the other splits); shapes reduced (A 32x16 -> 4x3, B and the result 8x16x32 -> 2x3x4); added the gradir entry @vjp_unary_transpose_broadcast_tanh (autodiff.vjp wrt A; B only provides the shape) below the marker.
// gradir-corpus: entry=unary_transpose_broadcast_tanh wrt=0,1 reference=mu_elementwise_tanh_tb inputs=signed

func.func @unary_transpose_broadcast_tanh(%A : tensor<4x3xf32>, %B: tensor<2x3x4xf32>) ->  tensor<2x3x4xf32> {
  %r = linalg.elementwise
      kind=#linalg.elementwise_kind<tanh>
      indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d1)>,
                       affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
      ins(%A : tensor<4x3xf32>)
      outs(%B: tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_unary_transpose_broadcast_tanh(%a0: tensor<4x3xf32>, %a1: tensor<2x3x4xf32>, %c0: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x3xf32>, tensor<2x3x4xf32>) {
  %r:3 = autodiff.vjp @unary_transpose_broadcast_tanh(%a0, %a1, %c0) {wrt = array<i64: 0, 1>} : (tensor<4x3xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<4x3xf32>, tensor<2x3x4xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x3x4xf32>, tensor<4x3xf32>, tensor<2x3x4xf32>
}
