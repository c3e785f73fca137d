// Source: pengmai/lagrad test/LAGrad/cross_product.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/cross_product.mlir
// What: 3-d cross product as one linalg.generic whose indexing maps are `(d0 + 1) mod 3` / `(d0 + 2) mod 3` (not projected permutations).
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration; added the gradir entry @vjp_cross (autodiff.vjp) below the marker.
// gradir-corpus: entry=cross wrt=0,1 reference=cross

func.func @cross(%arg0: tensor<3xf64>, %arg1: tensor<3xf64>) -> tensor<3xf64> {
  %cross_space = arith.constant dense<0.0> : tensor<3xf64>
  %res = linalg.generic
    {
      indexing_maps = [
        affine_map<(d0) -> ((d0 + 1) mod 3)>,
        affine_map<(d0) -> ((d0 + 2) mod 3)>,
        affine_map<(d0) -> ((d0 + 2) mod 3)>,
        affine_map<(d0) -> ((d0 + 1) mod 3)>,
        affine_map<(d0) -> (d0)>
      ],
      iterator_types = ["parallel"]
    }
    ins(%arg0, %arg1, %arg0, %arg1 : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
    outs(%cross_space : tensor<3xf64>) {
  ^bb0(%arg2: f64, %arg3: f64, %arg4: f64, %arg5: f64, %arg6: f64):
    %0 = arith.mulf %arg2, %arg3 : f64
    %1 = arith.mulf %arg4, %arg5 : f64
    %2 = arith.subf %0, %1 : f64
    linalg.yield %2 : f64
  } -> tensor<3xf64>
  return %res : tensor<3xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_cross(%a: tensor<3xf64>, %b: tensor<3xf64>, %ct: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
  %r:3 = autodiff.vjp @cross(%a, %b, %ct) {wrt = array<i64: 0, 1>} : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
  return %r#0, %r#1, %r#2 : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>
}
