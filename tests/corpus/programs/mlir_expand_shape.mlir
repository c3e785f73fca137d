// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/test-expand-tensor.mlir (commit 0f4236bb2a56d180f1a2bbc6eb30553fa8cd58fc), https://github.com/llvm/llvm-project/blob/0f4236bb2a56d180f1a2bbc6eb30553fa8cd58fc/mlir/test/Integration/Dialect/Linalg/CPU/test-expand-tensor.mlir
// What: tensor.expand_shape of a 3-d tensor, the middle dimension split into three ([[0], [1, 2, 3], [4]]), one of them a unit dimension.
// Adaptations: kept only @expand_dynamic_shape (dropped @main, which casts a dense constant to the dynamic type and prints the result, the print declaration and the RUN/CHECK lines); dynamic shapes made static (tensor<2x?x?xf32> -> tensor<2x6x2xf32>, the shape of upstream's constant; result tensor<2x2x?x1x?xf32> -> tensor<2x2x3x1x2xf32>); MLIR 22's expand_shape needs an output_shape list: added `output_shape [2, 2, 3, 1, 2]`; added the gradir entry @vjp_expand (autodiff.vjp) below the marker.
// gradir-corpus: entry=expand_dynamic_shape wrt=0 reference=mlir_expand_2x2x3x1x2 inputs=signed

func.func @expand_dynamic_shape(%arg0 : tensor<2x6x2xf32>) -> tensor<2x2x3x1x2xf32> {
  %0 = tensor.expand_shape %arg0 [[0], [1, 2, 3], [4]] output_shape [2, 2, 3, 1, 2]: tensor<2x6x2xf32> into tensor<2x2x3x1x2xf32>
  return %0 : tensor<2x2x3x1x2xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_expand(%x: tensor<2x6x2xf32>, %ct: tensor<2x2x3x1x2xf32>) -> (tensor<2x2x3x1x2xf32>, tensor<2x6x2xf32>) {
  %r:2 = autodiff.vjp @expand_dynamic_shape(%x, %ct) {wrt = array<i64: 0>} : (tensor<2x6x2xf32>, tensor<2x2x3x1x2xf32>) -> (tensor<2x2x3x1x2xf32>, tensor<2x6x2xf32>)
  return %r#0, %r#1 : tensor<2x2x3x1x2xf32>, tensor<2x6x2xf32>
}
