// Source: pengmai/lagrad test/LAGrad/generic/dot.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/generic/dot.mlir
// What: f32 dot product as a reduction linalg.generic (map aliases #map0/#map1) into a 0-d tensor.
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration (and the commented-out hand-written call); added the gradir entry @grad_dot (autodiff.grad wrt both arguments; upstream's lagrad.grad asks for the first) below the marker.
// gradir-corpus: entry=dot wrt=0,1 reference=lg_dot inputs=signed

#map0 = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> ()>

func.func @dot(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<f32> {
  %cst = arith.constant dense<0.0> : tensor<f32>
  %0 = linalg.generic
    {
      indexing_maps = [#map0, #map0, #map1],
      iterator_types = ["reduction"]
    }
    ins(%arg0, %arg1 : tensor<4xf32>, tensor<4xf32>)
    outs(%cst : tensor<f32>) {
  ^bb0(%arg2: f32, %arg3: f32, %arg4: f32):
    %1 = arith.mulf %arg2, %arg3 : f32
    %2 = arith.addf %1, %arg4 : f32
    linalg.yield %2 : f32
  } -> tensor<f32>
  return %0 : tensor<f32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_dot(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %g:2 = autodiff.grad @dot(%a, %b) {wrt = array<i64: 0, 1>} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %g#0, %g#1 : tensor<4xf32>, tensor<4xf32>
}
