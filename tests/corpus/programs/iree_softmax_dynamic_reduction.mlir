// Source: iree-org/iree tests/e2e/regression/linalg_ops_dynamic.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/tests/e2e/regression/linalg_ops_dynamic.mlir
// What: linalg.softmax over a dynamic reduction dimension (tensor<2x?xf32>), the destination sized by tensor.dim; the result keeps the dynamic shape.
// Adaptations: kept only @softmax_dynamic_reduction_N2_K4 (dropped the other functions and the comments); the `flow.tensor.dynamic_constant` %input became the function argument of the same name, and %expected with the check.expect_almost_eq was dropped: the function returns %sm; added the gradir entry @vjp_softmax_dynamic_reduction_N2_K4 (autodiff.vjp) below the marker.
// gradir-corpus: entry=softmax_dynamic_reduction_N2_K4 wrt=0 reference=iree_softmax_last inputs=iree_dyn_2x4

func.func @softmax_dynamic_reduction_N2_K4(%input: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %c_1_index = arith.constant 1 : index
  %dim_0 = tensor.dim %input, %c_1_index : tensor<2x?xf32>
  %output = tensor.empty(%dim_0) : tensor<2x?xf32>

  %sm = linalg.softmax dimension(1) ins(%input : tensor<2x?xf32>)
                                    outs(%output : tensor<2x?xf32>) -> tensor<2x?xf32>
  return %sm : tensor<2x?xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_softmax_dynamic_reduction_N2_K4(%x: tensor<2x?xf32>, %ct: tensor<2x?xf32>) -> (tensor<2x?xf32>, tensor<2x?xf32>) {
  %r:2 = autodiff.vjp @softmax_dynamic_reduction_N2_K4(%x, %ct) {wrt = array<i64: 0>} : (tensor<2x?xf32>, tensor<2x?xf32>) -> (tensor<2x?xf32>, tensor<2x?xf32>)
  return %r#0, %r#1 : tensor<2x?xf32>, tensor<2x?xf32>
}
