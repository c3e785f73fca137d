// Source: pengmai/lagrad test/LAGrad/generic/broadcast_square.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/generic/broadcast_square.mlir
// What: linalg.generic broadcasting a 0-d tensor over a vector (map `(d0) -> ()`) and squaring the product.
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration; removed the upstream comment lines (file descriptions, commented-out code); added the gradir entry @vjp_broadcast_square (autodiff.vjp) below the marker.
// gradir-corpus: entry=broadcast_square wrt=0,1 reference=broadcast_square

func.func @broadcast_square(%a: tensor<f32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %out_init = arith.constant dense<0.0> : tensor<4xf32>
  %out = linalg.generic
    {
      indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
      iterator_types = ["parallel"]
    }
    ins(%a, %b : tensor<f32>, tensor<4xf32>)
    outs(%out_init : tensor<4xf32>) {
  ^bb0(%arg0: f32, %arg1: f32, %arg2: f32):
    %1 = arith.mulf %arg0, %arg1 : f32
    %2 = arith.mulf %1, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<4xf32>
  return %out : tensor<4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_broadcast_square(%a: tensor<f32>, %b: tensor<4xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>, tensor<4xf32>) {
  %r:3 = autodiff.vjp @broadcast_square(%a, %b, %ct) {wrt = array<i64: 0, 1>} : (tensor<f32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<f32>, tensor<4xf32>)
  return %r#0, %r#1, %r#2 : tensor<4xf32>, tensor<f32>, tensor<4xf32>
}
