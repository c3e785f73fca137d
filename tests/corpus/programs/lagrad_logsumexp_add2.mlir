// Source: pengmai/lagrad test/LAGrad/generic/logsumexp_add2.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/generic/logsumexp_add2.mlir
// What: LSTM-style logsumexp: a reduction generic sums exp(x) into a 0-d tensor, extracted, plus 2.0, then math.log; returns a scalar.
// Adaptations: `func` -> `func.func`; removed the upstream comment line; dropped the driver @main and the print declaration; added the gradir entry @grad_mlogsumexp (autodiff.grad) below the marker.
// gradir-corpus: entry=mlogsumexp wrt=0 reference=lg_logsumexp_add2 inputs=signed

func.func @mlogsumexp(%t: tensor<4xf64>) -> f64 {
  %out_init = arith.constant dense<0.0> : tensor<f64>
  %lse = linalg.generic
    {
      indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
      iterator_types = ["reduction"]
    }
    ins(%t : tensor<4xf64>)
    outs(%out_init : tensor<f64>) {
  ^bb0(%arg0: f64, %arg1: f64):
    %0 = math.exp %arg0 : f64
    %1 = arith.addf %0, %arg1 : f64
    linalg.yield %1 : f64
  } -> tensor<f64>
  %lse_v = tensor.extract %lse[] : tensor<f64>
  %two = arith.constant 2.0 : f64
  %lse_2 = arith.addf %lse_v, %two : f64
  %lse_l = math.log %lse_2 : f64
  return %lse_l : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_mlogsumexp(%t: tensor<4xf64>) -> tensor<4xf64> {
  %g = autodiff.grad @mlogsumexp(%t) {wrt = array<i64: 0>} : (tensor<4xf64>) -> tensor<4xf64>
  return %g : tensor<4xf64>
}
