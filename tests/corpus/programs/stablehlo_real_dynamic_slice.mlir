// Source: openxla/stablehlo stablehlo/conversions/linalg/tests/miscellaneous.mlir (commit 3c9301c116f97fbaf696959a0ede32712aec587b), https://github.com/openxla/stablehlo/blob/3c9301c116f97fbaf696959a0ede32712aec587b/stablehlo/conversions/linalg/tests/miscellaneous.mlir
// What: stablehlo.real_dynamic_slice with start, limit and stride vectors given as tensor<2xindex> arguments as emitted: tensor.extract of each index, the dynamic size (limit - start) ceildivui stride, the start clamped to [0, dim - size] with tensor.dim/subi/maxsi/minsi, and tensor.extract_slice with dynamic offsets, size and strides.
// Adaptations: the function is the linalg that `stablehlo-opt --stablehlo-legalize-to-linalg --canonicalize` emits for the upstream stablehlo function, reconstructed by hand from its CHECK lines (SSA names, map aliases and op order as the CHECK lines give them; upstream stablehlo input and CHECK lines themselves not copied); @real_dynamic_slice only; sizes reduced (operand 256x? -> 3x?, the result 256x? -> 3x?; the clamp of the first start index is to 0 since the static size is the whole dimension, as upstream); added the gradir entry @vjp_real_dynamic_slice (autodiff.vjp wrt the operand) below the marker; run with a 3x8 operand, start [0, 1], limit [3, 7], strides [1, 2] (columns 1, 3, 5).
// gradir-corpus: entry=real_dynamic_slice wrt=0 reference=stablehlo_real_dynamic_slice inputs=stablehlo_real_dynamic_slice

func.func @real_dynamic_slice(%arg0: tensor<3x?xf32>, %arg1: tensor<2xindex>, %arg2: tensor<2xindex>, %arg3: tensor<2xindex>) -> tensor<3x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %extracted = tensor.extract %arg1[%c0] : tensor<2xindex>
  %extracted_0 = tensor.extract %arg3[%c0] : tensor<2xindex>
  %0 = arith.maxsi %extracted, %c0 : index
  %1 = arith.minsi %0, %c0 : index
  %extracted_1 = tensor.extract %arg1[%c1] : tensor<2xindex>
  %extracted_2 = tensor.extract %arg2[%c1] : tensor<2xindex>
  %extracted_3 = tensor.extract %arg3[%c1] : tensor<2xindex>
  %2 = arith.subi %extracted_2, %extracted_1 : index
  %3 = arith.ceildivui %2, %extracted_3 : index
  %dim = tensor.dim %arg0, %c1 : tensor<3x?xf32>
  %4 = arith.subi %dim, %3 : index
  %5 = arith.maxsi %extracted_1, %c0 : index
  %6 = arith.minsi %5, %4 : index
  %extracted_slice = tensor.extract_slice %arg0[%1, %6] [3, %3] [%extracted_0, %extracted_3] : tensor<3x?xf32> to tensor<3x?xf32>
  return %extracted_slice : tensor<3x?xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_real_dynamic_slice(%a0: tensor<3x?xf32>, %a1: tensor<2xindex>, %a2: tensor<2xindex>, %a3: tensor<2xindex>, %c0: tensor<3x?xf32>) -> (tensor<3x?xf32>, tensor<3x?xf32>) {
  %r:2 = autodiff.vjp @real_dynamic_slice(%a0, %a1, %a2, %a3, %c0) {wrt = array<i64: 0>} : (tensor<3x?xf32>, tensor<2xindex>, tensor<2xindex>, tensor<2xindex>, tensor<3x?xf32>) -> (tensor<3x?xf32>, tensor<3x?xf32>)
  return %r#0, %r#1 : tensor<3x?xf32>, tensor<3x?xf32>
}
