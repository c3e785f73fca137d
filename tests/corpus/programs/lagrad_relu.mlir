// Source: pengmai/lagrad test/LAGrad/relu.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/relu.mlir
// What: ReLU as a linalg.generic whose body is an scf.if on `arith.cmpf "olt"` yielding a scalar.
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration; removed the upstream comment lines (file descriptions, commented-out code); added the gradir entry @vjp_relu (autodiff.vjp) below the marker.
// gradir-corpus: entry=relu wrt=0 reference=relu inputs=signed

#map0 = affine_map<(d0) -> (d0)>
func.func @relu(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %out = arith.constant dense<0.0> : tensor<4xf32>
  %cst = arith.constant 0.0 : f32
  %res = linalg.generic
    { indexing_maps = [#map0, #map0], iterator_types = ["parallel"] }
    ins(%arg0 : tensor<4xf32>)
    outs(%out : tensor<4xf32>) {
  ^bb0(%arg1: f32, %arg2: f32):
    %pred = arith.cmpf "olt", %arg1, %cst : f32
    %el = scf.if %pred -> (f32) {
      scf.yield %cst : f32
    } else {
      scf.yield %arg1 : f32
    }
    linalg.yield %el : f32
  } -> tensor<4xf32>
  return %res : tensor<4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_relu(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = autodiff.vjp @relu(%x, %ct) {wrt = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}
