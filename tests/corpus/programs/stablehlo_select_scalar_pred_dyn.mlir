// Source: openxla/stablehlo stablehlo/conversions/linalg/tests/pointwise.mlir (commit 3c9301c116f97fbaf696959a0ede32712aec587b), https://github.com/openxla/stablehlo/blob/3c9301c116f97fbaf696959a0ede32712aec587b/stablehlo/conversions/linalg/tests/pointwise.mlir
// What: stablehlo.select with a 0-d i1 predicate on dynamic 2x? tensors as emitted (scalar inputs captured): the predicate extracted once outside an elementwise generic whose body is arith.select on the captured i1.
// Adaptations: the function is the linalg that `stablehlo-opt --stablehlo-legalize-to-linalg --canonicalize` emits for the upstream stablehlo function, reconstructed by hand from its CHECK lines (SSA names, map aliases and op order as the CHECK lines give them; upstream stablehlo input and CHECK lines themselves not copied); @select_scalar_pred_dyn only; the test's marker attribute {someattr} dropped; added the gradir entry @vjp_select_scalar_pred_dyn (autodiff.vjp wrt both branches) below the marker; run with 2x3 branches and the predicate false (all of the gradient goes to the second branch).
// gradir-corpus: entry=select_scalar_pred_dyn wrt=1,2 reference=stablehlo_select_scalar_pred inputs=stablehlo_select_scalar_pred

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @select_scalar_pred_dyn(%arg0: tensor<i1>, %arg1: tensor<2x?xf32>, %arg2: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %c1 = arith.constant 1 : index
  %dim = tensor.dim %arg1, %c1 : tensor<2x?xf32>
  %0 = tensor.empty(%dim) : tensor<2x?xf32>
  %extracted = tensor.extract %arg0[] : tensor<i1>
  %1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1, %arg2 : tensor<2x?xf32>, tensor<2x?xf32>) outs(%0 : tensor<2x?xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %2 = arith.select %extracted, %in, %in_0 : f32
    linalg.yield %2 : f32
  } -> tensor<2x?xf32>
  return %1 : tensor<2x?xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_select_scalar_pred_dyn(%a0: tensor<i1>, %a1: tensor<2x?xf32>, %a2: tensor<2x?xf32>, %c0: tensor<2x?xf32>) -> (tensor<2x?xf32>, tensor<2x?xf32>, tensor<2x?xf32>) {
  %r:3 = autodiff.vjp @select_scalar_pred_dyn(%a0, %a1, %a2, %c0) {wrt = array<i64: 1, 2>} : (tensor<i1>, tensor<2x?xf32>, tensor<2x?xf32>, tensor<2x?xf32>) -> (tensor<2x?xf32>, tensor<2x?xf32>, tensor<2x?xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x?xf32>, tensor<2x?xf32>, tensor<2x?xf32>
}
