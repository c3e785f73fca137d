// Source: openxla/stablehlo stablehlo/conversions/linalg/tests/miscellaneous.mlir (commit 3c9301c116f97fbaf696959a0ede32712aec587b), https://github.com/openxla/stablehlo/blob/3c9301c116f97fbaf696959a0ede32712aec587b/stablehlo/conversions/linalg/tests/miscellaneous.mlir
// What: the same stablehlo.broadcast_in_dim (dims [4, 0, 2]) emitted with primitive ops: tensor.collapse_shape drops the size-1 dimension, linalg.transpose (permutation [1, 0]), then linalg.broadcast (dimensions [1, 2, 3]).
// Adaptations: the function is the linalg that `stablehlo-opt --stablehlo-legalize-to-linalg="enable-primitive-ops=true" --canonicalize` emits for the upstream stablehlo function, reconstructed by hand from its CHECK-PRIMITIVE lines (upstream stablehlo input and CHECK lines themselves not copied); @broadcast_in_dim only, its CHECK-PRIMITIVE lines (collapse_shape, transpose [1, 0], broadcast [1, 2, 3]); the function renamed @broadcast_in_dim_primitive; sizes reduced (operand 5x7x1 -> 3x4x1, result 7x10x6x4x5 -> 4x2x3x2x3); added the gradir entry @vjp_broadcast_in_dim_primitive (autodiff.vjp) below the marker.
// gradir-corpus: entry=broadcast_in_dim_primitive wrt=0 reference=stablehlo_broadcast_in_dim inputs=signed

func.func @broadcast_in_dim_primitive(%arg0: tensor<3x4x1xf32>) -> tensor<4x2x3x2x3xf32> {
  %collapsed = tensor.collapse_shape %arg0 [[0], [1, 2]] : tensor<3x4x1xf32> into tensor<3x4xf32>
  %0 = tensor.empty() : tensor<4x3xf32>
  %transposed = linalg.transpose ins(%collapsed : tensor<3x4xf32>) outs(%0 : tensor<4x3xf32>) permutation = [1, 0]
  %1 = tensor.empty() : tensor<4x2x3x2x3xf32>
  %broadcasted = linalg.broadcast ins(%transposed : tensor<4x3xf32>) outs(%1 : tensor<4x2x3x2x3xf32>) dimensions = [1, 2, 3]
  return %broadcasted : tensor<4x2x3x2x3xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_broadcast_in_dim_primitive(%a0: tensor<3x4x1xf32>, %c0: tensor<4x2x3x2x3xf32>) -> (tensor<4x2x3x2x3xf32>, tensor<3x4x1xf32>) {
  %r:2 = autodiff.vjp @broadcast_in_dim_primitive(%a0, %c0) {wrt = array<i64: 0>} : (tensor<3x4x1xf32>, tensor<4x2x3x2x3xf32>) -> (tensor<4x2x3x2x3xf32>, tensor<3x4x1xf32>)
  return %r#0, %r#1 : tensor<4x2x3x2x3xf32>, tensor<3x4x1xf32>
}
