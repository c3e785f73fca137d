// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/test-subtensor-insert-multiple-uses.mlir (commit 0317f9c8561d6b6eabba0ca01641135cbeab307d), https://github.com/llvm/llvm-project/blob/0317f9c8561d6b6eabba0ca01641135cbeab307d/mlir/test/Integration/Dialect/Linalg/CPU/test-subtensor-insert-multiple-uses.mlir
// What: two tensor.insert_slice ops writing the same 1-element tensor into the same destination at positions 0 and 1; both results returned.
// Adaptations: the body of upstream's @main turned into a function @insert_twice: the constants %const and %insert_val became its arguments (same shapes) and the two inserted tensors its results; dropped the printing (tensor.cast, calls to @printMemrefF32), its declaration and the RUN/CHECK lines; added the gradir entry @vjp_insert_twice (autodiff.vjp) below the marker.
// gradir-corpus: entry=insert_twice wrt=0,1 reference=mlir_insert_twice inputs=signed

func.func @insert_twice(%const: tensor<2xf32>, %insert_val: tensor<1xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %inserted_at_position_0 = tensor.insert_slice %insert_val into %const[0][1][1] : tensor<1xf32> into tensor<2xf32>
  %inserted_at_position_1 = tensor.insert_slice %insert_val into %const[1][1][1] : tensor<1xf32> into tensor<2xf32>
  return %inserted_at_position_0, %inserted_at_position_1 : tensor<2xf32>, tensor<2xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_insert_twice(%c: tensor<2xf32>, %v: tensor<1xf32>, %ct0: tensor<2xf32>, %ct1: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<1xf32>) {
  %r:4 = autodiff.vjp @insert_twice(%c, %v, %ct0, %ct1) {wrt = array<i64: 0, 1>} : (tensor<2xf32>, tensor<1xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<1xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<1xf32>
}
