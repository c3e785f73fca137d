// Source: iree-org/iree tests/e2e/linalg/unpack.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/tests/e2e/linalg/unpack.mlir
// What: linalg.unpack of a tensor<?x?x3x3> into a smaller destination than the tiles cover (6x6 -> 4x4: an implicit extract_slice), the destination sizes computed from tensor.dim by arith.muli/subi; the result tensor.cast to a static shape.
// Adaptations: kept only @dynamic_unpack_simple_extract_slice (dropped the other functions and @generate_4D_source); the `flow.tensor.dynamic_constant` %iree_input became the function argument of the same name, and the check.expect_eq_const was dropped: the function returns %cast; element type i32 -> f32 throughout, to make it differentiable; added the gradir entry @vjp_dynamic_unpack_simple_extract_slice (autodiff.vjp) below the marker.
// gradir-corpus: entry=dynamic_unpack_simple_extract_slice wrt=0 reference=iree_unpack_3x3_slice inputs=iree_dyn_2x2x3x3

func.func @dynamic_unpack_simple_extract_slice(%iree_input: tensor<?x?x3x3xf32>) -> tensor<4x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %in_d0 = tensor.dim %iree_input, %c0 : tensor<?x?x3x3xf32>
  %in_d1 = tensor.dim %iree_input, %c1 : tensor<?x?x3x3xf32>
  %full_out_d0 = arith.muli %in_d0, %c3 : index
  %full_out_d1 = arith.muli %in_d1, %c3 : index
  %out_d0 = arith.subi %full_out_d0, %c2 : index
  %out_d1 = arith.subi %full_out_d1, %c2 : index
  %init = tensor.empty(%out_d0, %out_d1) : tensor<?x?xf32>
  %unpack = linalg.unpack %iree_input inner_dims_pos = [0, 1] inner_tiles = [3, 3] into %init
      : tensor<?x?x3x3xf32> -> tensor<?x?xf32>
  %cast = tensor.cast %unpack : tensor<?x?xf32> to tensor<4x4xf32>
  return %cast : tensor<4x4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_dynamic_unpack_simple_extract_slice(%x: tensor<?x?x3x3xf32>, %ct: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<?x?x3x3xf32>) {
  %r:2 = autodiff.vjp @dynamic_unpack_simple_extract_slice(%x, %ct) {wrt = array<i64: 0>} : (tensor<?x?x3x3xf32>, tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<?x?x3x3xf32>)
  return %r#0, %r#1 : tensor<4x4xf32>, tensor<?x?x3x3xf32>
}
