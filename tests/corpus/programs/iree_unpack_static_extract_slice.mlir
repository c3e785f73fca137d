// Source: iree-org/iree tests/e2e/linalg/unpack.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/tests/e2e/linalg/unpack.mlir
// What: linalg.unpack of 2x2 tiles of 3x3 into a 4x4 destination, smaller than the 6x6 the tiles cover (an implicit extract_slice: the last row and column of tiles are partly dropped).
// Adaptations: kept only @static_unpack_simple_extract_slice (dropped the other functions and @generate_4D_source); the `util.unfoldable_constant` %iree_input became the function argument of the same name, and the check.expect_eq_const was dropped: the function returns %unpack; element type i32 -> f32 throughout, to make it differentiable; added the gradir entry @vjp_static_unpack_simple_extract_slice (autodiff.vjp) below the marker.
// gradir-corpus: entry=static_unpack_simple_extract_slice wrt=0 reference=iree_unpack_3x3_slice inputs=signed

func.func @static_unpack_simple_extract_slice(%iree_input: tensor<2x2x3x3xf32>) -> tensor<4x4xf32> {
  %init = tensor.empty() : tensor<4x4xf32>
  %unpack = linalg.unpack %iree_input inner_dims_pos = [0, 1] inner_tiles = [3, 3] into %init
      : tensor<2x2x3x3xf32> -> tensor<4x4xf32>
  return %unpack : tensor<4x4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_static_unpack_simple_extract_slice(%x: tensor<2x2x3x3xf32>, %ct: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<2x2x3x3xf32>) {
  %r:2 = autodiff.vjp @static_unpack_simple_extract_slice(%x, %ct) {wrt = array<i64: 0>} : (tensor<2x2x3x3xf32>, tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<2x2x3x3xf32>)
  return %r#0, %r#1 : tensor<4x4xf32>, tensor<2x2x3x3xf32>
}
