// Verifier messages of the entry ops.
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect | filecheck %s

func.func @f(%x: tensor<4xf32>) {
  // CHECK: error: 'autodiff.grad' op callee @missing could not be found
  %0 = autodiff.grad @missing(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

"memref.global"() <{sym_name = "g", sym_visibility = "private", type = memref<4xf32>, initial_value}> : () -> ()
func.func @f(%x: tensor<4xf32>) {
  // CHECK: error: 'autodiff.grad' op callee @g is a 'memref.global', expected a 'func.func'
  %0 = autodiff.grad @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @loss(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @f(%x: tensor<4xf32>) {
  // CHECK: error: 'autodiff.grad' op callee @loss must return exactly one 0-d float tensor or float scalar (a loss), but returns (tensor<4xf32>)
  %0 = autodiff.grad @loss(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %0 = autodiff.sum %x : tensor<4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @f(%x: tensor<4xf32>) {
  // CHECK: error: 'autodiff.grad' op wrt index 1 is out of range: callee @loss has 1 arguments
  %0 = autodiff.grad @loss(%x) {wrt = array<i64: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %0 = autodiff.sum %x : tensor<4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @f(%x: tensor<4xf32>) {
  // CHECK: error: 'autodiff.grad' op wrt indices [0, 0] contain duplicates
  %0:2 = autodiff.grad @loss(%x) {wrt = array<i64: 0, 0>} : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @loss(%x: tensor<4xf32>, %n: tensor<4xi32>) -> tensor<f32> {
  %0 = autodiff.sum %x : tensor<4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @f(%x: tensor<4xf32>, %n: tensor<4xi32>) {
  // CHECK: error: 'autodiff.grad' op wrt index 1 names argument of type tensor<4xi32>, expected a float tensor or float scalar
  %0 = autodiff.grad @loss(%x, %n) {wrt = array<i64: 1>} : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %0 = autodiff.sum %x : tensor<4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @f(%x: tensor<3xf32>) {
  // CHECK: error: 'autodiff.grad' op operand types (tensor<3xf32>) do not match the expected (tensor<4xf32>) (the callee's arguments) for callee @loss
  %0 = autodiff.grad @loss(%x) : (tensor<3xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %0 = autodiff.sum %x : tensor<4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @f(%x: tensor<4xf32>) {
  // CHECK: error: 'autodiff.grad' op result types (tensor<4xf32>, tensor<4xf32>) do not match the expected (tensor<4xf32>) (one gradient per wrt argument) for callee @loss
  %0:2 = autodiff.grad @loss(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @f(%x: tensor<4xf32>) {
  // CHECK: error: 'autodiff.vjp' op operand types (tensor<4xf32>) do not match the expected (tensor<4xf32>, tensor<4xf32>) (the callee's arguments, then one cotangent per result) for callee @g
  %0:2 = autodiff.vjp @g(%x) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @f(%x: tensor<4xf32>) {
  // CHECK: error: 'autodiff.vjp' op result types (tensor<4xf32>) do not match the expected (tensor<4xf32>, tensor<4xf32>) (the callee's results, then one gradient per wrt argument) for callee @g
  %0 = autodiff.vjp @g(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @g(%x: tensor<4xf32>) -> memref<4xf32> {
  %0 = "test.cast"(%x) : (tensor<4xf32>) -> memref<4xf32>
  return %0 : memref<4xf32>
}
func.func @f(%x: tensor<4xf32>, %c: memref<4xf32>) {
  // CHECK: error: 'autodiff.vjp' op callee @g result 0 has type memref<4xf32>, expected a float or integer tensor or scalar
  %0:2 = autodiff.vjp @g(%x, %c) : (tensor<4xf32>, memref<4xf32>) -> (memref<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @g(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @f(%x: tensor<4xf32>) {
  // CHECK: error: 'autodiff.jvp' op operand types (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) do not match the expected (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) (the callee's arguments, then one tangent per wrt argument) for callee @g
  %0:2 = autodiff.jvp @g(%x, %x, %x) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func @f(%x: tensor<4xf32>) {
  // CHECK: error: 'autodiff.jvp' op result types (tensor<4xf32>) do not match the expected (tensor<4xf32>, tensor<4xf32>) (the callee's results, then one tangent per result) for callee @g
  %0 = autodiff.jvp @g(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}
