// Verifier messages of matmul, shape ops, reductions, softmax and select.
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%a: tensor<4x8xf32>, %b: tensor<7x3xf32>) -> tensor<4x3xf32> {
  // CHECK: error: 'autodiff.matmul' op contraction dimensions do not match: lhs 4x8 has K=8, rhs 7x3 has K=7
  %0 = autodiff.matmul %a, %b : (tensor<4x8xf32>, tensor<7x3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @f(%a: tensor<2x4x8xf32>, %b: tensor<8x3xf32>) -> tensor<2x4x3xf32> {
  // CHECK: error: 'autodiff.matmul' op operands must both be rank 2 ([M,K]x[K,N]) or both rank 3 ([B,M,K]x[B,K,N]), got ranks 3 and 2
  %0 = autodiff.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x3xf32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// -----

func.func @f(%a: tensor<2x4x8xf32>, %b: tensor<3x8x3xf32>) -> tensor<2x4x3xf32> {
  // CHECK: error: 'autodiff.matmul' op batch dimensions do not match: 2 and 3
  %0 = autodiff.matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x3xf32>) -> tensor<2x4x3xf32>
  return %0 : tensor<2x4x3xf32>
}

// -----

func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) -> tensor<4x4xf32> {
  // CHECK: error: 'autodiff.matmul' op result shape 4x4 does not match the product shape 4x3
  %0 = autodiff.matmul %a, %b : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @f(%a: tensor<4x8xf32>) -> tensor<8x4xf32> {
  // CHECK: error: 'autodiff.transpose' op permutation [0, 0] is not a permutation of 0..1 for a rank-2 operand
  %0 = autodiff.transpose %a {permutation = array<i64: 0, 0>} : tensor<4x8xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

// -----

func.func @f(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK: error: 'autodiff.transpose' op result shape 4x8 does not match the permuted shape 8x4
  %0 = autodiff.transpose %a {permutation = array<i64: 1, 0>} : tensor<4x8xf32> -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @f(%a: tensor<4x8xf32>) -> tensor<5x6xf32> {
  // CHECK: error: 'autodiff.reshape' op cannot reshape 4x8 (32 elements) to 5x6 (30 elements)
  %0 = autodiff.reshape %a : tensor<4x8xf32> -> tensor<5x6xf32>
  return %0 : tensor<5x6xf32>
}

// -----

func.func @f(%a: tensor<4x8xf32>) -> tensor<32xf64> {
  // CHECK: error: 'autodiff.reshape' op element types must match: operand has f32, result has f64
  %0 = autodiff.reshape %a : tensor<4x8xf32> -> tensor<32xf64>
  return %0 : tensor<32xf64>
}

// -----

func.func @f(%a: tensor<3xf32>) -> tensor<2x4xf32> {
  // CHECK: error: 'autodiff.broadcast_to' op operand shape 3 does not broadcast to result shape 2x4
  %0 = autodiff.broadcast_to %a : tensor<3xf32> -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @f(%a: tensor<2x4xf32>) -> tensor<3xf32> {
  // CHECK: error: 'autodiff.sum_to_size' op result shape 3 does not broadcast to operand shape 2x4
  %0 = autodiff.sum_to_size %a : tensor<2x4xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @f(%a: tensor<2x4xf32>) -> tensor<2xf32> {
  // CHECK: error: 'autodiff.sum' op dim 2 is out of range for a rank-2 operand (expected 0 <= dim < 2)
  %0 = autodiff.sum %a {dims = array<i64: 2>} : tensor<2x4xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @f(%a: tensor<2x4xf32>) -> tensor<f32> {
  // CHECK: error: 'autodiff.mean' op dims [1, 1] contain duplicates
  %0 = autodiff.mean %a {dims = array<i64: 1, 1>} : tensor<2x4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @f(%a: tensor<2x4xf32>) -> tensor<2xf32> {
  // CHECK: error: 'autodiff.max' op result shape 2 does not match the reduced shape (keepdim = true) 2x1
  %0 = autodiff.max %a {dims = array<i64: 1>, keepdim = true} : tensor<2x4xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @f(%a: tensor<2x4xf32>) -> tensor<2x1xf32> {
  // CHECK: error: 'autodiff.sum' op result shape 2x1 does not match the reduced shape (keepdim = false) 2
  %0 = autodiff.sum %a {dims = array<i64: 1>} : tensor<2x4xf32> -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @f(%a: tensor<2x4xf32>) -> tensor<f32> {
  // An empty `dims` reduces nothing (omit `dims` to reduce every dimension).
  // CHECK: error: 'autodiff.sum' op result shape scalar does not match the reduced shape (keepdim = false) 2x4
  %0 = autodiff.sum %a {dims = array<i64>} : tensor<2x4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @f(%a: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // CHECK: error: 'autodiff.softmax' op dim 2 is out of range for a rank-2 operand (expected 0 <= dim < 2)
  %0 = autodiff.softmax %a {dim = 2 : i64} : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @f(%a: tensor<2x4xf32>) -> tensor<2x4xf32> {
  // CHECK: error: 'autodiff.log_softmax' op dim -1 is out of range for a rank-2 operand (expected 0 <= dim < 2)
  %0 = autodiff.log_softmax %a {dim = -1 : i64} : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @f(%c: tensor<4xf32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: error: 'autodiff.select' op condition must be a static tensor of i1, got tensor<4xf32>
  %0 = autodiff.select %c, %a, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%c: tensor<3xi1>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: error: 'autodiff.select' op operand shapes 3, 4, 4 are not broadcast-compatible
  %0 = autodiff.select %c, %a, %a : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) -> tensor<4xf32> {
  // CHECK: error: 'autodiff.select' op element types must match: true value has f32, false value has f16
  %0 = autodiff.select %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
