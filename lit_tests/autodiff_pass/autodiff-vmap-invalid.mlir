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

// Reading one element of a batched tensor at an index: no rule (each example would
// need its own element).
func.func @f(%x: tensor<4xf64>) -> tensor<f64> {
  %i = arith.constant 1 : index
  // CHECK: autodiff-vmap-invalid.mlir:[[# @LINE + 1]]:3: error: vmap of 'tensor.extract' is not supported
  %e = tensor.extract %x[%i] : tensor<4xf64>
  %t = tensor.from_elements %e : tensor<f64>
  return %t : tensor<f64>
}
func.func @main(%xs: tensor<3x4xf64>) -> tensor<3xf64> {
  %r = autodiff.vmap @f(%xs) {in_axes = array<i64: 0>, out_axes = array<i64: 0>, size = 3 : i64} : (tensor<3x4xf64>) -> tensor<3xf64>
  return %r : tensor<3xf64>
}

// -----

// A while loop whose condition depends on the batch: no rule.
func.func @f(%x: tensor<f64>) -> tensor<f64> {
  // CHECK: autodiff-vmap-invalid.mlir:[[# @LINE + 1]]:3: error: vmap of 'scf.while' is not supported
  %r = scf.while (%v = %x) : (tensor<f64>) -> tensor<f64> {
    %e = tensor.extract %v[] : tensor<f64>
    %one = arith.constant 1.0 : f64
    %c = arith.cmpf olt, %e, %one : f64
    scf.condition(%c) %v : tensor<f64>
  } do {
  ^bb0(%v: tensor<f64>):
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

// A linalg.generic whose body reads a batched value from outside it.
func.func @f(%x: tensor<4xf64>, %s: tensor<f64>) -> tensor<4xf64> {
  %e = tensor.empty() : tensor<4xf64>
  // CHECK: autodiff-vmap-invalid.mlir:[[# @LINE + 1]]:3: error: vmap of 'linalg.generic' is not supported (its body reads a batched value defined outside it)
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%a: f64, %o: f64):
    %v = tensor.extract %s[] : tensor<f64>
    %m = arith.mulf %a, %v : f64
    linalg.yield %m : f64
  } -> tensor<4xf64>
  return %r : tensor<4xf64>
}
func.func @main(%x: tensor<4xf64>, %ss: tensor<3xf64>) -> tensor<3x4xf64> {
  %r = autodiff.vmap @f(%x, %ss) {in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>, size = 3 : i64} : (tensor<4xf64>, tensor<3xf64>) -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}

// -----

// A call whose callee returns a scalar: a scalar cannot carry the batch dimension.
func.func @g(%x: tensor<4xf64>) -> f64 {
  %i = arith.constant 0 : index
  %e = tensor.extract %x[%i] : tensor<4xf64>
  return %e : f64
}
func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {
  // CHECK: autodiff-vmap-invalid.mlir:[[# @LINE + 1]]:3: error: vmap of 'func.call' is not supported (@g result 0 is f64: only tensors can be batched)
  %s = func.call @g(%x) : (tensor<4xf64>) -> f64
  %t = tensor.splat %s : tensor<4xf64>
  return %t : tensor<4xf64>
}
func.func @main(%xs: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %r = autodiff.vmap @f(%xs) {in_axes = array<i64: 0>, out_axes = array<i64: 0>, size = 3 : i64} : (tensor<3x4xf64>) -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}
