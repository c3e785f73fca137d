// What forward mode cannot differentiate is a one-line error at the op's location.
// RUN: autodiff-opt %s -p autodiff-forward --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = autodiff.exp %a : tensor<4xf32>
  // CHECK: autodiff-forward-invalid.mlir:[[# @LINE + 1]]:3: error: differentiation of 'test.op' is not supported
  %t = "test.op"(%e) : (tensor<4xf32>) -> tensor<4xf32>
  return %t : tensor<4xf32>
}
func.func @main(%a: tensor<4xf32>, %ta: tensor<4xf32>) -> tensor<4xf32> {
  %r, %tr = autodiff.jvp @f(%a, %ta) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %tr : tensor<4xf32>
}


// -----

// Reinterpreting an active value's bits: its derivative would be lost (never a silent zero).
func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {
  // CHECK: autodiff-forward-invalid.mlir:[[# @LINE + 1]]:3: error: 'arith.bitcast' reinterprets the bits of %x, which carries a derivative: there is no derivative gradir can compute for that
  %b = arith.bitcast %x : tensor<4xf64> to tensor<4xi64>
  %y = arith.bitcast %b : tensor<4xi64> to tensor<4xf64>
  %z = arith.addf %y, %x : tensor<4xf64>
  return %z : tensor<4xf64>
}
func.func @main(%x: tensor<4xf64>, %ct: tensor<4xf64>) -> tensor<4xf64> {
  %r:2 = autodiff.jvp @f(%x, %ct) : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return %r#1 : tensor<4xf64>
}

// -----

// Writing an active value to memory: a later load would carry no derivative.
func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {
  %c0 = arith.constant 0 : index
  %m = memref.alloc() : memref<4xf64>
  %s = tensor.extract %x[%c0] : tensor<4xf64>
  // CHECK: autodiff-forward-invalid.mlir:[[# @LINE + 1]]:3: error: 'memref.store' writes %s, which carries a derivative, to memory: gradir differentiates values (tensors and scalars), not memory
  memref.store %s, %m[%c0] : memref<4xf64>
  %e = math.exp %x : tensor<4xf64>
  return %e : tensor<4xf64>
}
func.func @main(%x: tensor<4xf64>, %ct: tensor<4xf64>) -> tensor<4xf64> {
  %r:2 = autodiff.jvp @f(%x, %ct) : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return %r#1 : tensor<4xf64>
}
