// Source: pengmai/lagrad test/LAGrad/scf/arrmax.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/scf/arrmax.mlir
// What: maximum of a vector by an scf.for with a scalar f64 iter_arg, `arith.cmpf ogt` + select; returns a scalar.
// Adaptations: `func` -> `func.func`; `select` -> `arith.select`; dropped the driver @main and the print declaration; added the gradir entry @grad_arrmax (autodiff.grad) below the marker.
// gradir-corpus: entry=arrmax wrt=0 reference=arrmax

func.func @arrmax(%x: tensor<4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %max_init = tensor.extract %x[%c0] : tensor<4xf64>
  %max = scf.for %iv = %c1 to %c4 step %c1 iter_args(%max_it = %max_init) -> f64 {
    %ai = tensor.extract %x[%iv] : tensor<4xf64>
    %p = arith.cmpf ogt, %ai, %max_it : f64
    %max_next = arith.select %p, %ai, %max_it : f64
    scf.yield %max_next : f64
  }
  return %max : f64
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_arrmax(%x: tensor<4xf64>) -> tensor<4xf64> {
  %g = autodiff.grad @arrmax(%x) {wrt = array<i64: 0>} : (tensor<4xf64>) -> tensor<4xf64>
  return %g : tensor<4xf64>
}
