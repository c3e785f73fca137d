// grad_of regions are inlined: block arguments become the operands, results
// become the yielded values.
// RUN: autodiff-opt %s -p autodiff-lower-grad-of | filecheck %s
// RUN: autodiff-opt %s -p autodiff-reverse,autodiff-lower-grad-of | filecheck %s --check-prefix=REVERSE

// CHECK-LABEL: func.func @backward_of_mul(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>, %[[Y:[^:]*]]: tensor<4xf32>, %[[G:[^:]*]]: tensor<4xf32>)
func.func @backward_of_mul(%x: tensor<4xf32>, %y: tensor<4xf32>, %g: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK-NEXT: %[[A:.*]] = autodiff.mul %[[G]], %[[Y]]
  // CHECK-NEXT: %[[B:.*]] = autodiff.mul %[[G]], %[[X]]
  // CHECK-NEXT: return %[[A]], %[[B]], %[[G]]
  %dx, %dy, %pass = autodiff.grad_of "autodiff.mul" (%g) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%d: tensor<4xf32>):
    %a = autodiff.mul %d, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %b = autodiff.mul %d, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    autodiff.yield %a, %b, %d : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  }
  return %dx, %dy, %pass : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = autodiff.exp %a : tensor<4xf32>
  return %e : tensor<4xf32>
}
func.func @main(%a: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %r, %da = autodiff.vjp @f(%a, %ct) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %da : tensor<4xf32>
}
// REVERSE-LABEL: func.func @f_vjp_0(
// REVERSE-SAME:    %[[A:[^:]*]]: tensor<4xf32>, %[[CT:[^:]*]]: tensor<4xf32>)
// REVERSE-NEXT:    %[[E:.*]] = autodiff.exp %[[A]]
// REVERSE-NEXT:    %[[DA:.*]] = autodiff.mul %[[CT]], %[[E]]
// REVERSE-NEXT:    return %[[E]], %[[DA]]
