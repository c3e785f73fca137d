// Verifier messages of the elementwise ops.
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%a: tensor<4x8xf32>, %b: tensor<7xf32>) -> tensor<4x8xf32> {
  // CHECK: elementwise_invalid.mlir:[[# @LINE + 1]]:3: error: 'autodiff.mul' op operand shapes 4x8 and 7 are not broadcast-compatible
  %0 = autodiff.mul %a, %b : (tensor<4x8xf32>, tensor<7xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

func.func @f(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<8x8xf32> {
  // CHECK: error: 'autodiff.add' op result shape 8x8 does not match the broadcast shape 4x8
  %0 = autodiff.add %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @f(%a: tensor<4xf32>, %b: tensor<4xf64>) -> tensor<4xf32> {
  // CHECK: error: 'autodiff.sub' op element types must match: lhs has f32, rhs has f64
  %0 = autodiff.sub %a, %b : (tensor<4xf32>, tensor<4xf64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%a: tensor<4xi32>) -> tensor<4xi32> {
  // CHECK: error: 'autodiff.exp' op operand must have a float element type (f16, bf16, f32 or f64), got tensor<4xi32>
  %0 = autodiff.exp %a : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @f(%a: tensor<?xf32>) -> tensor<?xf32> {
  // CHECK: error: 'autodiff.log' op operand must have a static shape, got tensor<?xf32>
  %0 = autodiff.log %a : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @f(%a: f32, %b: f32) -> f32 {
  // CHECK: error: 'autodiff.div' op f32 should be of base attribute tensor
  %0 = "autodiff.div"(%a, %b) : (f32, f32) -> f32
  return %0 : f32
}

// -----

func.func @f(%a: tensor<4xf32>) -> tensor<5xf32> {
  // Unary ops keep the operand type.
  // CHECK: error: 'autodiff.neg' op attribute tensor<4xf32> expected from variable 'T', but got tensor<5xf32>
  %0 = "autodiff.neg"(%a) : (tensor<4xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}
