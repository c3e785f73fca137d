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

