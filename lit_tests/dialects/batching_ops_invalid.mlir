// Verifier messages of vmap, jacobian and hessian.
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>) -> tensor<2x4xf64> {
  %y = autodiff.matmul %x, %w : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  return %y : tensor<2x4xf64>
}
func.func @main(%w: tensor<3x4xf64>, %xs: tensor<5x2x3xf64>) {
  // CHECK: batching_ops_invalid.mlir:[[# @LINE + 1]]:3: error: 'autodiff.vmap' op in_axes has 1 entries, callee @f has 2 arguments
  %0 = autodiff.vmap @f(%w, %xs) {in_axes = array<i64: 0>, out_axes = array<i64: 0>, size = 5 : i64} : (tensor<3x4xf64>, tensor<5x2x3xf64>) -> tensor<5x2x4xf64>
  return
}

// -----

func.func @f(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>) -> tensor<2x4xf64> {
  %y = autodiff.matmul %x, %w : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  return %y : tensor<2x4xf64>
}
func.func @main(%w: tensor<3x4xf64>, %xs: tensor<5x2x3xf64>) {
  // CHECK: error: 'autodiff.vmap' op out_axes has 2 entries, callee @f has 1 results
  %0 = autodiff.vmap @f(%w, %xs) {in_axes = array<i64: -1, 0>, out_axes = array<i64: 0, 0>, size = 5 : i64} : (tensor<3x4xf64>, tensor<5x2x3xf64>) -> tensor<5x2x4xf64>
  return
}

// -----

func.func @f(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>) -> tensor<2x4xf64> {
  %y = autodiff.matmul %x, %w : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  return %y : tensor<2x4xf64>
}
func.func @main(%w: tensor<3x4xf64>, %xs: tensor<5x2x3xf64>) {
  // CHECK: error: 'autodiff.vmap' op operand types (tensor<3x4xf64>, tensor<5x2x3xf64>) do not match the expected (tensor<3x4xf64>, tensor<6x2x3xf64>) (the callee's arguments, batched at in_axes) for callee @f
  %0 = autodiff.vmap @f(%w, %xs) {in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>, size = 6 : i64} : (tensor<3x4xf64>, tensor<5x2x3xf64>) -> tensor<6x2x4xf64>
  return
}

// -----

func.func @f(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>) -> tensor<2x4xf64> {
  %y = autodiff.matmul %x, %w : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  return %y : tensor<2x4xf64>
}
func.func @main(%w: tensor<3x4xf64>, %xs: tensor<5x2x3xf64>) {
  // CHECK: error: 'autodiff.vmap' op in_axes[1] = 3 is out of range for argument 1 of type tensor<2x3xf64> (expected -1 (not batched) or 0 <= axis <= 2)
  %0 = autodiff.vmap @f(%w, %xs) {in_axes = array<i64: -1, 3>, out_axes = array<i64: 0>, size = 5 : i64} : (tensor<3x4xf64>, tensor<5x2x3xf64>) -> tensor<5x2x4xf64>
  return
}

// -----

func.func @f(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>) -> tensor<2x4xf64> {
  %y = autodiff.matmul %x, %w : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  return %y : tensor<2x4xf64>
}
func.func @main(%w: tensor<3x4xf64>, %xs: tensor<5x2x3xf64>) {
  // CHECK: error: 'autodiff.vmap' op batch size must be at least 1, got 0
  %0 = autodiff.vmap @f(%w, %xs) {in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>, size = 0 : i64} : (tensor<3x4xf64>, tensor<5x2x3xf64>) -> tensor<5x2x4xf64>
  return
}

// -----

func.func @f(%n: vector<4xi32>, %x: tensor<2xf64>) -> tensor<2xf64> {
  return %x : tensor<2xf64>
}
func.func @main(%n: vector<4xi32>, %x: tensor<2xf64>) {
  // CHECK: error: 'autodiff.vmap' op in_axes[0] = 0 batches argument 0 of type vector<4xi32>, expected a tensor or a scalar of floats, integers or index
  %0 = autodiff.vmap @f(%n, %x) {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>, size = 5 : i64} : (vector<4xi32>, tensor<2xf64>) -> tensor<5x2xf64>
  return
}

// -----

// A float scalar is batched at axis 0 only: its batch is tensor<size x f64>.
func.func @f(%s: f64, %x: tensor<2xf64>) -> f64 {
  return %s : f64
}
func.func @main(%s: tensor<4xf64>, %x: tensor<2xf64>) {
  // CHECK: error: 'autodiff.vmap' op in_axes[0] = 1 is out of range for argument 0 of type f64 (expected -1 (not batched) or 0 <= axis <= 0)
  %0 = autodiff.vmap @f(%s, %x) {in_axes = array<i64: 1, -1>, out_axes = array<i64: 0>, size = 4 : i64} : (tensor<4xf64>, tensor<2xf64>) -> tensor<4xf64>
  return
}

// -----

// A tensor of complex numbers is not batched (one of integers or of floats, of dynamic
// shape too, is).
func.func @f(%x: tensor<?xcomplex<f64>>) -> tensor<?xcomplex<f64>> {
  return %x : tensor<?xcomplex<f64>>
}
func.func @main(%x: tensor<5x?xcomplex<f64>>) {
  // CHECK: error: 'autodiff.vmap' op in_axes[0] = 0 batches argument 0 of type tensor<?xcomplex<f64>>, expected a tensor or a scalar of floats, integers or index
  %0 = autodiff.vmap @f(%x) {in_axes = array<i64: 0>, out_axes = array<i64: 0>, size = 5 : i64} : (tensor<5x?xcomplex<f64>>) -> tensor<5x?xcomplex<f64>>
  return
}

// -----

func.func @main(%x: tensor<2xf64>) {
  // CHECK: error: 'autodiff.vmap' op callee @missing could not be found
  %0 = autodiff.vmap @missing(%x) {in_axes = array<i64: 0>, out_axes = array<i64: 0>, size = 2 : i64} : (tensor<2xf64>) -> tensor<2xf64>
  return
}

// -----

func.func @f(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>) -> tensor<2x4xf64> {
  %y = autodiff.matmul %x, %w : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  return %y : tensor<2x4xf64>
}
func.func @main(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>) {
  // CHECK: error: 'autodiff.jacobian' op result types (tensor<2x4x3x3xf64>) do not match the expected (tensor<2x4x3x4xf64>) (one Jacobian per (result, wrt argument), result-major) for callee @f
  %0 = autodiff.jacobian @f(%w, %x) {wrt = array<i64: 0>} : (tensor<3x4xf64>, tensor<2x3xf64>) -> tensor<2x4x3x3xf64>
  return
}

// -----

func.func @f(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>) -> tensor<2x4xf64> {
  %y = autodiff.matmul %x, %w : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  return %y : tensor<2x4xf64>
}
func.func @main(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>) {
  // CHECK: error: 'autodiff.jacobian' op mode must be "rev" or "fwd", got "backward"
  %0 = autodiff.jacobian @f(%w, %x) {wrt = array<i64: 0>, mode = "backward"} : (tensor<3x4xf64>, tensor<2x3xf64>) -> tensor<2x4x3x4xf64>
  return
}

// -----

func.func @f(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>) -> tensor<2x4xf64> {
  %y = autodiff.matmul %x, %w : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  return %y : tensor<2x4xf64>
}
func.func @main(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>) {
  // CHECK: error: 'autodiff.jacobian' op wrt index 2 is out of range: callee @f has 2 arguments
  %0 = autodiff.jacobian @f(%w, %x) {wrt = array<i64: 2>} : (tensor<3x4xf64>, tensor<2x3xf64>) -> tensor<2x4x3x4xf64>
  return
}

// -----

func.func @f(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>) -> tensor<2x4xf64> {
  %y = autodiff.matmul %x, %w : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  return %y : tensor<2x4xf64>
}
func.func @main(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>) {
  // CHECK: error: 'autodiff.hessian' op callee @f must return exactly one 0-d float tensor or float scalar (a loss), but returns (tensor<2x4xf64>)
  %0 = autodiff.hessian @f(%w, %x) {wrt = array<i64: 0>} : (tensor<3x4xf64>, tensor<2x3xf64>) -> tensor<3x4x3x4xf64>
  return
}

// -----

func.func @f(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>) -> tensor<2x4xf64> {
  %y = autodiff.matmul %x, %w : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  return %y : tensor<2x4xf64>
}
func.func @main(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>, %cts: tensor<6x2x4xf64>) {
  // CHECK: error: 'autodiff.vjp' op result types (tensor<2x4xf64>, tensor<3x4xf64>) do not match the expected (tensor<2x4xf64>, tensor<6x3x4xf64>) (the callee's results, then one gradient per wrt argument) for callee @f
  %0:2 = autodiff.vjp @f(%w, %x, %cts) {wrt = array<i64: 0>, is_grads_batched} : (tensor<3x4xf64>, tensor<2x3xf64>, tensor<6x2x4xf64>) -> (tensor<2x4xf64>, tensor<3x4xf64>)
  return
}

// -----

func.func @f(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>) -> tensor<2x4xf64> {
  %y = autodiff.matmul %x, %w : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  return %y : tensor<2x4xf64>
}
func.func @main(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>, %cts: tensor<6x2x5xf64>) {
  // CHECK: error: 'autodiff.vjp' op operand types (tensor<3x4xf64>, tensor<2x3xf64>, tensor<6x2x5xf64>) do not match the expected (tensor<3x4xf64>, tensor<2x3xf64>, tensor<6x2x4xf64>)
  %0:2 = autodiff.vjp @f(%w, %x, %cts) {wrt = array<i64: 0>, is_grads_batched} : (tensor<3x4xf64>, tensor<2x3xf64>, tensor<6x2x5xf64>) -> (tensor<2x4xf64>, tensor<6x3x4xf64>)
  return
}

// -----

func.func @f(%x: f64) -> i32 {
  %i = arith.fptosi %x : f64 to i32
  return %i : i32
}
func.func @main(%x: f64, %cts: tensor<6xi32>) {
  // CHECK: error: 'autodiff.vjp' op is_grads_batched: callee @f result 0 has type i32, expected a float tensor or float scalar
  %0:2 = autodiff.vjp @f(%x, %cts) {wrt = array<i64: 0>, is_grads_batched} : (f64, tensor<6xi32>) -> (i32, tensor<6xf64>)
  return
}
