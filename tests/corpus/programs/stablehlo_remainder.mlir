// Source: openxla/stablehlo stablehlo/conversions/linalg/tests/pointwise.mlir (commit 3c9301c116f97fbaf696959a0ede32712aec587b), https://github.com/openxla/stablehlo/blob/3c9301c116f97fbaf696959a0ede32712aec587b/stablehlo/conversions/linalg/tests/pointwise.mlir
// What: stablehlo.remainder on floats as emitted: an elementwise generic with arith.remf (the C fmod: x - trunc(x / y) * y), with quotients of both signs and several magnitudes.
// Adaptations: the function is the linalg that `stablehlo-opt --stablehlo-legalize-to-linalg --canonicalize` emits for the upstream stablehlo function, reconstructed by hand from its CHECK lines (SSA names, map aliases and op order as the CHECK lines give them; upstream stablehlo input and CHECK lines themselves not copied); @float_remainder only (its CHECK lines give the generic and remf; the operand order of remf is that of the stablehlo op); added the gradir entry @vjp_float_remainder (autodiff.vjp) below the marker.
// gradir-corpus: entry=float_remainder wrt=0,1 reference=stablehlo_remainder inputs=stablehlo_remainder

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @float_remainder(%arg0: tensor<2x2xf32>, %arg1: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = tensor.empty() : tensor<2x2xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<2x2xf32>, tensor<2x2xf32>) outs(%0 : tensor<2x2xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %2 = arith.remf %in, %in_0 : f32
    linalg.yield %2 : f32
  } -> tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_float_remainder(%a0: tensor<2x2xf32>, %a1: tensor<2x2xf32>, %c0: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %r:3 = autodiff.vjp @float_remainder(%a0, %a1, %c0) {wrt = array<i64: 0, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}
