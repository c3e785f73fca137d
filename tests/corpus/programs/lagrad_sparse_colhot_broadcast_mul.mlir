// Source: pengmai/lagrad test/LAGrad/sparse/colhot_broadcast_mul.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/sparse/colhot_broadcast_mul.mlir
// What: a vector broadcast along rows (`(d0, d1) -> (d0)`) times a matrix, accumulated into a zero constant by a generic.
// Adaptations: dropped the LAGrad tensor encoding `"colhot"` (a sparsity hint for LAGrad's own sparse adjoints; the program is the same on a dense tensor); `func` -> `func.func`; removed `// no predecessors`; added the gradir entry @vjp_colhot_broadcast_mul (autodiff.vjp wrt both operands) below the marker.
// gradir-corpus: entry=colhot_broadcast_mul wrt=0,1 reference=lg_row_broadcast_mul inputs=signed

#map8 = affine_map<(d0, d1) -> (d0, d1)>
#map9 = affine_map<(d0, d1) -> (d0)>

func.func @colhot_broadcast_mul(%6: tensor<3xf64>, %15: tensor<3x3xf64>) -> tensor<3x3xf64> {
  %cst_2 = arith.constant dense<0.0> : tensor<3x3xf64>
  %17 = linalg.generic
    { indexing_maps = [#map9, #map8, #map8], iterator_types = ["parallel", "parallel"] }
    ins(%6, %15 : tensor<3xf64>, tensor<3x3xf64>)
    outs(%cst_2 : tensor<3x3xf64>) {
  ^bb0(%arg9: f64, %arg10: f64, %arg11: f64):
    %38 = arith.mulf %arg10, %arg9 : f64
    %39 = arith.addf %38, %arg11 : f64
    linalg.yield %39 : f64
  } -> tensor<3x3xf64>
  return %17 : tensor<3x3xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_colhot_broadcast_mul(%a: tensor<3xf64>, %b: tensor<3x3xf64>, %ct: tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xf64>, tensor<3x3xf64>) {
  %r:3 = autodiff.vjp @colhot_broadcast_mul(%a, %b, %ct) {wrt = array<i64: 0, 1>} : (tensor<3xf64>, tensor<3x3xf64>, tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xf64>, tensor<3x3xf64>)
  return %r#0, %r#1, %r#2 : tensor<3x3xf64>, tensor<3xf64>, tensor<3x3xf64>
}
