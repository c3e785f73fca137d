// Source: pengmai/lagrad test/LAGrad/insert_multi.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/insert_multi.mlir
// What: projection: two tensor.extract of a 3-vector inserted by two tensor.insert into an uninitialised 2-vector (every element written).
// Adaptations: `func` -> `func.func`; `linalg.init_tensor [2]` -> `tensor.empty()`; removed the trailing `// s1`..`// s4` comments; dropped the driver @main and the print declaration; added the gradir entry @vjp_proj (autodiff.vjp) below the marker.
// gradir-corpus: entry=proj wrt=0 reference=lg_proj inputs=signed

func.func @proj(%A: tensor<3xf64>) -> tensor<2xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %0 = tensor.extract %A[%c0] : tensor<3xf64>
  %1 = tensor.extract %A[%c2] : tensor<3xf64>
  %t0 = tensor.empty() : tensor<2xf64>
  %t1 = tensor.insert %0 into %t0[%c0] : tensor<2xf64>
  %t2 = tensor.insert %1 into %t1[%c1] : tensor<2xf64>
  return %t2 : tensor<2xf64>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_proj(%a: tensor<3xf64>, %ct: tensor<2xf64>) -> (tensor<2xf64>, tensor<3xf64>) {
  %r:2 = autodiff.vjp @proj(%a, %ct) {wrt = array<i64: 0>} : (tensor<3xf64>, tensor<2xf64>) -> (tensor<2xf64>, tensor<3xf64>)
  return %r#0, %r#1 : tensor<2xf64>, tensor<3xf64>
}
