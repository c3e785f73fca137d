// Round trip of the ops reverse mode produces: grad_of, yield, autograd_add, autograd_zero.
// RUN: autodiff-opt %s | filecheck %s
// RUN: autodiff-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: autodiff-opt %s --print-op-generic | autodiff-opt | filecheck %s

// CHECK-LABEL: func.func @backward_of_mul(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x8xf32>, %[[Y:[^:]*]]: tensor<4x8xf32>, %[[G:[^:]*]]: tensor<4x8xf32>
func.func @backward_of_mul(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %g: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK: %[[DX:.*]], %[[DY:.*]] = autodiff.grad_of "autodiff.mul"(%[[G]]) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  // CHECK-NEXT: ^{{.*}}(%[[D:.*]]: tensor<4x8xf32>):
  // CHECK-NEXT:   %[[A:.*]] = autodiff.mul %[[D]], %[[Y]]
  // CHECK-NEXT:   %[[B:.*]] = autodiff.mul %[[D]], %[[X]]
  // CHECK-NEXT:   autodiff.yield %[[A]], %[[B]] : tensor<4x8xf32>, tensor<4x8xf32>
  // CHECK-NEXT: }
  // GENERIC: "autodiff.grad_of"(%{{.*}}) <{name = "autodiff.mul"}> ({
  // GENERIC: "autodiff.yield"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> ()
  %dx, %dy = autodiff.grad_of "autodiff.mul" (%g) : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%d: tensor<4x8xf32>):
    %a = autodiff.mul %d, %y : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    %b = autodiff.mul %d, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
    autodiff.yield %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
  }
  // CHECK: %[[Z:.*]] = autodiff.autograd_zero : tensor<4x8xf32>
  // GENERIC: "autodiff.autograd_zero"() : () -> tensor<4x8xf32>
  %z = autodiff.autograd_zero : tensor<4x8xf32>
  // CHECK: %[[SUM:.*]] = autodiff.autograd_add %[[DX]], %[[Z]] : tensor<4x8xf32>
  // GENERIC: "autodiff.autograd_add"(%{{.*}}, %{{.*}}) : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = autodiff.autograd_add %dx, %z : tensor<4x8xf32>
  // CHECK: return %[[SUM]], %[[DY]]
  return %s, %dy : tensor<4x8xf32>, tensor<4x8xf32>
}

// A grad_of body may also read the incoming gradient directly (no block arguments).
// CHECK-LABEL: func.func @capturing_body(
func.func @capturing_body(%g: tensor<f64>) -> tensor<f64> {
  // CHECK: autodiff.grad_of "autodiff.neg"(%{{.*}}) : (tensor<f64>) -> tensor<f64> {
  // CHECK-NEXT: autodiff.neg
  %r = autodiff.grad_of "autodiff.neg" (%g) : (tensor<f64>) -> tensor<f64> {
    %n = autodiff.neg %g : tensor<f64>
    autodiff.yield %n : tensor<f64>
  }
  return %r : tensor<f64>
}

// Scalar gradients (of tensor.extract results or linalg.fill values) are float scalars.
// CHECK-LABEL: func.func @scalar_gradients(
func.func @scalar_gradients(%g: f32) -> f32 {
  // CHECK: %[[Z:.*]] = autodiff.autograd_zero : f32
  // GENERIC: "autodiff.autograd_zero"() : () -> f32
  %z = autodiff.autograd_zero : f32
  // CHECK: autodiff.autograd_add %{{.*}}, %[[Z]] : f32
  %s = autodiff.autograd_add %g, %z : f32
  return %s : f32
}

// A zero of dynamic shape takes the size of each dynamic dimension, as tensor.empty does.
// CHECK-LABEL: func.func @dynamic_zero(
func.func @dynamic_zero(%n: index, %g: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // CHECK: %[[Z:.*]] = autodiff.autograd_zero(%{{.*}}) : tensor<?x4xf32>
  // GENERIC: "autodiff.autograd_zero"(%{{.*}}) : (index) -> tensor<?x4xf32>
  %z = autodiff.autograd_zero(%n) : tensor<?x4xf32>
  // CHECK: autodiff.autograd_add %{{.*}}, %[[Z]] : tensor<?x4xf32>
  %s = autodiff.autograd_add %g, %z : tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}
