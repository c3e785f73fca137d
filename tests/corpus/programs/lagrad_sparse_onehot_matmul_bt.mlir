// Source: pengmai/lagrad test/LAGrad/sparse/onehot_matmul.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/sparse/onehot_matmul.mlir
// What: matmul as a generic with both operands transposed (`(d2, d0)`, `(d1, d0)` -> `(d1, d2)`, the reduction iterator first): B A^T (upstream: B one-hot, the result row-hot).
// Adaptations: kept only @onehot_matmul_both_transposed of the file's two functions (the other is lagrad_sparse_onehot_matmul); dropped the LAGrad tensor encoding `"onehot"` (a sparsity hint for LAGrad's own sparse adjoints; the program is the same on a dense tensor); shapes reduced: 544 rows -> 6; `func` -> `func.func`; removed the comment lines and `// no predecessors`; dropped the map alias only the other function uses; added the gradir entry @vjp_onehot_matmul_bt (autodiff.vjp wrt both operands) below the marker.
// gradir-corpus: entry=onehot_matmul_both_transposed wrt=0,1 reference=lg_onehot_matmul_bt inputs=signed

#map5 = affine_map<(d0, d1, d2) -> (d1, d0)>
#map6 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map10 = affine_map<(d0, d1, d2) -> (d2, d0)>

func.func @onehot_matmul_both_transposed(%8: tensor<3x3xf64>, %12: tensor<6x3xf64>) -> tensor<6x3xf64> {
  %cst_3 = arith.constant dense<0.0> : tensor<6x3xf64>
  %16 = linalg.generic {indexing_maps = [#map10, #map5, #map6], iterator_types = ["reduction", "parallel", "parallel"]} ins(%8, %12 : tensor<3x3xf64>, tensor<6x3xf64>) outs(%cst_3 : tensor<6x3xf64>) {
  ^bb0(%arg9: f64, %arg10: f64, %arg11: f64):
    %38 = arith.mulf %arg10, %arg9 : f64
    %39 = arith.addf %38, %arg11 : f64
    linalg.yield %39 : f64
  } -> tensor<6x3xf64>
  return %16 : tensor<6x3xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_onehot_matmul_bt(%a: tensor<3x3xf64>, %b: tensor<6x3xf64>, %ct: tensor<6x3xf64>) -> (tensor<6x3xf64>, tensor<3x3xf64>, tensor<6x3xf64>) {
  %r:3 = autodiff.vjp @onehot_matmul_both_transposed(%a, %b, %ct) {wrt = array<i64: 0, 1>} : (tensor<3x3xf64>, tensor<6x3xf64>, tensor<6x3xf64>) -> (tensor<6x3xf64>, tensor<3x3xf64>, tensor<6x3xf64>)
  return %r#0, %r#1, %r#2 : tensor<6x3xf64>, tensor<3x3xf64>, tensor<6x3xf64>
}
