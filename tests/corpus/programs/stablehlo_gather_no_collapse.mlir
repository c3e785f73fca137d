// Source: openxla/stablehlo stablehlo/conversions/linalg/tests/gather.mlir (commit 3c9301c116f97fbaf696959a0ede32712aec587b), https://github.com/openxla/stablehlo/blob/3c9301c116f97fbaf696959a0ede32712aec587b/stablehlo/conversions/linalg/tests/gather.mlir
// What: stablehlo.gather with no collapsed dimensions (slices 4x2 of a 6x3 operand at 5 start indices) as emitted: an outs-only generic whose body reads the start indices with tensor.extract at linalg.index positions, index_casts and clamps them (maxsi/minsi), adds the offset indices, and gathers with tensor.extract.
// Adaptations: the function is the linalg that `stablehlo-opt --stablehlo-legalize-to-linalg --canonicalize` emits for the upstream stablehlo function, reconstructed by hand from its CHECK lines (SSA names, map aliases and op order as the CHECK lines give them; upstream stablehlo input and CHECK lines themselves not copied); @gather_no_collapse only; operand and result element type i32 -> f32 so that it has a gradient (the start indices stay i32); added the gradir entry @vjp_gather_no_collapse (autodiff.vjp wrt the operand) below the marker; run with start indices from -1 to 4 so that both clamps act and windows overlap.
// gradir-corpus: entry=gather_no_collapse wrt=0 reference=stablehlo_gather_no_collapse inputs=stablehlo_gather_indices

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @gather_no_collapse(%arg0: tensor<6x3xf32>, %arg1: tensor<5x2xi32>) -> tensor<5x4x2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %0 = tensor.empty() : tensor<5x4x2xf32>
  %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%0 : tensor<5x4x2xf32>) {
  ^bb0(%out: f32):
    %2 = linalg.index 0 : index
    %3 = linalg.index 1 : index
    %4 = linalg.index 2 : index
    %extracted = tensor.extract %arg1[%2, %c0] : tensor<5x2xi32>
    %5 = arith.index_cast %extracted : i32 to index
    %extracted_0 = tensor.extract %arg1[%2, %c1] : tensor<5x2xi32>
    %6 = arith.index_cast %extracted_0 : i32 to index
    %7 = arith.maxsi %5, %c0 : index
    %8 = arith.minsi %7, %c2 : index
    %9 = arith.addi %8, %3 : index
    %10 = arith.maxsi %6, %c0 : index
    %11 = arith.minsi %10, %c1 : index
    %12 = arith.addi %11, %4 : index
    %extracted_1 = tensor.extract %arg0[%9, %12] : tensor<6x3xf32>
    linalg.yield %extracted_1 : f32
  } -> tensor<5x4x2xf32>
  return %1 : tensor<5x4x2xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_gather_no_collapse(%a0: tensor<6x3xf32>, %a1: tensor<5x2xi32>, %c0: tensor<5x4x2xf32>) -> (tensor<5x4x2xf32>, tensor<6x3xf32>) {
  %r:2 = autodiff.vjp @gather_no_collapse(%a0, %a1, %c0) {wrt = array<i64: 0>} : (tensor<6x3xf32>, tensor<5x2xi32>, tensor<5x4x2xf32>) -> (tensor<5x4x2xf32>, tensor<6x3xf32>)
  return %r#0, %r#1 : tensor<5x4x2xf32>, tensor<6x3xf32>
}
