// Source: openxla/stablehlo stablehlo/conversions/linalg/tests/gather.mlir (commit 3c9301c116f97fbaf696959a0ede32712aec587b), https://github.com/openxla/stablehlo/blob/3c9301c116f97fbaf696959a0ede32712aec587b/stablehlo/conversions/linalg/tests/gather.mlir
// What: stablehlo.gather with start_index_map [3, 1, 2, 0] (the start index vector permuted onto the operand's dimensions, two of them collapsed) as emitted: an outs-only generic that reads four start indices with tensor.extract, clamps each to its own bound (maxsi/minsi with 3, 1, 1, 5), adds offsets to two of them and gathers from a 4-d operand with tensor.extract.
// Adaptations: the function is the linalg that `stablehlo-opt --stablehlo-legalize-to-linalg --canonicalize` emits for the upstream stablehlo function, reconstructed by hand from its CHECK lines (SSA names, map aliases and op order as the CHECK lines give them; upstream stablehlo input and CHECK lines themselves not copied); @gather_reorder_start_index only; operand and result element type i32 -> f32 so that it has a gradient (the start indices stay i32); added the gradir entry @vjp_gather_reorder_start_index (autodiff.vjp wrt the operand) below the marker; run with start indices from -1 to 6 so that the clamps act.
// gradir-corpus: entry=gather_reorder_start_index wrt=0 reference=stablehlo_gather_reorder_start_index inputs=stablehlo_gather_indices

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @gather_reorder_start_index(%arg0: tensor<6x3x2x7xf32>, %arg1: tensor<5x4xi32>) -> tensor<5x2x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %0 = tensor.empty() : tensor<5x2x4xf32>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%0 : tensor<5x2x4xf32>) {
  ^bb0(%out: f32):
    %2 = linalg.index 0 : index
    %3 = linalg.index 1 : index
    %4 = linalg.index 2 : index
    %extracted = tensor.extract %arg1[%2, %c0] : tensor<5x4xi32>
    %5 = arith.index_cast %extracted : i32 to index
    %extracted_0 = tensor.extract %arg1[%2, %c1] : tensor<5x4xi32>
    %6 = arith.index_cast %extracted_0 : i32 to index
    %extracted_1 = tensor.extract %arg1[%2, %c2] : tensor<5x4xi32>
    %7 = arith.index_cast %extracted_1 : i32 to index
    %extracted_2 = tensor.extract %arg1[%2, %c3] : tensor<5x4xi32>
    %8 = arith.index_cast %extracted_2 : i32 to index
    %9 = arith.maxsi %5, %c0 : index
    %10 = arith.minsi %9, %c3 : index
    %11 = arith.maxsi %6, %c0 : index
    %12 = arith.minsi %11, %c1 : index
    %13 = arith.maxsi %7, %c0 : index
    %14 = arith.minsi %13, %c1 : index
    %15 = arith.maxsi %8, %c0 : index
    %16 = arith.minsi %15, %c5 : index
    %17 = arith.addi %12, %3 : index
    %18 = arith.addi %10, %4 : index
    %extracted_3 = tensor.extract %arg0[%16, %17, %14, %18] : tensor<6x3x2x7xf32>
    linalg.yield %extracted_3 : f32
  } -> tensor<5x2x4xf32>
  return %1 : tensor<5x2x4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_gather_reorder_start_index(%a0: tensor<6x3x2x7xf32>, %a1: tensor<5x4xi32>, %c0: tensor<5x2x4xf32>) -> (tensor<5x2x4xf32>, tensor<6x3x2x7xf32>) {
  %r:2 = autodiff.vjp @gather_reorder_start_index(%a0, %a1, %c0) {wrt = array<i64: 0>} : (tensor<6x3x2x7xf32>, tensor<5x4xi32>, tensor<5x2x4xf32>) -> (tensor<5x2x4xf32>, tensor<6x3x2x7xf32>)
  return %r#0, %r#1 : tensor<5x2x4xf32>, tensor<6x3x2x7xf32>
}
