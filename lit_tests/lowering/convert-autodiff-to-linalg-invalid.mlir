// Ops that earlier passes must remove are errors naming that pass and the op's location.
// RUN: autodiff-opt %s -p convert-autodiff-to-linalg --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

func.func @entry(%x: tensor<4xf32>, %seed: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: convert-autodiff-to-linalg-invalid.mlir:[[# @LINE + 1]]:3: error: 'autodiff.vjp' must be removed by autodiff-reverse before convert-autodiff-to-linalg
  %r:2 = autodiff.vjp @f(%x, %seed) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %r#1 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

func.func @tangent(%x: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: convert-autodiff-to-linalg-invalid.mlir:[[# @LINE + 1]]:3: error: 'autodiff.jvp' must be removed by autodiff-forward before convert-autodiff-to-linalg
  %r:2 = autodiff.jvp @f(%x, %t) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %r#1 : tensor<4xf32>
}

// -----

func.func @backward(%g: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // The error is reported before anything is rewritten, even the exp inside grad_of.
  // CHECK: convert-autodiff-to-linalg-invalid.mlir:[[# @LINE + 1]]:3: error: 'autodiff.grad_of' must be removed by autodiff-lower-grad-of before convert-autodiff-to-linalg
  %r = autodiff.grad_of "autodiff.exp" (%g) : (tensor<4xf32>) -> (tensor<4xf32>) {
    %e = autodiff.exp %x : tensor<4xf32>
    %d = autodiff.mul %g, %e : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    autodiff.yield %d : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
