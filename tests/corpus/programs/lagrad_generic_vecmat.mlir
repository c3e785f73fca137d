// Source: pengmai/lagrad test/LAGrad/generic/vecmat.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/generic/vecmat.mlir
// What: vector-matrix product as a linalg.generic with a transposed map `(d0, d1) -> (d1, d0)` and the accumulator as first addend.
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration; added the gradir entry @vjp_vecmat (autodiff.vjp) below the marker.
// gradir-corpus: entry=vecmat wrt=0,1 reference=vecmat

#map0 = affine_map<(d0, d1) -> (d1)>
#map1 = affine_map<(d0, d1) -> (d1, d0)>
#map2 = affine_map<(d0, d1) -> (d0)>

func.func @vecmat(%arg0: tensor<3xf32>, %arg1: tensor<3x4xf32>) -> tensor<4xf32> {
  %cst = arith.constant dense<0.0> : tensor<4xf32>
  %0 = linalg.generic
    {
      indexing_maps = [#map0, #map1, #map2],
      iterator_types = ["parallel", "reduction"]
    }
    ins(%arg0, %arg1 : tensor<3xf32>, tensor<3x4xf32>)
    outs(%cst : tensor<4xf32>) {
  ^bb0(%arg2: f32, %arg3: f32, %arg4: f32):  // no predecessors
    %1 = arith.mulf %arg2, %arg3 : f32
    %2 = arith.addf %arg4, %1 : f32
    linalg.yield %2 : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_vecmat(%x: tensor<3xf32>, %a: tensor<3x4xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<3xf32>, tensor<3x4xf32>) {
  %r:3 = autodiff.vjp @vecmat(%x, %a, %ct) {wrt = array<i64: 0, 1>} : (tensor<3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<3xf32>, tensor<3x4xf32>)
  return %r#0, %r#1, %r#2 : tensor<4xf32>, tensor<3xf32>, tensor<3x4xf32>
}
