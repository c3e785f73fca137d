// Source: llvm/llvm-project mlir/test/Dialect/Tensor/decompose-concat.mlir (commit 4034ad96542b9540bb03f1dbccab44edc02b21b2), https://github.com/llvm/llvm-project/blob/4034ad96542b9540bb03f1dbccab44edc02b21b2/mlir/test/Dialect/Tensor/decompose-concat.mlir
// What: tensor.concat along dimension 0 of four 1-d tensors of sizes 1, 2, 3 and 4.
// Adaptations: kept only @decompose_1d_concat of the file (dropped the CHECK lines, the other functions and the transform schedule); added the gradir entry @vjp_concat (autodiff.vjp) below the marker.
// gradir-corpus: entry=decompose_1d_concat wrt=0,1,2,3 reference=mlir_concat_dim0 inputs=signed

func.func @decompose_1d_concat(%arg0 : tensor<1xf32>,
                            %arg1 : tensor<2xf32>,
                            %arg2 : tensor<3xf32>,
                            %arg3: tensor<4xf32>) -> tensor<10xf32> {
  %0 = tensor.concat dim(0) %arg0, %arg1, %arg2, %arg3
             : (tensor<1xf32>, tensor<2xf32>, tensor<3xf32>, tensor<4xf32>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_concat(%a: tensor<1xf32>, %b: tensor<2xf32>, %c: tensor<3xf32>, %d: tensor<4xf32>, %ct: tensor<10xf32>) -> (tensor<10xf32>, tensor<1xf32>, tensor<2xf32>, tensor<3xf32>, tensor<4xf32>) {
  %r:5 = autodiff.vjp @decompose_1d_concat(%a, %b, %c, %d, %ct) {wrt = array<i64: 0, 1, 2, 3>} : (tensor<1xf32>, tensor<2xf32>, tensor<3xf32>, tensor<4xf32>, tensor<10xf32>) -> (tensor<10xf32>, tensor<1xf32>, tensor<2xf32>, tensor<3xf32>, tensor<4xf32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<10xf32>, tensor<1xf32>, tensor<2xf32>, tensor<3xf32>, tensor<4xf32>
}
