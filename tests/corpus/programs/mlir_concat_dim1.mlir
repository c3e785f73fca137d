// Source: llvm/llvm-project mlir/test/Dialect/Tensor/decompose-concat.mlir (commit 4034ad96542b9540bb03f1dbccab44edc02b21b2), https://github.com/llvm/llvm-project/blob/4034ad96542b9540bb03f1dbccab44edc02b21b2/mlir/test/Dialect/Tensor/decompose-concat.mlir
// What: tensor.concat along dimension 1 of an 8x4 and an 8x3 tensor.
// Adaptations: kept only @decompose_dynamic_concat of the file (dropped the CHECK lines, the other functions and the transform schedule); dynamic shapes made static (the second operand tensor<?x?xf32> -> tensor<8x3xf32>, the result tensor<?x?xf32> -> tensor<8x7xf32>); added the gradir entry @vjp_concat (autodiff.vjp) below the marker.
// gradir-corpus: entry=decompose_dynamic_concat wrt=0,1 reference=mlir_concat_dim1 inputs=signed

func.func @decompose_dynamic_concat(%arg0 : tensor<8x4xf32>, %arg1 : tensor<8x3xf32>) -> tensor<8x7xf32> {
  %0 = tensor.concat dim(1) %arg0, %arg1 : (tensor<8x4xf32>, tensor<8x3xf32>) -> tensor<8x7xf32>
  return %0 : tensor<8x7xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_concat(%a: tensor<8x4xf32>, %b: tensor<8x3xf32>, %ct: tensor<8x7xf32>) -> (tensor<8x7xf32>, tensor<8x4xf32>, tensor<8x3xf32>) {
  %r:3 = autodiff.vjp @decompose_dynamic_concat(%a, %b, %ct) {wrt = array<i64: 0, 1>} : (tensor<8x4xf32>, tensor<8x3xf32>, tensor<8x7xf32>) -> (tensor<8x7xf32>, tensor<8x4xf32>, tensor<8x3xf32>)
  return %r#0, %r#1, %r#2 : tensor<8x7xf32>, tensor<8x4xf32>, tensor<8x3xf32>
}
