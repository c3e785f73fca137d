// Source: pengmai/lagrad test/LAGrad/generic/logsumexp.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/generic/logsumexp.mlir
// What: row-wise log(sum(exp(x))) without max shift: an exp-and-accumulate reduction generic, then math.log on the whole tensor.
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration; added the gradir entry @vjp_logsumexp (autodiff.vjp) below the marker.
// gradir-corpus: entry=logsumexp wrt=0 reference=logsumexp_rows

func.func @logsumexp(%x: tensor<3x4xf32>) -> tensor<3xf32> {
  %out_init = arith.constant dense<0.0> : tensor<3xf32>
  %prelog = linalg.generic
    {
      indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
      iterator_types = ["parallel", "reduction"]
    }
    ins(%x : tensor<3x4xf32>)
    outs(%out_init : tensor<3xf32>) {
  ^bb0(%arg0: f32, %arg1: f32):
    %0 = math.exp %arg0 : f32
    %1 = arith.addf %0, %arg1 : f32
    linalg.yield %1 : f32
  } -> tensor<3xf32>
  %out = math.log %prelog : tensor<3xf32>
  return %out : tensor<3xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_logsumexp(%x: tensor<3x4xf32>, %ct: tensor<3xf32>) -> (tensor<3xf32>, tensor<3x4xf32>) {
  %r:2 = autodiff.vjp @logsumexp(%x, %ct) {wrt = array<i64: 0>} : (tensor<3x4xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3x4xf32>)
  return %r#0, %r#1 : tensor<3xf32>, tensor<3x4xf32>
}
