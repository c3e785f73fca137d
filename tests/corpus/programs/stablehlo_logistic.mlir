// Source: openxla/stablehlo stablehlo/conversions/linalg/tests/pointwise.mlir (commit 3c9301c116f97fbaf696959a0ede32712aec587b), https://github.com/openxla/stablehlo/blob/3c9301c116f97fbaf696959a0ede32712aec587b/stablehlo/conversions/linalg/tests/pointwise.mlir
// What: stablehlo.logistic as emitted: an elementwise generic computing 1 / (exp(-x) + 1) with arith.negf, math.exp, arith.addf and arith.divf.
// Adaptations: the function is the linalg that `stablehlo-opt --stablehlo-legalize-to-linalg --canonicalize` emits for the upstream stablehlo function, reconstructed by hand from its CHECK lines (SSA names, map aliases and op order as the CHECK lines give them; upstream stablehlo input and CHECK lines themselves not copied); @float_logistic only; added the gradir entry @vjp_float_logistic (autodiff.vjp) below the marker.
// gradir-corpus: entry=float_logistic wrt=0 reference=stablehlo_logistic inputs=signed

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @float_logistic(%arg0: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %cst = arith.constant 1.000000e+00 : f32
  %0 = tensor.empty() : tensor<2x2xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<2x2xf32>) outs(%0 : tensor<2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2 = arith.negf %in : f32
    %3 = math.exp %2 : f32
    %4 = arith.addf %3, %cst : f32
    %5 = arith.divf %cst, %4 : f32
    linalg.yield %5 : f32
  } -> tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_float_logistic(%a0: tensor<2x2xf32>, %c0: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %r:2 = autodiff.vjp @float_logistic(%a0, %c0) {wrt = array<i64: 0>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
  return %r#0, %r#1 : tensor<2x2xf32>, tensor<2x2xf32>
}
