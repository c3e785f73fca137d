// Source: openxla/stablehlo stablehlo/conversions/linalg/tests/reduce.mlir (commit 3c9301c116f97fbaf696959a0ede32712aec587b), https://github.com/openxla/stablehlo/blob/3c9301c116f97fbaf696959a0ede32712aec587b/stablehlo/conversions/linalg/tests/reduce.mlir
// What: stablehlo.reduce_window (add) with base dilation 2x1 and padding [[0,3],[1,2]] as emitted: the dilated and padded input is a fill with the init value and a strided tensor.insert_slice ([0, 1] [3, 6] [2, 1]) of the operand, then the windowed generic (d0 * 2, d1 + d2 * 2).
// Adaptations: the function is the linalg that `stablehlo-opt --stablehlo-legalize-to-linalg --canonicalize` emits for the upstream stablehlo function, reconstructed by hand from its CHECK lines (SSA names, map aliases and op order as the CHECK lines give them; upstream stablehlo input and CHECK lines themselves not copied); @reduce_window_generic_padding_base_dilation only; that test's CHECK lines give only the init extract, the fill and the strided insert_slice: the init generic and the windowed reduction generic are taken from the CHECK lines of @reduce_window_generic in the same file (same emitter, same window attributes and result shape); added the gradir entry @vjp_reduce_window_generic_padding_base_dilation (autodiff.vjp) below the marker.
// gradir-corpus: entry=reduce_window_generic_padding_base_dilation wrt=0,1 reference=stablehlo_reduce_window_padding_base_dilation inputs=signed

#map = affine_map<(d0, d1) -> ()>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0 * 2, d1 + d2 * 2)>
#map3 = affine_map<(d0, d1, d2) -> (d2)>
#map4 = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @reduce_window_generic_padding_base_dilation(%arg0: tensor<3x6xf32>, %arg1: tensor<f32>) -> tensor<4x7xf32> {
  %0 = tensor.empty() : tensor<4x7xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg1 : tensor<f32>) outs(%0 : tensor<4x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x7xf32>
  %extracted = tensor.extract %arg1[] : tensor<f32>
  %2 = tensor.empty() : tensor<8x9xf32>
  %3 = linalg.fill ins(%extracted : f32) outs(%2 : tensor<8x9xf32>) -> tensor<8x9xf32>
  %inserted_slice = tensor.insert_slice %arg0 into %3[0, 1] [3, 6] [2, 1] : tensor<3x6xf32> into tensor<8x9xf32>
  %4 = tensor.empty() : tensor<2xf32>
  %5 = linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel", "reduction"]} ins(%inserted_slice, %4 : tensor<8x9xf32>, tensor<2xf32>) outs(%1 : tensor<4x7xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %6 = arith.addf %out, %in : f32
    linalg.yield %6 : f32
  } -> tensor<4x7xf32>
  return %5 : tensor<4x7xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_reduce_window_generic_padding_base_dilation(%a0: tensor<3x6xf32>, %a1: tensor<f32>, %c0: tensor<4x7xf32>) -> (tensor<4x7xf32>, tensor<3x6xf32>, tensor<f32>) {
  %r:3 = autodiff.vjp @reduce_window_generic_padding_base_dilation(%a0, %a1, %c0) {wrt = array<i64: 0, 1>} : (tensor<3x6xf32>, tensor<f32>, tensor<4x7xf32>) -> (tensor<4x7xf32>, tensor<3x6xf32>, tensor<f32>)
  return %r#0, %r#1, %r#2 : tensor<4x7xf32>, tensor<3x6xf32>, tensor<f32>
}
