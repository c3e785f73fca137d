// Source: pengmai/lagrad test/LAGrad/generic/sub.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/generic/sub.mlir
// What: f32 elementwise subtraction as a linalg.generic (map alias #map), differentiated wrt the subtrahend only.
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration (lagrad.grad {of = [1]}); added the gradir entry @vjp_sub (autodiff.vjp, same wrt) below the marker.
// gradir-corpus: entry=sub wrt=1 reference=lg_sub inputs=signed

#map = affine_map<(d0) -> (d0)>

func.func @sub(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.constant dense<0.0> : tensor<4xf32>
  %1 = linalg.generic
    {
      indexing_maps = [#map, #map, #map],
      iterator_types = ["parallel"]
    }
    ins(%arg0, %arg1 : tensor<4xf32>, tensor<4xf32>)
    outs(%0 : tensor<4xf32>) {
  ^bb0(%arg2: f32, %arg3: f32, %arg4: f32):
    %2 = arith.subf %arg2, %arg3 : f32
    linalg.yield %2 : f32
  } -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_sub(%a: tensor<4xf32>, %b: tensor<4xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = autodiff.vjp @sub(%a, %b, %ct) {wrt = array<i64: 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}
