// Source: openxla/stablehlo stablehlo/conversions/linalg/tests/reduce.mlir (commit 3c9301c116f97fbaf696959a0ede32712aec587b), https://github.com/openxla/stablehlo/blob/3c9301c116f97fbaf696959a0ede32712aec587b/stablehlo/conversions/linalg/tests/reduce.mlir
// What: stablehlo.reduce (add) over dimensions 0 and 2 of a 5x4x3 tensor as emitted: the init scalar extracted from a 0-d tensor, a fill, and one generic whose input map permutes the iteration space ((d1, d0, d2): the parallel dimension is the operand's middle one) with two reduction dimensions.
// Adaptations: the function is the linalg that `stablehlo-opt --stablehlo-legalize-to-linalg --canonicalize` emits for the upstream stablehlo function, reconstructed by hand from its CHECK lines (SSA names, map aliases and op order as the CHECK lines give them; upstream stablehlo input and CHECK lines themselves not copied); @reduce_multi_dimensions only; element type i32 -> f32 (arith.addi -> arith.addf, the emitter's float form) so that it has a gradient; added the gradir entry @vjp_reduce_multi_dimensions (autodiff.vjp) below the marker.
// gradir-corpus: entry=reduce_multi_dimensions wrt=0,1 reference=stablehlo_reduce_multi_dimensions inputs=signed

#map = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0)>
func.func @reduce_multi_dimensions(%arg0: tensor<5x4x3xf32>, %arg1: tensor<f32>) -> tensor<4xf32> {
  %extracted = tensor.extract %arg1[] : tensor<f32>
  %0 = tensor.empty() : tensor<4xf32>
  %1 = linalg.fill ins(%extracted : f32) outs(%0 : tensor<4xf32>) -> tensor<4xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction", "reduction"]} ins(%arg0 : tensor<5x4x3xf32>) outs(%1 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %3 = arith.addf %out, %in : f32
    linalg.yield %3 : f32
  } -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_reduce_multi_dimensions(%a0: tensor<5x4x3xf32>, %a1: tensor<f32>, %c0: tensor<4xf32>) -> (tensor<4xf32>, tensor<5x4x3xf32>, tensor<f32>) {
  %r:3 = autodiff.vjp @reduce_multi_dimensions(%a0, %a1, %c0) {wrt = array<i64: 0, 1>} : (tensor<5x4x3xf32>, tensor<f32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<5x4x3xf32>, tensor<f32>)
  return %r#0, %r#1, %r#2 : tensor<4xf32>, tensor<5x4x3xf32>, tensor<f32>
}
