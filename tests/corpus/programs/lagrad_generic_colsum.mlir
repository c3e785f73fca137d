// Source: pengmai/lagrad test/LAGrad/generic/colsum.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/generic/colsum.mlir
// What: column sums as a linalg.generic reducing the outer dimension (iterator types ["reduction", "parallel"]).
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration; added the gradir entry @vjp_colsum (autodiff.vjp) below the marker.
// gradir-corpus: entry=colsum wrt=0 reference=colsum

func.func @colsum(%arg0 : tensor<4x5xf32>) -> tensor<5xf32> {
  %cst = arith.constant dense<0.0> : tensor<5xf32>
  %0 = linalg.generic
    {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>],
      iterator_types = ["reduction", "parallel"]
    }
    ins(%arg0 : tensor<4x5xf32>)
    outs(%cst : tensor<5xf32>) {
  ^bb0(%arg1: f32, %arg2: f32):
    %1 = arith.addf %arg1, %arg2 : f32
    linalg.yield %1 : f32
  } -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_colsum(%a: tensor<4x5xf32>, %ct: tensor<5xf32>) -> (tensor<5xf32>, tensor<4x5xf32>) {
  %r:2 = autodiff.vjp @colsum(%a, %ct) {wrt = array<i64: 0>} : (tensor<4x5xf32>, tensor<5xf32>) -> (tensor<5xf32>, tensor<4x5xf32>)
  return %r#0, %r#1 : tensor<5xf32>, tensor<4x5xf32>
}
