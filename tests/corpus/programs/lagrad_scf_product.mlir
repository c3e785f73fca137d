// Source: pengmai/lagrad test/LAGrad/scf/product.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/scf/product.mlir
// What: product of a vector's elements by an scf.for with a scalar f64 iter_arg (`-> f64` without parentheses); returns a scalar.
// Adaptations: `func` -> `func.func`; dropped the driver @main and the print declaration; added the gradir entry @grad_product (autodiff.grad) below the marker.
// gradir-corpus: entry=product wrt=0 reference=product

func.func @product(%x: tensor<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %init = tensor.extract %x[%c0] : tensor<4xf64>
  %p = scf.for %iv = %c1 to %c4 step %c1 iter_args(%p_it = %init) -> f64 {
    %ai = tensor.extract %x[%iv] : tensor<4xf64>
    %p_next = arith.mulf %p_it, %ai : f64
    scf.yield %p_next : f64
  }
  return %p : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_product(%x: tensor<4xf64>) -> tensor<4xf64> {
  %g = autodiff.grad @product(%x) {wrt = array<i64: 0>} : (tensor<4xf64>) -> tensor<4xf64>
  return %g : tensor<4xf64>
}
