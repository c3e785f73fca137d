// Source: llvm/llvm-project mlir/test/Dialect/Linalg/convert-elementwise-to-linalg.mlir (commit 34c07ec39fbc9a2907ac58bf70bd9fb176aa4df4), https://github.com/llvm/llvm-project/blob/34c07ec39fbc9a2907ac58bf70bd9fb176aa4df4/mlir/test/Dialect/Linalg/convert-elementwise-to-linalg.mlir
// What: arith.select on whole 0-d tensors with a tensor<i1> condition (the elementwise form, types written `tensor<i1>, tensor<...>`).
// Adaptations: kept only @select of the split file (dropped the CHECK lines and the other splits); i32 -> f32 for the two selected operands and the result (tensor<i32> -> tensor<f32>) so that they are differentiable; added the gradir entry @vjp_select (autodiff.vjp wrt both selected operands) below the marker.
// gradir-corpus: entry=select wrt=1,2 reference=em_select inputs=mlir_select_both

func.func @select(%arg0: tensor<i1>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<f32> {
  %0 = arith.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<f32>
  return %0 : tensor<f32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_select(%c: tensor<i1>, %a: tensor<f32>, %b: tensor<f32>, %ct: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %r:3 = autodiff.vjp @select(%c, %a, %b, %ct) {wrt = array<i64: 1, 2>} : (tensor<i1>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
  return %r#0, %r#1, %r#2 : tensor<f32>, tensor<f32>, tensor<f32>
}
