// Source: pengmai/lagrad test/LAGrad/generic/broadcast.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/generic/broadcast.mlir
// What: f32 broadcast of a 0-d tensor to a 4-vector by a generic whose input map is `(d0) -> ()` and whose body yields the input unchanged.
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration; removed the upstream comment lines (a derivation of another program's adjoint); added the gradir entry @vjp_broadcast_square (autodiff.vjp) below the marker.
// gradir-corpus: entry=broadcast_square wrt=0 reference=lg_broadcast inputs=signed

func.func @broadcast_square(%a: tensor<f32>) -> tensor<4xf32> {
  %out_init = arith.constant dense<0.0> : tensor<4xf32>
  %out = linalg.generic
    {
      indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>],
      iterator_types = ["parallel"]
    }
    ins(%a : tensor<f32>)
    outs(%out_init : tensor<4xf32>) {
  ^bb0(%arg0: f32, %arg1: f32):
    linalg.yield %arg0 : f32
  } -> tensor<4xf32>
  return %out : tensor<4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_broadcast_square(%a: tensor<f32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>) {
  %r:2 = autodiff.vjp @broadcast_square(%a, %ct) {wrt = array<i64: 0>} : (tensor<f32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<f32>
}
