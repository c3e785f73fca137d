// Source: llvm/llvm-project mlir/test/Dialect/Linalg/elementwise/generalize-named-ops.mlir (commit f24d1f94bf290a9a3476449b849a674ec09f00d5), https://github.com/llvm/llvm-project/blob/f24d1f94bf290a9a3476449b849a674ec09f00d5/mlir/test/Dialect/Linalg/elementwise/generalize-named-ops.mlir
// What: linalg.elementwise kind select whose i1 condition is read transposed and broadcast (indexing_maps), choosing between two 3-d f32 tensors.
// Adaptations: kept only @ternary of the split file (dropped the CHECK lines and the other splits); shapes reduced (A 32x16 -> 4x3, B, C, D and the result 8x16x32 -> 2x3x4); added the gradir entry @vjp_ternary (autodiff.vjp wrt B, C and the unused init D; the condition from the default generator, random 0/1) below the marker.
// gradir-corpus: entry=ternary wrt=1,2,3 reference=mu_elementwise_select_tb inputs=signed

func.func @ternary(%A : tensor<4x3xi1>, %B: tensor<2x3x4xf32>, %C : tensor<2x3x4xf32>, %D : tensor<2x3x4xf32>) ->  tensor<2x3x4xf32> {
  %r = linalg.elementwise
      kind=#linalg.elementwise_kind<select>
      indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d1)>,
                       affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                       affine_map<(d0, d1, d2) -> (d0, d1, d2)>,
                       affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
      ins(%A, %B, %C : tensor<4x3xi1>, tensor<2x3x4xf32>, tensor<2x3x4xf32>)
      outs(%D: tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_ternary(%a0: tensor<4x3xi1>, %a1: tensor<2x3x4xf32>, %a2: tensor<2x3x4xf32>, %a3: tensor<2x3x4xf32>, %c0: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %r:4 = autodiff.vjp @ternary(%a0, %a1, %a2, %a3, %c0) {wrt = array<i64: 1, 2, 3>} : (tensor<4x3xi1>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}
