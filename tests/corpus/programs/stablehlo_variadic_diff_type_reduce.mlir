// Source: openxla/stablehlo stablehlo/conversions/linalg/tests/reduce.mlir (commit 3c9301c116f97fbaf696959a0ede32712aec587b), https://github.com/openxla/stablehlo/blob/3c9301c116f97fbaf696959a0ede32712aec587b/stablehlo/conversions/linalg/tests/reduce.mlir
// What: a variadic stablehlo.reduce (an argmax: the f32 values and an i32 payload, compare GE and two selects) as emitted: two fills and one generic with two inputs and two outputs of different element types whose body keeps the accumulator where it is >= the element.
// Adaptations: the function is the linalg that `stablehlo-opt --stablehlo-legalize-to-linalg --canonicalize` emits for the upstream stablehlo function, reconstructed by hand from its CHECK lines (SSA names, map aliases and op order as the CHECK lines give them; upstream stablehlo input and CHECK lines themselves not copied); @variadic_diff_type_reduce only; sizes reduced (128x10 -> 4x5, results 128 -> 4); added the gradir entry @vjp_variadic_diff_type_reduce (autodiff.vjp wrt the f32 operand) below the marker.
// gradir-corpus: entry=variadic_diff_type_reduce wrt=0 reference=stablehlo_variadic_diff_type_reduce inputs=stablehlo_argmax_payload

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
func.func @variadic_diff_type_reduce(%arg0: tensor<4x5xf32>, %arg1: tensor<4x5xi32>) -> (tensor<4xf32>, tensor<4xi32>) {
  %cst = arith.constant 1.000000e+00 : f32
  %c1_i32 = arith.constant 1 : i32
  %0 = tensor.empty() : tensor<4xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4xf32>) -> tensor<4xf32>
  %2 = tensor.empty() : tensor<4xi32>
  %3 = linalg.fill ins(%c1_i32 : i32) outs(%2 : tensor<4xi32>) -> tensor<4xi32>
  %4:2 = linalg.generic {indexing_maps = [#map, #map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0, %arg1 : tensor<4x5xf32>, tensor<4x5xi32>) outs(%1, %3 : tensor<4xf32>, tensor<4xi32>) {
  ^bb0(%in: f32, %in_0: i32, %out: f32, %out_1: i32):
    %5 = arith.cmpf oge, %out, %in : f32
    %6 = arith.select %5, %out, %in : f32
    %7 = arith.select %5, %out_1, %in_0 : i32
    linalg.yield %6, %7 : f32, i32
  } -> (tensor<4xf32>, tensor<4xi32>)
  return %4#0, %4#1 : tensor<4xf32>, tensor<4xi32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_variadic_diff_type_reduce(%a0: tensor<4x5xf32>, %a1: tensor<4x5xi32>, %c0: tensor<4xf32>, %c1: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4x5xf32>) {
  %r:3 = autodiff.vjp @variadic_diff_type_reduce(%a0, %a1, %c0, %c1) {wrt = array<i64: 0>} : (tensor<4x5xf32>, tensor<4x5xi32>, tensor<4xf32>, tensor<4xi32>) -> (tensor<4xf32>, tensor<4xi32>, tensor<4x5xf32>)
  return %r#0, %r#1, %r#2 : tensor<4xf32>, tensor<4xi32>, tensor<4x5xf32>
}
