// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/test-collapse-tensor.mlir (commit 1647897741df4bd162d2cefd02331e2dc5ae9f29), https://github.com/llvm/llvm-project/blob/1647897741df4bd162d2cefd02331e2dc5ae9f29/mlir/test/Integration/Dialect/Linalg/CPU/test-collapse-tensor.mlir
// What: tensor.collapse_shape of a 4-d tensor, the middle two dimensions merged ([[0], [1, 2], [3]]).
// Adaptations: kept only @collapse_dynamic_shape (dropped @main, which casts a dense constant to the dynamic type and prints the result, the print declaration and the RUN/CHECK lines); dynamic shapes made static (tensor<2x?x?x?xf32> -> tensor<2x2x3x2xf32>, the shape of upstream's constant; result tensor<2x?x?xf32> -> tensor<2x6x2xf32>); added the gradir entry @vjp_collapse (autodiff.vjp) below the marker.
// gradir-corpus: entry=collapse_dynamic_shape wrt=0 reference=mlir_collapse_2x6x2 inputs=signed

func.func @collapse_dynamic_shape(%arg0 : tensor<2x2x3x2xf32>) -> tensor<2x6x2xf32> {
  %0 = tensor.collapse_shape %arg0 [[0], [1, 2], [3]]: tensor<2x2x3x2xf32> into tensor<2x6x2xf32>
  return %0 : tensor<2x6x2xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_collapse(%x: tensor<2x2x3x2xf32>, %ct: tensor<2x6x2xf32>) -> (tensor<2x6x2xf32>, tensor<2x2x3x2xf32>) {
  %r:2 = autodiff.vjp @collapse_dynamic_shape(%x, %ct) {wrt = array<i64: 0>} : (tensor<2x2x3x2xf32>, tensor<2x6x2xf32>) -> (tensor<2x6x2xf32>, tensor<2x2x3x2xf32>)
  return %r#0, %r#1 : tensor<2x6x2xf32>, tensor<2x2x3x2xf32>
}
