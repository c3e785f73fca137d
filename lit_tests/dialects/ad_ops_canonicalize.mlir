// `autograd_add` with a zero side is its other side: the op's canonicalization
// pattern, which autodiff-specialize-zero and convert-autodiff-to-linalg use too.
// RUN: autodiff-opt %s -p canonicalize | filecheck %s

// CHECK-LABEL: func.func @zero_sides(
// CHECK-SAME:    %[[G:[^:]*]]: tensor<4xf32>
// CHECK-NEXT:    %[[S:.*]] = autodiff.autograd_add %[[G]], %[[G]] : tensor<4xf32>
// CHECK-NEXT:    return %[[G]], %[[G]], %[[S]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
func.func @zero_sides(%g: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %z = autodiff.autograd_zero : tensor<4xf32>
  %left = autodiff.autograd_add %z, %g : tensor<4xf32>
  %right = autodiff.autograd_add %g, %z : tensor<4xf32>
  %both = autodiff.autograd_add %g, %g : tensor<4xf32>
  return %left, %right, %both : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @zero_plus_zero(
// CHECK-NEXT:    %[[Z:.*]] = autodiff.autograd_zero : tensor<2x3xf32>
// CHECK-NEXT:    return %[[Z]] : tensor<2x3xf32>
func.func @zero_plus_zero() -> tensor<2x3xf32> {
  %z = autodiff.autograd_zero : tensor<2x3xf32>
  %s = autodiff.autograd_add %z, %z : tensor<2x3xf32>
  return %s : tensor<2x3xf32>
}
