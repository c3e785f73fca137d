// Source: iree-org/iree tests/e2e/regression/broadcast_batch_matmul_to_matmul.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/tests/e2e/regression/broadcast_batch_matmul_to_matmul.mlir
// What: a weight matrix broadcast over the batch with linalg.broadcast (dimensions = [0]) and fed as the transposed B operand of linalg.batch_matmul with explicit indexing_maps ((b, n, k) for B) into a zero fill.
// Adaptations: kept only @broadcast_batch_matmul_transpose_b (dropped @broadcast_batch_matmul and the comment lines); the two `util.unfoldable_constant` operands %act and %weight became the function arguments of the same names; kept only the first batch_matmul %opt and returned it: dropped the util.optimization_barrier copy %broadcast_ref, the second batch_matmul %ref computed from it and the check.expect_almost_eq comparing the two; added the gradir entry @vjp_broadcast_batch_matmul_transpose_b (autodiff.vjp wrt both) below the marker.
// gradir-corpus: entry=broadcast_batch_matmul_transpose_b wrt=0,1 reference=iree_broadcast_batch_matmul_transpose_b inputs=signed

func.func @broadcast_batch_matmul_transpose_b(%act: tensor<2x2x3xf32>, %weight: tensor<4x3xf32>) -> tensor<2x2x4xf32> {
  %cst = arith.constant 0.0 : f32
  %init_broadcast = tensor.empty() : tensor<2x4x3xf32>
  %broadcast = linalg.broadcast ins(%weight : tensor<4x3xf32>)
                                outs(%init_broadcast : tensor<2x4x3xf32>) dimensions = [0]
  %init_out = tensor.empty() : tensor<2x2x4xf32>
  %fill = linalg.fill ins(%cst : f32) outs(%init_out : tensor<2x2x4xf32>) -> tensor<2x2x4xf32>
  %opt = linalg.batch_matmul
      indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                       affine_map<(b, m, n, k) -> (b, n, k)>,
                       affine_map<(b, m, n, k) -> (b, m, n)>]
      ins(%act, %broadcast : tensor<2x2x3xf32>, tensor<2x4x3xf32>)
      outs(%fill : tensor<2x2x4xf32>) -> tensor<2x2x4xf32>
  return %opt : tensor<2x2x4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_broadcast_batch_matmul_transpose_b(%a: tensor<2x2x3xf32>, %w: tensor<4x3xf32>, %ct: tensor<2x2x4xf32>) -> (tensor<2x2x4xf32>, tensor<2x2x3xf32>, tensor<4x3xf32>) {
  %r:3 = autodiff.vjp @broadcast_batch_matmul_transpose_b(%a, %w, %ct) {wrt = array<i64: 0, 1>} : (tensor<2x2x3xf32>, tensor<4x3xf32>, tensor<2x2x4xf32>) -> (tensor<2x2x4xf32>, tensor<2x2x3xf32>, tensor<4x3xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x2x4xf32>, tensor<2x2x3xf32>, tensor<4x3xf32>
}
