// Source: pengmai/lagrad test/LAGrad/generic/closure.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/generic/closure.mlir
// What: elementwise a * s * b in a linalg.generic whose body captures the scalar function argument s.
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration; added the gradir entry @vjp_closure (autodiff.vjp) below the marker.
// gradir-corpus: entry=closure wrt=0,1,2 reference=closure

#map0 = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> ()>
#map2 = affine_map<() -> ()>
func.func @closure(%arg0: f32, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.constant dense<0.0> : tensor<4xf32>
  %1 = linalg.generic
    {
      indexing_maps = [#map0, #map0, #map0],
      iterator_types = ["parallel"]
    }
    ins(%arg1, %arg2 : tensor<4xf32>, tensor<4xf32>)
    outs(%0 : tensor<4xf32>) {
  ^bb0(%arg3: f32, %arg4: f32, %arg5: f32):
    %2 = arith.mulf %arg3, %arg0 : f32
    %3 = arith.mulf %2, %arg4 : f32
    linalg.yield %3: f32
  } -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_closure(%s: f32, %a: tensor<4xf32>, %b: tensor<4xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, f32, tensor<4xf32>, tensor<4xf32>) {
  %r:4 = autodiff.vjp @closure(%s, %a, %b, %ct) {wrt = array<i64: 0, 1, 2>} : (f32, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, f32, tensor<4xf32>, tensor<4xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<4xf32>, f32, tensor<4xf32>, tensor<4xf32>
}
