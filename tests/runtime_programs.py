"""MLIR functions more than one test file runs, each for its own purpose."""

POSITIVES = """
func.func @positives(%x: tensor<?xf64>) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f64
  %n = tensor.dim %x, %c0 : tensor<?xf64>
  %count = scf.for %i = %c0 to %n step %c1 iter_args(%k = %c0) -> (index) {
    %v = tensor.extract %x[%i] : tensor<?xf64>
    %p = arith.cmpf ogt, %v, %zero : f64
    %k1 = arith.addi %k, %c1 : index
    %next = arith.select %p, %k1, %k : index
    scf.yield %next : index
  }
  %e = tensor.empty(%count) : tensor<?xf64>
  %filled, %used = scf.for %i = %c0 to %n step %c1 iter_args(%out = %e, %j = %c0) -> (tensor<?xf64>, index) {
    %v = tensor.extract %x[%i] : tensor<?xf64>
    %p = arith.cmpf ogt, %v, %zero : f64
    %r:2 = scf.if %p -> (tensor<?xf64>, index) {
      %o = tensor.insert %v into %out[%j] : tensor<?xf64>
      %j1 = arith.addi %j, %c1 : index
      scf.yield %o, %j1 : tensor<?xf64>, index
    } else {
      scf.yield %out, %j : tensor<?xf64>, index
    }
    scf.yield %r#0, %r#1 : tensor<?xf64>, index
  }
  return %filled : tensor<?xf64>
}
"""
"""The positive entries of `x`: a result whose size is a count only the computation gives (a
loop), filled element by element by a second loop."""

FILL_READ = """
func.func @f(%i: index) -> f64 {
  %z = arith.constant 2.5 : f64
  %e = tensor.empty() : tensor<4xf64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<4xf64>) -> tensor<4xf64>
  %v = tensor.extract %f[%i] : tensor<4xf64>
  return %v : f64
}
"""
"""Entry `i` of a 4-element fill: canonicalization folds the read to the fill value whatever
`i` is, so its index must be checked before."""
