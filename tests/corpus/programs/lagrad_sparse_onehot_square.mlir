// Source: pengmai/lagrad test/LAGrad/sparse/onehot_elementwise_square.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/sparse/onehot_elementwise_square.mlir
// What: elementwise square by a generic into a zero-filled tensor.empty (the output block argument unused).
// Adaptations: dropped the LAGrad tensor encoding `"onehot"` (a sparsity hint for LAGrad's own sparse adjoints; the program is the same on a dense tensor); `func` -> `func.func`; `linalg.init_tensor [10, 3]` -> `tensor.empty()`; old `linalg.fill(%zero, %space) : f64, T -> T` -> `linalg.fill ins(...) outs(...) -> T`; removed a commented-out line; added the gradir entry @vjp_onehot_square (autodiff.vjp) below the marker.
// gradir-corpus: entry=onehot_square wrt=0 reference=lg_square inputs=signed

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @onehot_square(%arg: tensor<10x3xf64>) -> tensor<10x3xf64> {
  %space = tensor.empty() : tensor<10x3xf64>
  %zero = arith.constant 0.0 : f64
  %dest = linalg.fill ins(%zero : f64) outs(%space : tensor<10x3xf64>) -> tensor<10x3xf64>
  %res = linalg.generic {
    indexing_maps = [#map, #map],
    iterator_types = ["parallel", "parallel"]
  } ins(%arg : tensor<10x3xf64>) outs(%dest : tensor<10x3xf64>) {
  ^bb0(%arg0: f64, %arg1: f64):
    %0 = arith.mulf %arg0, %arg0 : f64
    linalg.yield %0 : f64
  } -> tensor<10x3xf64>
  return %res : tensor<10x3xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_onehot_square(%a: tensor<10x3xf64>, %ct: tensor<10x3xf64>) -> (tensor<10x3xf64>, tensor<10x3xf64>) {
  %r:2 = autodiff.vjp @onehot_square(%a, %ct) {wrt = array<i64: 0>} : (tensor<10x3xf64>, tensor<10x3xf64>) -> (tensor<10x3xf64>, tensor<10x3xf64>)
  return %r#0, %r#1 : tensor<10x3xf64>, tensor<10x3xf64>
}
