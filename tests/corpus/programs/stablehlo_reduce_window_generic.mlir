// Source: openxla/stablehlo stablehlo/conversions/linalg/tests/reduce.mlir (commit 3c9301c116f97fbaf696959a0ede32712aec587b), https://github.com/openxla/stablehlo/blob/3c9301c116f97fbaf696959a0ede32712aec587b/stablehlo/conversions/linalg/tests/reduce.mlir
// What: stablehlo.reduce_window (add; window 1x2 with window dilation 2, strides 2x1, padding [[0,3],[1,2]]) as emitted for the general case: the init broadcast by a generic from a 0-d tensor, tensor.pad with the init value, and a windowed generic with maps (d0 * 2, d1 + d2 * 2) over the padded input and (d2) over an empty window tensor.
// Adaptations: the function is the linalg that `stablehlo-opt --stablehlo-legalize-to-linalg --canonicalize` emits for the upstream stablehlo function, reconstructed by hand from its CHECK lines (SSA names, map aliases and op order as the CHECK lines give them; upstream stablehlo input and CHECK lines themselves not copied); @reduce_window_generic only; added the gradir entry @vjp_reduce_window_generic (autodiff.vjp) below the marker.
// gradir-corpus: entry=reduce_window_generic wrt=0,1 reference=stablehlo_reduce_window_generic inputs=signed

#map = affine_map<(d0, d1) -> ()>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0 * 2, d1 + d2 * 2)>
#map3 = affine_map<(d0, d1, d2) -> (d2)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @reduce_window_generic(%arg0: tensor<4x6xf32>, %arg1: tensor<f32>) -> tensor<4x7xf32> {
  %0 = tensor.empty() : tensor<4x7xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<f32>) outs(%0 : tensor<4x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x7xf32>
  %extracted = tensor.extract %arg1[] : tensor<f32>
  %padded = tensor.pad %arg0 low[0, 1] high[3, 2] {
  ^bb0(%arg2: index, %arg3: index):
    tensor.yield %extracted : f32
  } : tensor<4x6xf32> to tensor<7x9xf32>
  %2 = tensor.empty() : tensor<2xf32>
  %3 = linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "reduction"]} ins(%padded, %2 : tensor<7x9xf32>, tensor<2xf32>) outs(%1 : tensor<4x7xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %4 = arith.addf %out, %in : f32
    linalg.yield %4 : f32
  } -> tensor<4x7xf32>
  return %3 : tensor<4x7xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_reduce_window_generic(%a0: tensor<4x6xf32>, %a1: tensor<f32>, %c0: tensor<4x7xf32>) -> (tensor<4x7xf32>, tensor<4x6xf32>, tensor<f32>) {
  %r:3 = autodiff.vjp @reduce_window_generic(%a0, %a1, %c0) {wrt = array<i64: 0, 1>} : (tensor<4x6xf32>, tensor<f32>, tensor<4x7xf32>) -> (tensor<4x7xf32>, tensor<4x6xf32>, tensor<f32>)
  return %r#0, %r#1, %r#2 : tensor<4x7xf32>, tensor<4x6xf32>, tensor<f32>
}
