// Source: openxla/stablehlo stablehlo/conversions/linalg/tests/miscellaneous.mlir (commit 3c9301c116f97fbaf696959a0ede32712aec587b), https://github.com/openxla/stablehlo/blob/3c9301c116f97fbaf696959a0ede32712aec587b/stablehlo/conversions/linalg/tests/miscellaneous.mlir
// What: stablehlo.torch_index_select with a batch dimension (dim 2, batch_dims 1) as emitted: a generic over the i32 index tensor (map (d0, d2)) and a shape-only empty input (d0, d1, d3) whose body index_casts the index and gathers with tensor.extract at [linalg.index 0, linalg.index 1, index, linalg.index 3].
// Adaptations: the function is the linalg that `stablehlo-opt --stablehlo-legalize-to-linalg --canonicalize` emits for the upstream stablehlo function, reconstructed by hand from its CHECK lines (SSA names, map aliases and op order as the CHECK lines give them; upstream stablehlo input and CHECK lines themselves not copied); @torch_index_select_batch only; the CHECK lines name the 4x7x2 empty input but not the generic's init, written here as a second tensor.empty of the 4x7x1x2 result type; added the gradir entry @vjp_torch_index_select_batch (autodiff.vjp wrt the input) below the marker; run with indices in [0, 8).
// gradir-corpus: entry=torch_index_select_batch wrt=0 reference=stablehlo_torch_index_select_batch inputs=stablehlo_index_select

#map = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @torch_index_select_batch(%arg0: tensor<4x7x8x2xf32>, %arg1: tensor<4x1xi32>) -> tensor<4x7x1x2xf32> {
  %0 = tensor.empty() : tensor<4x7x2xf32>
  %1 = tensor.empty() : tensor<4x7x1x2xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1, %0 : tensor<4x1xi32>, tensor<4x7x2xf32>) outs(%1 : tensor<4x7x1x2xf32>) {
  ^bb0(%in: i32, %in_0: f32, %out: f32):
    %3 = arith.index_cast %in : i32 to index
    %4 = linalg.index 0 : index
    %5 = linalg.index 1 : index
    %6 = linalg.index 3 : index
    %extracted = tensor.extract %arg0[%4, %5, %3, %6] : tensor<4x7x8x2xf32>
    linalg.yield %extracted : f32
  } -> tensor<4x7x1x2xf32>
  return %2 : tensor<4x7x1x2xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_torch_index_select_batch(%a0: tensor<4x7x8x2xf32>, %a1: tensor<4x1xi32>, %c0: tensor<4x7x1x2xf32>) -> (tensor<4x7x1x2xf32>, tensor<4x7x8x2xf32>) {
  %r:2 = autodiff.vjp @torch_index_select_batch(%a0, %a1, %c0) {wrt = array<i64: 0>} : (tensor<4x7x8x2xf32>, tensor<4x1xi32>, tensor<4x7x1x2xf32>) -> (tensor<4x7x1x2xf32>, tensor<4x7x8x2xf32>)
  return %r#0, %r#1 : tensor<4x7x1x2xf32>, tensor<4x7x8x2xf32>
}
