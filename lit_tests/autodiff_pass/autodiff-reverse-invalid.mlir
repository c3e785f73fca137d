// What reverse mode cannot differentiate is a one-line error at the op's location.
// RUN: autodiff-opt %s -p autodiff-reverse --split-input-file --verify-diagnostics | filecheck %s

// An op without a derivative rule on the active path.
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: autodiff-reverse-invalid.mlir:[[# @LINE + 1]]:3: error: differentiation of 'test.op' is not supported
  %t = "test.op"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %t : tensor<4xf32>
}
func.func @main(%a: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %r, %da = autodiff.vjp @f(%a, %ct) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %da : tensor<4xf32>
}

// -----

// The same inside a called function: the error points into the callee.
func.func @inner(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: autodiff-reverse-invalid.mlir:[[# @LINE + 1]]:3: error: differentiation of 'test.op' is not supported
  %t = "test.op"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %t : tensor<4xf32>
}
func.func @outer(%x: tensor<4xf32>) -> tensor<f32> {
  %y = func.call @inner(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %s = autodiff.sum %y : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %dx = autodiff.grad @outer(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %dx : tensor<4xf32>
}

// -----

// A call on the active path to a function without a body.
func.func private @external(tensor<4xf32>) -> tensor<4xf32>
func.func @f(%x: tensor<4xf32>) -> tensor<f32> {
  // CHECK: autodiff-reverse-invalid.mlir:[[# @LINE + 1]]:3: error: differentiation of 'func.call' is not supported: callee @external has no body
  %y = func.call @external(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %s = autodiff.sum %y : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %dx = autodiff.grad @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %dx : tensor<4xf32>
}

// -----

// A function whose body asks for its own derivative.
func.func @f(%x: tensor<f32>) -> tensor<f32> {
  // CHECK: autodiff-reverse-invalid.mlir:[[# @LINE + 1]]:3: error: the derivative of @f depends on itself (an entry op inside it needs that derivative)
  %d = autodiff.grad @f(%x) : (tensor<f32>) -> tensor<f32>
  %r = autodiff.mul %d, %x : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// Reinterpreting an active value's bits: its derivative would be lost (never a silent zero).
func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {
  // CHECK: autodiff-reverse-invalid.mlir:[[# @LINE + 1]]:3: error: 'arith.bitcast' reinterprets the bits of %x, which carries a derivative: there is no derivative gradir can compute for that
  %b = arith.bitcast %x : tensor<4xf64> to tensor<4xi64>
  %y = arith.bitcast %b : tensor<4xi64> to tensor<4xf64>
  %z = arith.addf %y, %x : tensor<4xf64>
  return %z : tensor<4xf64>
}
func.func @main(%x: tensor<4xf64>, %ct: tensor<4xf64>) -> tensor<4xf64> {
  %r:2 = autodiff.vjp @f(%x, %ct) : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return %r#1 : tensor<4xf64>
}

// -----

// Writing an active value to memory: a later load would carry no derivative.
func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {
  %c0 = arith.constant 0 : index
  %m = memref.alloc() : memref<4xf64>
  %s = tensor.extract %x[%c0] : tensor<4xf64>
  // CHECK: autodiff-reverse-invalid.mlir:[[# @LINE + 1]]:3: error: 'memref.store' writes %s, which carries a derivative, to memory: gradir differentiates values (tensors and scalars), not memory
  memref.store %s, %m[%c0] : memref<4xf64>
  %e = math.exp %x : tensor<4xf64>
  return %e : tensor<4xf64>
}
func.func @main(%x: tensor<4xf64>, %ct: tensor<4xf64>) -> tensor<4xf64> {
  %r:2 = autodiff.vjp @f(%x, %ct) : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return %r#1 : tensor<4xf64>
}
