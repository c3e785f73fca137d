// What autodiff-vmap cannot batch is a one-line error at the op's location, never a
// silently wrong result.
// RUN: autodiff-opt %s -p autodiff-vmap --split-input-file --verify-diagnostics --allow-unregistered-dialect | filecheck %s

func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {
  %e = autodiff.exp %x : tensor<4xf64>
  // CHECK: autodiff-vmap-invalid.mlir:[[# @LINE + 1]]:3: error: vmap of 'test.op' is not supported
  %t = "test.op"(%e) : (tensor<4xf64>) -> tensor<4xf64>
  return %t : tensor<4xf64>
}
func.func @main(%xs: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %r = autodiff.vmap @f(%xs) {in_axes = array<i64: 0>, out_axes = array<i64: 0>, size = 3 : i64} : (tensor<3x4xf64>) -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}

// -----

// A slice at an offset that depends on the example: only one whole row per example has a
// rule (a gather; an element at such an index batches too).
func.func @f(%x: tensor<4xf64>, %k: tensor<f64>) -> tensor<2xf64> {
  %kk = tensor.extract %k[] : tensor<f64>
  %ki = arith.fptosi %kk : f64 to i64
  %i = arith.index_cast %ki : i64 to index
  // CHECK: autodiff-vmap-invalid.mlir:[[# @LINE + 1]]:3: error: vmap of 'tensor.extract_slice' is not supported (its offsets depend on the batch and it is not one whole row per example)
  %s = tensor.extract_slice %x[%i] [2] [1] : tensor<4xf64> to tensor<2xf64>
  return %s : tensor<2xf64>
}
func.func @main(%x: tensor<4xf64>, %ks: tensor<3xf64>) -> tensor<3x2xf64> {
  %r = autodiff.vmap @f(%x, %ks) {in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>, size = 3 : i64} : (tensor<4xf64>, tensor<3xf64>) -> tensor<3x2xf64>
  return %r : tensor<3x2xf64>
}

// -----

// A for loop whose lower bound depends on the example: no rule (an upper bound that does
// batches: the loop runs to the largest, each example keeping its state past its own).
func.func @f(%x: tensor<f64>) -> tensor<f64> {
  %e = tensor.extract %x[] : tensor<f64>
  %ei = arith.fptosi %e : f64 to i64
  %n = arith.index_cast %ei : i64 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: autodiff-vmap-invalid.mlir:[[# @LINE + 1]]:3: error: vmap of 'scf.for' is not supported (its lower bound or step depends on the batch)
  %r = scf.for %i = %n to %c1 step %c1 iter_args(%v = %x) -> (tensor<f64>) {
    %d = autodiff.add %v, %v : (tensor<f64>, tensor<f64>) -> tensor<f64>
    scf.yield %d : tensor<f64>
  }
  return %r : tensor<f64>
}
func.func @main(%xs: tensor<3xf64>) -> tensor<3xf64> {
  %r = autodiff.vmap @f(%xs) {in_axes = array<i64: 0>, out_axes = array<i64: 0>, size = 3 : i64} : (tensor<3xf64>) -> tensor<3xf64>
  return %r : tensor<3xf64>
}

// -----

// A linalg.generic whose body passes a batched tensor from outside to a call (only reading
// an element of it, a gather, is batched).
func.func private @first(%t: tensor<2xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %v = tensor.extract %t[%c0] : tensor<2xf64>
  return %v : f64
}
func.func @f(%x: tensor<4xf64>, %s: tensor<2xf64>) -> tensor<4xf64> {
  %e = tensor.empty() : tensor<4xf64>
  // CHECK: autodiff-vmap-invalid.mlir:[[# @LINE + 1]]:3: error: vmap of 'linalg.generic' is not supported (its body reads a batched tensor defined outside it with 'func.call')
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%a: f64, %o: f64):
    %v = func.call @first(%s) : (tensor<2xf64>) -> f64
    %m = arith.mulf %a, %v : f64
    linalg.yield %m : f64
  } -> tensor<4xf64>
  return %r : tensor<4xf64>
}
func.func @main(%x: tensor<4xf64>, %ss: tensor<3x2xf64>) -> tensor<3x4xf64> {
  %r = autodiff.vmap @f(%x, %ss) {in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>, size = 3 : i64} : (tensor<4xf64>, tensor<3x2xf64>) -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}

// -----

// A tensor whose size depends on the example (its x[0]): the batched tensor holds the largest
// example's size, so only reads and writes at indices (a tape) may use it; its tensor.dim,
// a reduction over it, a return of it would see that largest size.
func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {
  %c0 = arith.constant 0 : index
  %v = tensor.extract %x[%c0] : tensor<4xf64>
  %k = arith.fptosi %v : f64 to i64
  %n = arith.index_cast %k : i64 to index
  %e = tensor.empty(%n) : tensor<?xf64>
  // CHECK: autodiff-vmap-invalid.mlir:[[# @LINE + 1]]:3: error: vmap of 'tensor.dim' is not supported (it takes whole a tensor whose size depends on the example, and the batch holds every example at the largest example's size)
  %d = tensor.dim %e, %c0 : tensor<?xf64>
  %i = arith.index_cast %d : index to i64
  %g = arith.sitofp %i : i64 to f64
  %t = tensor.splat %g : tensor<4xf64>
  return %t : tensor<4xf64>
}
func.func @main(%xs: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %r = autodiff.vmap @f(%xs) {in_axes = array<i64: 0>, out_axes = array<i64: 0>, size = 3 : i64} : (tensor<3x4xf64>) -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}

// -----

// bufferization.alloc_tensor of a size that depends on the example: no rule (its batched
// size operand once reached the op as a tensor<3xindex>, an invalid op after the pass).
func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {
  %c0 = arith.constant 0 : index
  %v = tensor.extract %x[%c0] : tensor<4xf64>
  %k = arith.fptosi %v : f64 to i64
  %n = arith.index_cast %k : i64 to index
  // CHECK: autodiff-vmap-invalid.mlir:[[# @LINE + 1]]:3: error: vmap of 'bufferization.alloc_tensor' is not supported (its sizes depend on the batch)
  %e = bufferization.alloc_tensor(%n) : tensor<?xf64>
  %d = tensor.dim %e, %c0 : tensor<?xf64>
  %i = arith.index_cast %d : index to i64
  %g = arith.sitofp %i : i64 to f64
  %t = tensor.splat %g : tensor<4xf64>
  return %t : tensor<4xf64>
}
func.func @main(%xs: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %r = autodiff.vmap @f(%xs) {in_axes = array<i64: 0>, out_axes = array<i64: 0>, size = 3 : i64} : (tensor<3x4xf64>) -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}
