// Source: pengmai/lagrad test/LAGrad/sparse/onehot_sumreduce.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/sparse/onehot_sumreduce.mlir
// What: column sums of a matrix by a generic whose first iterator is the reduction (`(d0, d1) -> (d1)` output).
// Adaptations: dropped the LAGrad tensor encoding `"onehot"` (a sparsity hint for LAGrad's own sparse adjoints; the program is the same on a dense tensor); shapes reduced: 544 rows -> 6; `func` -> `func.func`; removed `// no predecessors`; added the gradir entry @vjp_onehot_sumreduce (autodiff.vjp) below the marker.
// gradir-corpus: entry=onehot_sumreduce wrt=0 reference=lg_colsum inputs=signed

#map8 = affine_map<(d0, d1) -> (d0, d1)>
#map11 = affine_map<(d0, d1) -> (d1)>

func.func @onehot_sumreduce(%12: tensor<6x3xf64>) -> tensor<3xf64> {
  %cst_1 = arith.constant dense<0.000000e+00> : tensor<3xf64>
  %14 = linalg.generic {indexing_maps = [#map8, #map11], iterator_types = ["reduction", "parallel"]} ins(%12 : tensor<6x3xf64>) outs(%cst_1 : tensor<3xf64>) {
  ^bb0(%arg9: f64, %arg10: f64):
    %38 = arith.addf %arg9, %arg10 : f64
    linalg.yield %38 : f64
  } -> tensor<3xf64>
  return %14 : tensor<3xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_onehot_sumreduce(%a: tensor<6x3xf64>, %ct: tensor<3xf64>) -> (tensor<3xf64>, tensor<6x3xf64>) {
  %r:2 = autodiff.vjp @onehot_sumreduce(%a, %ct) {wrt = array<i64: 0>} : (tensor<6x3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<6x3xf64>)
  return %r#0, %r#1 : tensor<3xf64>, tensor<6x3xf64>
}
