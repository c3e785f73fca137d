// Source: openxla/stablehlo stablehlo/conversions/linalg/tests/miscellaneous.mlir (commit 3c9301c116f97fbaf696959a0ede32712aec587b), https://github.com/openxla/stablehlo/blob/3c9301c116f97fbaf696959a0ede32712aec587b/stablehlo/conversions/linalg/tests/miscellaneous.mlir
// What: stablehlo.broadcast_in_dim (dims [4, 0, 2]) of a tensor with a size-1 dimension as emitted: one generic whose input map (d4, d0, 0) transposes, broadcasts and reads the size-1 dimension through a constant 0 result expression.
// Adaptations: the function is the linalg that `stablehlo-opt --stablehlo-legalize-to-linalg --canonicalize` emits for the upstream stablehlo function, reconstructed by hand from its CHECK lines (SSA names, map aliases and op order as the CHECK lines give them; upstream stablehlo input and CHECK lines themselves not copied); @broadcast_in_dim only; sizes reduced (operand 5x7x1 -> 3x4x1, result 7x10x6x4x5 -> 4x2x3x2x3); added the gradir entry @vjp_broadcast_in_dim (autodiff.vjp) below the marker.
// gradir-corpus: entry=broadcast_in_dim wrt=0 reference=stablehlo_broadcast_in_dim inputs=signed

#map = affine_map<(d0, d1, d2, d3, d4) -> (d4, d0, 0)>
#map1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @broadcast_in_dim(%arg0: tensor<3x4x1xf32>) -> tensor<4x2x3x2x3xf32> {
  %0 = tensor.empty() : tensor<4x2x3x2x3xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<3x4x1xf32>) outs(%0 : tensor<4x2x3x2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x2x3x2x3xf32>
  return %1 : tensor<4x2x3x2x3xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_broadcast_in_dim(%a0: tensor<3x4x1xf32>, %c0: tensor<4x2x3x2x3xf32>) -> (tensor<4x2x3x2x3xf32>, tensor<3x4x1xf32>) {
  %r:2 = autodiff.vjp @broadcast_in_dim(%a0, %c0) {wrt = array<i64: 0>} : (tensor<3x4x1xf32>, tensor<4x2x3x2x3xf32>) -> (tensor<4x2x3x2x3xf32>, tensor<3x4x1xf32>)
  return %r#0, %r#1 : tensor<4x2x3x2x3xf32>, tensor<3x4x1xf32>
}
