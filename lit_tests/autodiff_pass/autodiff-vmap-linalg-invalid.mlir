// Linalg ops autodiff-vmap cannot batch are one-line errors at the op's location, naming
// the op the user wrote.
// RUN: autodiff-opt %s -p autodiff-vmap --split-input-file --verify-diagnostics | filecheck %s

// A body reading a batched value from outside (each example would need its own).
func.func @f(%x: tensor<4xf64>, %s: tensor<f64>) -> tensor<4xf64> {
  %e = tensor.empty() : tensor<4xf64>
  // CHECK: autodiff-vmap-linalg-invalid.mlir:[[# @LINE + 1]]:3: error: vmap of 'linalg.map' (as a linalg.generic) is not supported (its body reads a batched value defined outside it)
  %m = linalg.map ins(%x : tensor<4xf64>) outs(%e : tensor<4xf64>)
    (%in: f64, %o: f64) {
      %v = tensor.extract %s[] : tensor<f64>
      %p = arith.mulf %in, %v : f64
      linalg.yield %p : f64
    }
  return %m : tensor<4xf64>
}
func.func @main(%x: tensor<4xf64>, %ss: tensor<3xf64>) -> tensor<3x4xf64> {
  %r = autodiff.vmap @f(%x, %ss) {in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>, size = 3 : i64} : (tensor<4xf64>, tensor<3xf64>) -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}

// -----

// The same with the input batched too.
func.func @f(%x: tensor<4xf64>, %s: tensor<f64>) -> tensor<4xf64> {
  %e = tensor.empty() : tensor<4xf64>
  // CHECK: autodiff-vmap-linalg-invalid.mlir:[[# @LINE + 1]]:3: error: vmap of 'linalg.map' (as a linalg.generic) is not supported (its body reads a batched value defined outside it)
  %m = linalg.map ins(%x : tensor<4xf64>) outs(%e : tensor<4xf64>)
    (%in: f64, %o: f64) {
      %v = tensor.extract %s[] : tensor<f64>
      %p = arith.mulf %in, %v : f64
      linalg.yield %p : f64
    }
  return %m : tensor<4xf64>
}
func.func @main(%xs: tensor<3x4xf64>, %ss: tensor<3xf64>) -> tensor<3x4xf64> {
  %r = autodiff.vmap @f(%xs, %ss) {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>, size = 3 : i64} : (tensor<3x4xf64>, tensor<3xf64>) -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}
