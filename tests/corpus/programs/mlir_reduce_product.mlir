// Source: llvm/llvm-project mlir/test/Dialect/Linalg/fuse_fill_op_with_reduce_op.mlir (commit 56afd0f41761fd4b059585beb341cb71fbd5b908), https://github.com/llvm/llvm-project/blob/56afd0f41761fd4b059585beb341cb71fbd5b908/mlir/test/Dialect/Linalg/fuse_fill_op_with_reduce_op.mlir
// What: a product reduction (linalg.reduce with a multiplying combiner) of a vector into a 0-d tensor filled with 1.
// Adaptations: kept only @test_reduce_multiply_kernel of the split file (dropped the CHECK lines and the other splits); i8 -> f32 throughout (arith.muli -> arith.mulf, the fill value 1 : i8 -> 1.0 : f32) and the input size reduced (147456 -> 6); made public (upstream's is private); added the gradir entry @vjp_product (autodiff.vjp) below the marker.
// gradir-corpus: entry=test_reduce_multiply_kernel wrt=0 reference=mlir_product inputs=signed

func.func @test_reduce_multiply_kernel(%arg0: tensor<6xf32>) -> (tensor<f32>) {
  %1 = tensor.empty() : tensor<f32>
  %c1_f32 = arith.constant 1.0 : f32
  %2 = linalg.fill ins(%c1_f32 : f32) outs(%1 : tensor<f32>) -> tensor<f32>
  %reduced = linalg.reduce ins(%arg0 : tensor<6xf32>) outs(%2 : tensor<f32>) dimensions = [0]
    (%in: f32, %init: f32) {
      %3 = arith.mulf %in, %init : f32
      linalg.yield %3 : f32
    }
  return %reduced : tensor<f32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_product(%x: tensor<6xf32>, %ct: tensor<f32>) -> (tensor<f32>, tensor<6xf32>) {
  %r:2 = autodiff.vjp @test_reduce_multiply_kernel(%x, %ct) {wrt = array<i64: 0>} : (tensor<6xf32>, tensor<f32>) -> (tensor<f32>, tensor<6xf32>)
  return %r#0, %r#1 : tensor<f32>, tensor<6xf32>
}
