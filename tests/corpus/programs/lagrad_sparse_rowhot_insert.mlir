// Source: pengmai/lagrad test/LAGrad/sparse/rowhot_tensor_insert.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/sparse/rowhot_tensor_insert.mlir
// What: a 10x3 argument (carrying the discardable argument attribute {sparse_tensor.sparsity = "onehot"}) inserted by tensor.insert_slice into the left columns of a zero-filled 10x4 tensor.empty.
// Adaptations: `func` -> `func.func`; `linalg.init_tensor [10, 4]` -> `tensor.empty()`; old `linalg.fill(%zero, %space) : f64, T -> T` -> `linalg.fill ins(...) outs(...) -> T`; removed a commented-out line; added the gradir entry @vjp_rowhot_insert (autodiff.vjp) below the marker.
// gradir-corpus: entry=rowhot_insert wrt=0 reference=lg_rowhot_insert inputs=signed

func.func @rowhot_insert(%arg: tensor<10x3xf64> {sparse_tensor.sparsity = "onehot"}) -> tensor<10x4xf64> {
  %space = tensor.empty() : tensor<10x4xf64>
  %zero = arith.constant 0.0 : f64
  %dest = linalg.fill ins(%zero : f64) outs(%space : tensor<10x4xf64>) -> tensor<10x4xf64>
  %res = tensor.insert_slice %arg into %dest[0, 0] [10, 3] [1, 1] : tensor<10x3xf64> into tensor<10x4xf64>
  return %res : tensor<10x4xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_rowhot_insert(%a: tensor<10x3xf64>, %ct: tensor<10x4xf64>) -> (tensor<10x4xf64>, tensor<10x3xf64>) {
  %r:2 = autodiff.vjp @rowhot_insert(%a, %ct) {wrt = array<i64: 0>} : (tensor<10x3xf64>, tensor<10x4xf64>) -> (tensor<10x4xf64>, tensor<10x3xf64>)
  return %r#0, %r#1 : tensor<10x4xf64>, tensor<10x3xf64>
}
