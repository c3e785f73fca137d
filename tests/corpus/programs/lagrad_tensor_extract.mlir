// Source: pengmai/lagrad test/LAGrad/tensor_extract.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/tensor_extract.mlir
// What: one element taken with tensor.extract at a constant index, squared and scaled; returns a scalar f64.
// Adaptations: kept only @extract_1d of the file's two functions; `func` -> `func.func`; dropped the driver @main and the print declaration; added the gradir entry @grad_extract_1d (autodiff.grad) below the marker.
// gradir-corpus: entry=extract_1d wrt=0 reference=extract_1d

func.func @extract_1d(%arg0: tensor<4xf64>) -> f64 {
  %cst = arith.constant 3.4 : f64
  %idx = arith.constant 3 : index
  %0 = tensor.extract %arg0[%idx] : tensor<4xf64>
  %1 = arith.mulf %0, %0 : f64
  %2 = arith.mulf %1, %cst : f64
  return %2 : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_extract_1d(%a: tensor<4xf64>) -> tensor<4xf64> {
  %g = autodiff.grad @extract_1d(%a) {wrt = array<i64: 0>} : (tensor<4xf64>) -> tensor<4xf64>
  return %g : tensor<4xf64>
}
