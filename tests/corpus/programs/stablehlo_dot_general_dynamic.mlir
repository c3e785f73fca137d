// Source: openxla/stablehlo stablehlo/conversions/linalg/tests/dot-product.mlir (commit 3c9301c116f97fbaf696959a0ede32712aec587b), https://github.com/openxla/stablehlo/blob/3c9301c116f97fbaf696959a0ede32712aec587b/stablehlo/conversions/linalg/tests/dot-product.mlir
// What: stablehlo.dot_general with batch and contracting dimensions in unusual places (lhs batch 1 / contracting 2, rhs batch 2 / contracting 1) on fully dynamic 3-d tensors as emitted: tensor.dim sizes, a zero fill, and a generic with maps (d1, d0, d3), (d2, d3, d0) -> (d0, d1, d2).
// Adaptations: the function is the linalg that `stablehlo-opt --stablehlo-legalize-to-linalg --canonicalize` emits for the upstream stablehlo function, reconstructed by hand from its CHECK lines (SSA names, map aliases and op order as the CHECK lines give them; upstream stablehlo input and CHECK lines themselves not copied); @dot_general only; the test's marker attribute {someattr} on the generic dropped; added the gradir entry @vjp_dot_general (autodiff.vjp) below the marker; run with a 3x2x4 lhs and a 2x4x2 rhs (batch 2, 3x4 times 4x2).
// gradir-corpus: entry=dot_general wrt=0,1 reference=stablehlo_dot_general inputs=stablehlo_dot_general

#map = affine_map<(d0, d1, d2, d3) -> (d1, d0, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d2, d3, d0)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @dot_general(%arg0: tensor<?x?x?xf32>, %arg1: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %dim = tensor.dim %arg0, %c1 : tensor<?x?x?xf32>
  %dim_0 = tensor.dim %arg0, %c0 : tensor<?x?x?xf32>
  %dim_1 = tensor.dim %arg1, %c0 : tensor<?x?x?xf32>
  %0 = tensor.empty(%dim, %dim_0, %dim_1) : tensor<?x?x?xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %2 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<?x?x?xf32>, tensor<?x?x?xf32>) outs(%1 : tensor<?x?x?xf32>) {
  ^bb0(%in: f32, %in_2: f32, %out: f32):
    %3 = arith.mulf %in, %in_2 : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<?x?x?xf32>
  return %2 : tensor<?x?x?xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_dot_general(%a0: tensor<?x?x?xf32>, %a1: tensor<?x?x?xf32>, %c0: tensor<?x?x?xf32>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
  %r:3 = autodiff.vjp @dot_general(%a0, %a1, %c0) {wrt = array<i64: 0, 1>} : (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>)
  return %r#0, %r#1, %r#2 : tensor<?x?x?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>
}
