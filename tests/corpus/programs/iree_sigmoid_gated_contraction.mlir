// Source: iree-org/iree compiler/src/iree/compiler/DispatchCreation/test/dispatch_region_formation_preprocessing.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/compiler/src/iree/compiler/DispatchCreation/test/dispatch_region_formation_preprocessing.mlir
// What: an elementwise chain (exp, + a dense<1.0> constant tensor, 1/x as a divf of the constant: a logistic of -x), two elementwise products, and a contraction over the middle dimension with permuted maps (d1, d3, d0) x (d2, d3, d0) -> (d0, d1, d2) into a zero fill, as in a gated attention score.
// Adaptations: kept only @nofuse_broadcast_compute of the file with its #map..#map3 aliases (dropped the RUN/CHECK lines and the other functions); `util.func public` -> `func.func`, `util.return` -> `return`; sizes reduced (702x702x128 -> 3x3x2 for the four arguments and the constant, the result 128x702x702 -> 2x3x3); added the gradir entry @vjp_nofuse_broadcast_compute (autodiff.vjp wrt all four) below the marker.
// gradir-corpus: entry=nofuse_broadcast_compute wrt=0,1,2,3 reference=iree_sigmoid_gated_contraction inputs=signed

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d1, d3, d0)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d2, d3, d0)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @nofuse_broadcast_compute(%arg0: tensor<3x3x2xf32>, %arg1: tensor<3x3x2xf32>,
    %arg2: tensor<3x3x2xf32>, %arg3: tensor<3x3x2xf32>) -> tensor<2x3x3xf32> {
  %cst = arith.constant dense<1.000000e+00> : tensor<3x3x2xf32>
  %cst_0 = arith.constant 0.000000e+00 : f32
  %0 = tensor.empty() : tensor<3x3x2xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg3 : tensor<3x3x2xf32>) outs(%0 : tensor<3x3x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %9 = math.exp %in : f32
    linalg.yield %9 : f32
  } -> tensor<3x3x2xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1, %cst : tensor<3x3x2xf32>, tensor<3x3x2xf32>) outs(%0 : tensor<3x3x2xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %9 = arith.addf %in, %in_1 : f32
    linalg.yield %9 : f32
  } -> tensor<3x3x2xf32>
  %3 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%cst, %2 : tensor<3x3x2xf32>, tensor<3x3x2xf32>) outs(%0 : tensor<3x3x2xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %9 = arith.divf %in, %in_1 : f32
    linalg.yield %9 : f32
  } -> tensor<3x3x2xf32>
  %4 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %arg2 : tensor<3x3x2xf32>, tensor<3x3x2xf32>) outs(%0 : tensor<3x3x2xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %9 = arith.mulf %in, %in_1 : f32
    linalg.yield %9 : f32
  } -> tensor<3x3x2xf32>
  %5 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1, %3 : tensor<3x3x2xf32>, tensor<3x3x2xf32>) outs(%0 : tensor<3x3x2xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %9 = arith.mulf %in, %in_1 : f32
    linalg.yield %9 : f32
  } -> tensor<3x3x2xf32>
  %6 = tensor.empty() : tensor<2x3x3xf32>
  %7 = linalg.fill ins(%cst_0 : f32) outs(%6 : tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %8 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%5, %4 : tensor<3x3x2xf32>, tensor<3x3x2xf32>) outs(%7 : tensor<2x3x3xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %9 = arith.mulf %in, %in_1 : f32
    %10 = arith.addf %out, %9 : f32
    linalg.yield %10 : f32
  } -> tensor<2x3x3xf32>
  return %8 : tensor<2x3x3xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_nofuse_broadcast_compute(%a0: tensor<3x3x2xf32>, %a1: tensor<3x3x2xf32>, %a2: tensor<3x3x2xf32>, %a3: tensor<3x3x2xf32>, %ct: tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<3x3x2xf32>, tensor<3x3x2xf32>, tensor<3x3x2xf32>, tensor<3x3x2xf32>) {
  %r:5 = autodiff.vjp @nofuse_broadcast_compute(%a0, %a1, %a2, %a3, %ct) {wrt = array<i64: 0, 1, 2, 3>} : (tensor<3x3x2xf32>, tensor<3x3x2xf32>, tensor<3x3x2xf32>, tensor<3x3x2xf32>, tensor<2x3x3xf32>) -> (tensor<2x3x3xf32>, tensor<3x3x2xf32>, tensor<3x3x2xf32>, tensor<3x3x2xf32>, tensor<3x3x2xf32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<2x3x3xf32>, tensor<3x3x2xf32>, tensor<3x3x2xf32>, tensor<3x3x2xf32>, tensor<3x3x2xf32>
}
