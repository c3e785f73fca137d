// Source: pengmai/lagrad test/LAGrad/generic/gmm_einsum.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/generic/gmm_einsum.mlir
// What: the GMM einsum out[n,k,d1] += L[k,d1,d2] * x[n,k,d2] as one 4-d linalg.generic.
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration; added the gradir entry @vjp_gmm_einsum (autodiff.vjp) below the marker.
// gradir-corpus: entry=gmm_einsum wrt=0,1 reference=gmm_einsum

func.func @gmm_einsum(%arg0: tensor<3x4x4xf64>, %arg1: tensor<2x3x4xf64>) -> tensor<2x3x4xf64>{
  %cst = arith.constant dense<0.0> : tensor<2x3x4xf64>
  %0 = linalg.generic
    {
      indexing_maps = [
        affine_map<(n, k, d1, d2) -> (k, d1, d2)>,
        affine_map<(n, k, d1, d2) -> (n, k, d2)>,
        affine_map<(n, k, d1, d2) -> (n, k, d1)>
      ],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]
    }
    ins(%arg0, %arg1 : tensor<3x4x4xf64>, tensor<2x3x4xf64>)
    outs(%cst : tensor<2x3x4xf64>) {
  ^bb0(%arg2: f64, %arg3: f64, %arg4: f64):
    %0 = arith.mulf %arg2, %arg3 : f64
    %1 = arith.addf %0, %arg4 : f64
    linalg.yield %1 : f64
  } -> tensor<2x3x4xf64>
  return %0 : tensor<2x3x4xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_gmm_einsum(%l: tensor<3x4x4xf64>, %x: tensor<2x3x4xf64>, %ct: tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>, tensor<3x4x4xf64>, tensor<2x3x4xf64>) {
  %r:3 = autodiff.vjp @gmm_einsum(%l, %x, %ct) {wrt = array<i64: 0, 1>} : (tensor<3x4x4xf64>, tensor<2x3x4xf64>, tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>, tensor<3x4x4xf64>, tensor<2x3x4xf64>)
  return %r#0, %r#1, %r#2 : tensor<2x3x4xf64>, tensor<3x4x4xf64>, tensor<2x3x4xf64>
}
