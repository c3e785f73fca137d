// Source: pengmai/lagrad test/LAGrad/generic/logsumexp_1d.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/generic/logsumexp_1d.mlir
// What: stable 1-d logsumexp returning a scalar f64: max as a reduction generic whose body is an scf.if, then a generic capturing the extracted max.
// Adaptations: `func` -> `func.func`; `linalg.init_tensor [] : tensor<f64>` -> `tensor.empty() : tensor<f64>`; dropped the driver @main and the print declaration; added the gradir entry @grad_logsumexp (autodiff.grad) below the marker.
// gradir-corpus: entry=logsumexp wrt=0 reference=logsumexp_1d

#map0 = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> ()>
func.func @logsumexp(%A : tensor<4xf64>) -> f64 {
  %max_space = tensor.empty() : tensor<f64>
  %c0 = arith.constant 0 : index
  %max_init_val = tensor.extract %A[%c0] : tensor<4xf64>
  %max_init = tensor.insert %max_init_val into %max_space[] : tensor<f64>

  %max_t = linalg.generic
    {indexing_maps = [#map0, #map1], iterator_types = ["reduction"]}
    ins(%A : tensor<4xf64>)
    outs(%max_init : tensor<f64>) {
  ^bb0(%arg0: f64, %arg1: f64):
    %p = arith.cmpf "ogt", %arg0, %arg1 : f64
    %next = scf.if %p -> (f64) {
      scf.yield %arg0 : f64
    } else {
      scf.yield %arg1 : f64
    }
    linalg.yield %next : f64
  } -> tensor<f64>

  %max = tensor.extract %max_t[] : tensor<f64>
  %zero = arith.constant dense<0.0> : tensor<f64>
  %se_noadd_t = linalg.generic
    {indexing_maps = [#map0, #map1], iterator_types = ["reduction"]}
    ins(%A : tensor<4xf64>)
    outs(%zero : tensor<f64>) {
  ^bb0(%arg0: f64, %arg1: f64):
    %0 = arith.subf %arg0, %max : f64
    %1 = math.exp %0 : f64
    %2 = arith.addf %1, %arg1 : f64
    linalg.yield %2 : f64
  } -> tensor<f64>
  %se_noadd = tensor.extract %se_noadd_t[] : tensor<f64>
  %lse_noadd = math.log %se_noadd : f64
  %lse = arith.addf %lse_noadd, %max : f64
  return %lse : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_logsumexp(%a: tensor<4xf64>) -> tensor<4xf64> {
  %g = autodiff.grad @logsumexp(%a) {wrt = array<i64: 0>} : (tensor<4xf64>) -> tensor<4xf64>
  return %g : tensor<4xf64>
}
