// Source: openxla/stablehlo stablehlo/conversions/linalg/tests/miscellaneous.mlir (commit 3c9301c116f97fbaf696959a0ede32712aec587b), https://github.com/openxla/stablehlo/blob/3c9301c116f97fbaf696959a0ede32712aec587b/stablehlo/conversions/linalg/tests/miscellaneous.mlir
// What: stablehlo.dynamic_slice of a 3x4 tensor at start indices read from 0-d i64 tensors as emitted: tensor.extract, index_cast, clamping with maxsi/minsi, and a tensor.extract_slice with dynamic offsets.
// Adaptations: the function is the linalg that `stablehlo-opt --stablehlo-legalize-to-linalg --canonicalize` emits for the upstream stablehlo function, reconstructed by hand from its CHECK lines (SSA names, map aliases and op order as the CHECK lines give them; upstream stablehlo input and CHECK lines themselves not copied); @dynamic_slice only; added the gradir entry @vjp_dynamic_slice (autodiff.vjp wrt the sliced tensor) below the marker; run with start indices (5, 1), clamped to (2, 0).
// gradir-corpus: entry=dynamic_slice wrt=0 reference=stablehlo_dynamic_slice inputs=stablehlo_dynamic_slice

func.func @dynamic_slice(%arg0: tensor<3x4xf32>, %arg1: tensor<i64>, %arg2: tensor<i64>) -> tensor<1x4xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %extracted = tensor.extract %arg1[] : tensor<i64>
  %0 = arith.index_cast %extracted : i64 to index
  %1 = arith.maxsi %0, %c0 : index
  %2 = arith.minsi %1, %c2 : index
  %extracted_0 = tensor.extract %arg2[] : tensor<i64>
  %3 = arith.index_cast %extracted_0 : i64 to index
  %4 = arith.maxsi %3, %c0 : index
  %5 = arith.minsi %4, %c0 : index
  %extracted_slice = tensor.extract_slice %arg0[%2, %5] [1, 4] [1, 1] : tensor<3x4xf32> to tensor<1x4xf32>
  return %extracted_slice : tensor<1x4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_dynamic_slice(%a0: tensor<3x4xf32>, %a1: tensor<i64>, %a2: tensor<i64>, %c0: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<3x4xf32>) {
  %r:2 = autodiff.vjp @dynamic_slice(%a0, %a1, %a2, %c0) {wrt = array<i64: 0>} : (tensor<3x4xf32>, tensor<i64>, tensor<i64>, tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<3x4xf32>)
  return %r#0, %r#1 : tensor<1x4xf32>, tensor<3x4xf32>
}
