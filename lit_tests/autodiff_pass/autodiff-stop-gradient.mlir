// autodiff.stop_gradient: the value passes, no derivative flows through it. In
// f(x) = sum(stop_gradient(x) * x), reverse mode has no grad_of for stop_gradient and the
// mul's backward gives only the gradient of its second operand; forward mode's tangent
// has the one term x_t * stop_gradient(x). After lowering, nothing of it is left.
// RUN: autodiff-opt %s -p autodiff-reverse,autodiff-forward,autodiff-specialize-zero,dce | filecheck %s
// RUN: autodiff-opt %s --pipeline linalg | filecheck %s --check-prefix=LINALG

// CHECK-LABEL: func.func @f_jvp_0(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf64>, %[[T:[^:]*]]: tensor<4xf64>)
// CHECK:         %[[S:.*]] = autodiff.stop_gradient %[[X]] : tensor<4xf64>
// CHECK:         autodiff.mul %[[S]], %[[T]]
// CHECK-NOT:     autodiff.mul %[[T]]
// CHECK:         func.return

// CHECK-LABEL: func.func @f_vjp_0(
// CHECK:         %[[S:.*]] = autodiff.stop_gradient
// CHECK-NOT:     grad_of "autodiff.stop_gradient"
// CHECK:         %[[G:.*]] = autodiff.grad_of "autodiff.mul"(%{{.*}}) : (tensor<4xf64>) -> tensor<4xf64> {
// CHECK:           autodiff.mul %{{.*}}, %[[S]]
// CHECK-NEXT:      autodiff.yield
// CHECK-NOT:     grad_of "autodiff.stop_gradient"
// CHECK:         func.return %{{.*}}, %[[G]]

// LINALG-NOT: stop_gradient

func.func @f(%x: tensor<4xf64>) -> tensor<f64> {
  %s = autodiff.stop_gradient %x : tensor<4xf64>
  %p = autodiff.mul %s, %x : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %l = autodiff.sum %p : tensor<4xf64> -> tensor<f64>
  return %l : tensor<f64>
}
func.func @g(%x: tensor<4xf64>) -> tensor<4xf64> {
  %d = autodiff.grad @f(%x) : (tensor<4xf64>) -> tensor<4xf64>
  return %d : tensor<4xf64>
}
func.func @h(%x: tensor<4xf64>, %t: tensor<4xf64>) -> (tensor<f64>, tensor<f64>) {
  %r:2 = autodiff.jvp @f(%x, %t) {wrt = array<i64: 0>} : (tensor<4xf64>, tensor<4xf64>) -> (tensor<f64>, tensor<f64>)
  return %r#0, %r#1 : tensor<f64>, tensor<f64>
}
