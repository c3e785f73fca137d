// AutogradZero propagation: zero sides of autograd_add fold away, a grad_of
// whose operands are all zero becomes zeros, unread gradients are dropped.
// RUN: autodiff-opt %s --split-input-file -p autodiff-specialize-zero | filecheck %s

// CHECK-LABEL: func.func @sums(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xf32>)
func.func @sums(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  // CHECK-NEXT: %[[Z:.*]] = autodiff.autograd_zero : tensor<4xf32>
  // CHECK-NEXT: return %[[A]], %[[A]], %[[Z]]
  %z = autodiff.autograd_zero : tensor<4xf32>
  %zero_plus_a = autodiff.autograd_add %z, %a : tensor<4xf32>
  %a_plus_zero = autodiff.autograd_add %a, %z : tensor<4xf32>
  %zero_plus_zero = autodiff.autograd_add %z, %z : tensor<4xf32>
  return %zero_plus_a, %a_plus_zero, %zero_plus_zero : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Linearity: zero in, zero out; the zeros then fold the sum that follows.
// CHECK-LABEL: func.func @linear(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>, %[[Y:[^:]*]]: tensor<4xf32>, %[[G:[^:]*]]: tensor<4xf32>)
func.func @linear(%x: tensor<4xf32>, %y: tensor<4xf32>, %g: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  // CHECK-NEXT: %[[DY:.*]] = autodiff.autograd_zero : tensor<4xf32>
  // CHECK-NEXT: return %[[G]], %[[DY]]
  %z = autodiff.autograd_zero : tensor<4xf32>
  %dx, %dy = autodiff.grad_of "autodiff.mul" (%z) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%d: tensor<4xf32>):
    %a = autodiff.mul %d, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %b = autodiff.mul %d, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    autodiff.yield %a, %b : tensor<4xf32>, tensor<4xf32>
  }
  %sum = autodiff.autograd_add %dx, %g : tensor<4xf32>
  return %sum, %dy : tensor<4xf32>, tensor<4xf32>
}

// -----

// A grad_of with a non-zero operand stays, but the gradient nobody reads (dy)
// and the backward code computing it go.
// CHECK-LABEL: func.func @unread(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>, %[[Y:[^:]*]]: tensor<4xf32>, %[[G:[^:]*]]: tensor<4xf32>)
func.func @unread(%x: tensor<4xf32>, %y: tensor<4xf32>, %g: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: %[[DX:.*]] = autodiff.grad_of "autodiff.mul"(%[[G]]) : (tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: ^{{.*}}(%[[D:.*]]: tensor<4xf32>):
  // CHECK-NEXT:   %[[A:.*]] = autodiff.mul %[[D]], %[[Y]]
  // CHECK-NEXT:   autodiff.yield %[[A]] : tensor<4xf32>
  // CHECK-NEXT: }
  // CHECK-NEXT: return %[[DX]]
  %dx, %dy = autodiff.grad_of "autodiff.mul" (%g) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ^bb0(%d: tensor<4xf32>):
    %a = autodiff.mul %d, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %b = autodiff.mul %d, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    autodiff.yield %a, %b : tensor<4xf32>, tensor<4xf32>
  }
  return %dx : tensor<4xf32>
}

// -----

// Only AD bookkeeping is removed: an unused user op stays.
// CHECK-LABEL: func.func @user_code(
func.func @user_code(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK-NEXT: autodiff.exp
  // CHECK-NEXT: return
  %unused = autodiff.exp %x : tensor<4xf32>
  %z = autodiff.autograd_zero : tensor<4xf32>
  %s = autodiff.autograd_add %x, %z : tensor<4xf32>
  return %s : tensor<4xf32>
}
