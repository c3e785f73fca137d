// Source: openxla/stablehlo stablehlo/conversions/linalg/tests/miscellaneous.mlir (commit 3c9301c116f97fbaf696959a0ede32712aec587b), https://github.com/openxla/stablehlo/blob/3c9301c116f97fbaf696959a0ede32712aec587b/stablehlo/conversions/linalg/tests/miscellaneous.mlir
// What: stablehlo.reverse along dimension 1 of a ?x3 tensor as emitted: one generic whose input map (d0, -d1 + 2) reads the columns backwards.
// Adaptations: the function is the linalg that `stablehlo-opt --stablehlo-legalize-to-linalg --canonicalize` emits for the upstream stablehlo function, reconstructed by hand from its CHECK lines (SSA names, map aliases and op order as the CHECK lines give them; upstream stablehlo input and CHECK lines themselves not copied); @reverse_dynamic only; the test's marker attribute {someattr} dropped; the result's tensor.empty sized by a tensor.dim (not in the CHECK lines); added the gradir entry @vjp_reverse_dynamic (autodiff.vjp) below the marker; run with a 2x3 input.
// gradir-corpus: entry=reverse_dynamic wrt=0 reference=stablehlo_reverse inputs=stablehlo_reverse

#map = affine_map<(d0, d1) -> (d0, -d1 + 2)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
func.func @reverse_dynamic(%arg0: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %c0 = arith.constant 0 : index
  %dim = tensor.dim %arg0, %c0 : tensor<?x3xf32>
  %0 = tensor.empty(%dim) : tensor<?x3xf32>
  %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<?x3xf32>) outs(%0 : tensor<?x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<?x3xf32>
  return %1 : tensor<?x3xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_reverse_dynamic(%a0: tensor<?x3xf32>, %c0: tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>) {
  %r:2 = autodiff.vjp @reverse_dynamic(%a0, %c0) {wrt = array<i64: 0>} : (tensor<?x3xf32>, tensor<?x3xf32>) -> (tensor<?x3xf32>, tensor<?x3xf32>)
  return %r#0, %r#1 : tensor<?x3xf32>, tensor<?x3xf32>
}
