// Source: openxla/stablehlo stablehlo/conversions/linalg/tests/miscellaneous.mlir (commit 3c9301c116f97fbaf696959a0ede32712aec587b), https://github.com/openxla/stablehlo/blob/3c9301c116f97fbaf696959a0ede32712aec587b/stablehlo/conversions/linalg/tests/miscellaneous.mlir
// What: stablehlo.dynamic_update_slice of a 2x2 update into a 3x3 f32 tensor at a start index read (twice) from a 0-d i32 tensor as emitted: tensor.extract, index_cast, maxsi/minsi clamping, and a tensor.insert_slice with dynamic offsets.
// Adaptations: the function is the linalg that `stablehlo-opt --stablehlo-legalize-to-linalg --canonicalize` emits for the upstream stablehlo function, reconstructed by hand from its CHECK lines (SSA names, map aliases and op order as the CHECK lines give them; upstream stablehlo input and CHECK lines themselves not copied); @dynamic_update_slice_float only; added the gradir entry @vjp_dynamic_update_slice_float (autodiff.vjp wrt the target and the update) below the marker; run with start index 1.
// gradir-corpus: entry=dynamic_update_slice_float wrt=0,1 reference=stablehlo_dynamic_update_slice inputs=stablehlo_dynamic_update_slice

func.func @dynamic_update_slice_float(%arg0: tensor<3x3xf32>, %arg1: tensor<2x2xf32>, %arg2: tensor<i32>) -> tensor<3x3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %extracted = tensor.extract %arg2[] : tensor<i32>
  %0 = arith.index_cast %extracted : i32 to index
  %1 = arith.maxsi %0, %c0 : index
  %2 = arith.minsi %1, %c1 : index
  %extracted_0 = tensor.extract %arg2[] : tensor<i32>
  %3 = arith.index_cast %extracted_0 : i32 to index
  %4 = arith.maxsi %3, %c0 : index
  %5 = arith.minsi %4, %c1 : index
  %inserted_slice = tensor.insert_slice %arg1 into %arg0[%2, %5] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<3x3xf32>
  return %inserted_slice : tensor<3x3xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_dynamic_update_slice_float(%a0: tensor<3x3xf32>, %a1: tensor<2x2xf32>, %a2: tensor<i32>, %c0: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>, tensor<2x2xf32>) {
  %r:3 = autodiff.vjp @dynamic_update_slice_float(%a0, %a1, %a2, %c0) {wrt = array<i64: 0, 1>} : (tensor<3x3xf32>, tensor<2x2xf32>, tensor<i32>, tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>, tensor<2x2xf32>)
  return %r#0, %r#1, %r#2 : tensor<3x3xf32>, tensor<3x3xf32>, tensor<2x2xf32>
}
