// Source: iree-org/iree tests/e2e/linalg/pack.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/tests/e2e/linalg/pack.mlir
// What: linalg.pack of a dynamically shaped 2-d tensor into 3x3 tiles with a padding value, the outer sizes computed by arith.ceildivui of tensor.dim; the packed tensor<?x?x3x3> is tensor.cast to a static shape.
// Adaptations: kept only @dynamic_pack_simple_pad_mode (dropped the other functions and @generate_2D_source); the `flow.tensor.dynamic_constant` %iree_input became the function argument of the same name, and the check.expect_eq_const was dropped: the function returns %cast; element type i32 -> f32 throughout (so the padding value `arith.constant 0 : i32` -> `arith.constant 0.0 : f32`), to make it differentiable; added the gradir entry @vjp_dynamic_pack_simple_pad_mode (autodiff.vjp) below the marker.
// gradir-corpus: entry=dynamic_pack_simple_pad_mode wrt=0 reference=iree_pack_pad_3x3 inputs=iree_dyn_4x4

func.func @dynamic_pack_simple_pad_mode(%iree_input: tensor<?x?xf32>) -> tensor<2x2x3x3xf32> {
  %pad = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %in_d0 = tensor.dim %iree_input, %c0 : tensor<?x?xf32>
  %in_d1 = tensor.dim %iree_input, %c1 : tensor<?x?xf32>
  %out_d0 = arith.ceildivui %in_d0, %c3 : index
  %out_d1 = arith.ceildivui %in_d1, %c3 : index
  %init = tensor.empty(%out_d0, %out_d1) : tensor<?x?x3x3xf32>
  %pack = linalg.pack %iree_input padding_value(%pad : f32) inner_dims_pos = [0, 1] inner_tiles = [3, 3] into %init
      : tensor<?x?xf32> -> tensor<?x?x3x3xf32>
  %cast = tensor.cast %pack : tensor<?x?x3x3xf32> to tensor<2x2x3x3xf32>
  return %cast : tensor<2x2x3x3xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_dynamic_pack_simple_pad_mode(%x: tensor<?x?xf32>, %ct: tensor<2x2x3x3xf32>) -> (tensor<2x2x3x3xf32>, tensor<?x?xf32>) {
  %r:2 = autodiff.vjp @dynamic_pack_simple_pad_mode(%x, %ct) {wrt = array<i64: 0>} : (tensor<?x?xf32>, tensor<2x2x3x3xf32>) -> (tensor<2x2x3x3xf32>, tensor<?x?xf32>)
  return %r#0, %r#1 : tensor<2x2x3x3xf32>, tensor<?x?xf32>
}
