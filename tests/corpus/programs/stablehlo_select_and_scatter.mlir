// Source: openxla/stablehlo stablehlo/conversions/linalg/tests/miscellaneous.mlir (commit 3c9301c116f97fbaf696959a0ede32712aec587b), https://github.com/openxla/stablehlo/blob/3c9301c116f97fbaf696959a0ede32712aec587b/stablehlo/conversions/linalg/tests/miscellaneous.mlir
// What: stablehlo.select_and_scatter (max-pool 2x2/2 backward: select GE, scatter add) as emitted: a windowed generic with two outputs (running max and the i32 window position, linalg.index arithmetic, cmpf/cmpi/ori/select), then a 6-d generic that adds each source value where its stored position equals the window position (index_cast + cmpi + select), collapsed back to NHWC with tensor.collapse_shape.
// Adaptations: the function is the linalg that `stablehlo-opt --stablehlo-legalize-to-linalg --canonicalize` emits for the upstream stablehlo function, reconstructed by hand from its CHECK lines (SSA names, map aliases and op order as the CHECK lines give them; upstream stablehlo input and CHECK lines themselves not copied); @select_and_scatter only; added the gradir entry @vjp_select_and_scatter (autodiff.vjp wrt the operand, the source and the init) below the marker.
// gradir-corpus: entry=select_and_scatter wrt=0,1,2 reference=stablehlo_select_and_scatter inputs=signed

#map = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d4, d2 * 2 + d5, d3)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d5)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
func.func @select_and_scatter(%arg0: tensor<2x8x8x1xf32>, %arg1: tensor<2x4x4x1xf32>, %arg2: tensor<f32>) -> tensor<2x8x8x1xf32> {
  %c2 = arith.constant 2 : index
  %c-1_i32 = arith.constant -1 : i32
  %0 = tensor.empty() : tensor<2x4x4x1xf32>
  %1 = tensor.empty() : tensor<2x4x4x1xi32>
  %2 = linalg.fill ins(%c-1_i32 : i32) outs(%1 : tensor<2x4x4x1xi32>) -> tensor<2x4x4x1xi32>
  %3 = tensor.empty() : tensor<2x2xf32>
  %4:2 = linalg.generic {indexing_maps = [#map, #map1, #map2, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%arg0, %3 : tensor<2x8x8x1xf32>, tensor<2x2xf32>) outs(%0, %2 : tensor<2x4x4x1xf32>, tensor<2x4x4x1xi32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32, %out_1: i32):
    %8 = arith.cmpf oge, %in, %out : f32
    %9 = arith.cmpi eq, %out_1, %c-1_i32 : i32
    %10 = arith.ori %8, %9 : i1
    %11 = linalg.index 4 : index
    %12 = linalg.index 5 : index
    %13 = arith.muli %11, %c2 : index
    %14 = arith.addi %13, %12 : index
    %15 = arith.index_cast %14 : index to i32
    %16 = arith.select %10, %15, %out_1 : i32
    %17 = arith.select %10, %in, %out : f32
    linalg.yield %17, %16 : f32, i32
  } -> (tensor<2x4x4x1xf32>, tensor<2x4x4x1xi32>)
  %5 = tensor.empty() : tensor<2x4x2x4x2x1xf32>
  %extracted = tensor.extract %arg2[] : tensor<f32>
  %6 = linalg.fill ins(%extracted : f32) outs(%5 : tensor<2x4x2x4x2x1xf32>) -> tensor<2x4x2x4x2x1xf32>
  %7 = linalg.generic {indexing_maps = [#map3, #map3, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%4#1, %arg1 : tensor<2x4x4x1xi32>, tensor<2x4x4x1xf32>) outs(%6 : tensor<2x4x2x4x2x1xf32>) {
  ^bb0(%in: i32, %in_0: f32, %out: f32):
    %8 = arith.addf %in_0, %out : f32
    %9 = linalg.index 2 : index
    %10 = linalg.index 4 : index
    %11 = arith.muli %9, %c2 : index
    %12 = arith.addi %11, %10 : index
    %13 = arith.index_cast %12 : index to i32
    %14 = arith.cmpi eq, %13, %in : i32
    %15 = arith.select %14, %8, %out : f32
    linalg.yield %15 : f32
  } -> tensor<2x4x2x4x2x1xf32>
  %collapsed = tensor.collapse_shape %7 [[0], [1, 2], [3, 4], [5]] : tensor<2x4x2x4x2x1xf32> into tensor<2x8x8x1xf32>
  return %collapsed : tensor<2x8x8x1xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_select_and_scatter(%a0: tensor<2x8x8x1xf32>, %a1: tensor<2x4x4x1xf32>, %a2: tensor<f32>, %c0: tensor<2x8x8x1xf32>) -> (tensor<2x8x8x1xf32>, tensor<2x8x8x1xf32>, tensor<2x4x4x1xf32>, tensor<f32>) {
  %r:4 = autodiff.vjp @select_and_scatter(%a0, %a1, %a2, %c0) {wrt = array<i64: 0, 1, 2>} : (tensor<2x8x8x1xf32>, tensor<2x4x4x1xf32>, tensor<f32>, tensor<2x8x8x1xf32>) -> (tensor<2x8x8x1xf32>, tensor<2x8x8x1xf32>, tensor<2x4x4x1xf32>, tensor<f32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<2x8x8x1xf32>, tensor<2x8x8x1xf32>, tensor<2x4x4x1xf32>, tensor<f32>
}
