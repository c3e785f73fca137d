// Source: iree-org/iree tests/e2e/regression/pack_pad_transpose_1x9_into_2x1x8x4_issue_12546.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/tests/e2e/regression/pack_pad_transpose_1x9_into_2x1x8x4_issue_12546.mlir
// What: linalg.pack with padding, outer_dims_perm = [1, 0] and transposed inner_dims_pos = [1, 0] (tiles 8x4) of a 1x9 tensor into 2x1x8x4 (most of the result is padding).
// Adaptations: the function (upstream name @pack_pad_transpose_1x9_into_2x1x8x4_issue_12546.mlir, not a valid bare symbol for a call) renamed @pack_pad_transpose_1x9_into_2x1x8x4; the `util.unfoldable_constant` %iree_input became its argument and the check.expect_eq_const was dropped: the function returns %pack; element type i8 -> f32 throughout (the padding value `arith.constant 0 : i8` -> `arith.constant 0.0 : f32`, %c0_i8 -> %c0_f32), to make it differentiable; added the gradir entry @vjp_pack_pad_transpose (autodiff.vjp) below the marker.
// gradir-corpus: entry=pack_pad_transpose_1x9_into_2x1x8x4 wrt=0 reference=iree_pack_pad_transpose inputs=signed

func.func @pack_pad_transpose_1x9_into_2x1x8x4(%iree_input: tensor<1x9xf32>) -> tensor<2x1x8x4xf32> {
  %empty = tensor.empty() : tensor<2x1x8x4xf32>
  %c0_f32 = arith.constant 0.0 : f32
  %pack = linalg.pack %iree_input padding_value(%c0_f32 : f32) outer_dims_perm = [1, 0]
      inner_dims_pos = [1, 0] inner_tiles = [8, 4] into %empty
      : tensor<1x9xf32> -> tensor<2x1x8x4xf32>
  return %pack : tensor<2x1x8x4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_pack_pad_transpose(%x: tensor<1x9xf32>, %ct: tensor<2x1x8x4xf32>) -> (tensor<2x1x8x4xf32>, tensor<1x9xf32>) {
  %r:2 = autodiff.vjp @pack_pad_transpose_1x9_into_2x1x8x4(%x, %ct) {wrt = array<i64: 0>} : (tensor<1x9xf32>, tensor<2x1x8x4xf32>) -> (tensor<2x1x8x4xf32>, tensor<1x9xf32>)
  return %r#0, %r#1 : tensor<2x1x8x4xf32>, tensor<1x9xf32>
}
