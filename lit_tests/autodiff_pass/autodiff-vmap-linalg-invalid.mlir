// Linalg ops autodiff-vmap cannot batch are one-line errors at the op's location, naming
// the op the user wrote.
// RUN: autodiff-opt %s -p autodiff-vmap --split-input-file --verify-diagnostics | filecheck %s

// A body using a batched tensor from outside other than by reading an element or an extent
// of it (a gather, or the same extent for every example).
func.func @f(%x: tensor<4xf64>, %s: tensor<3xf64>) -> tensor<4xf64> {
  %e = tensor.empty() : tensor<4xf64>
  %c0 = arith.constant 0 : index
  // CHECK: autodiff-vmap-linalg-invalid.mlir:[[# @LINE + 1]]:3: error: vmap of 'linalg.map' (as a linalg.generic) is not supported (its body reads a batched tensor defined outside it with 'tensor.cast')
  %m = linalg.map ins(%x : tensor<4xf64>) outs(%e : tensor<4xf64>)
    (%in: f64, %o: f64) {
      %d = tensor.cast %s : tensor<3xf64> to tensor<?xf64>
      %n = tensor.dim %d, %c0 : tensor<?xf64>
      %i = arith.index_cast %n : index to i64
      %f = arith.sitofp %i : i64 to f64
      %p = arith.mulf %in, %f : f64
      linalg.yield %p : f64
    }
  return %m : tensor<4xf64>
}
func.func @main(%x: tensor<4xf64>, %ss: tensor<2x3xf64>) -> tensor<2x4xf64> {
  %r = autodiff.vmap @f(%x, %ss) {in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>, size = 2 : i64} : (tensor<4xf64>, tensor<2x3xf64>) -> tensor<2x4xf64>
  return %r : tensor<2x4xf64>
}
