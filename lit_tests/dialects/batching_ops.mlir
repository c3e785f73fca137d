// Round trip of the batched and whole-derivative entry ops vmap, jacobian and hessian, and of
// vjp's is_grads_batched (a batch of cotangents).
// RUN: autodiff-opt %s | filecheck %s
// RUN: autodiff-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: autodiff-opt %s --print-op-generic | autodiff-opt | filecheck %s

func.func @f(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>) -> tensor<2x4xf64> {
  %y = autodiff.matmul %x, %w : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  return %y : tensor<2x4xf64>
}
func.func @loss(%w: tensor<3x4xf64>) -> tensor<f64> {
  %s = autodiff.sum %w : tensor<3x4xf64> -> tensor<f64>
  return %s : tensor<f64>
}

// CHECK-LABEL: func.func @main
// CHECK: autodiff.vmap @f(%{{.*}}, %{{.*}}) {in_axes = array<i64: -1, 1>, out_axes = array<i64: 2>, size = 5 : i64} : (tensor<3x4xf64>, tensor<2x5x3xf64>) -> tensor<2x4x5xf64>
// CHECK: autodiff.jacobian @f(%{{.*}}, %{{.*}}) {wrt = array<i64: 0>, mode = "rev"} : (tensor<3x4xf64>, tensor<2x3xf64>) -> tensor<2x4x3x4xf64>
// CHECK: autodiff.jacobian @f(%{{.*}}, %{{.*}}) : (tensor<3x4xf64>, tensor<2x3xf64>) -> (tensor<2x4x3x4xf64>, tensor<2x4x2x3xf64>)
// CHECK: autodiff.hessian @loss(%{{.*}}) : (tensor<3x4xf64>) -> tensor<3x4x3x4xf64>
// GENERIC: "autodiff.vmap"(%{{.*}}, %{{.*}}) <{callee = @f, in_axes = array<i64: -1, 1>, out_axes = array<i64: 2>, size = 5 : i64}>
// GENERIC: "autodiff.jacobian"(%{{.*}}, %{{.*}}) <{callee = @f, wrt = array<i64: 0>, mode = "rev"}>
// GENERIC: "autodiff.hessian"(%{{.*}}) <{callee = @loss}>
// CHECK: autodiff.vjp @f(%{{.*}}, %{{.*}}, %{{.*}}) {wrt = array<i64: 0>, is_grads_batched} : (tensor<3x4xf64>, tensor<2x3xf64>, tensor<6x2x4xf64>) -> (tensor<2x4xf64>, tensor<6x3x4xf64>)
// GENERIC: "autodiff.vjp"(%{{.*}}, %{{.*}}, %{{.*}}) <{callee = @f, wrt = array<i64: 0>, is_grads_batched}>
func.func @main(%w: tensor<3x4xf64>, %xs: tensor<2x5x3xf64>, %x: tensor<2x3xf64>, %cts: tensor<6x2x4xf64>) {
  %0 = autodiff.vmap @f(%w, %xs) {in_axes = array<i64: -1, 1>, out_axes = array<i64: 2>, size = 5 : i64} : (tensor<3x4xf64>, tensor<2x5x3xf64>) -> tensor<2x4x5xf64>
  %1 = autodiff.jacobian @f(%w, %x) {wrt = array<i64: 0>, mode = "rev"} : (tensor<3x4xf64>, tensor<2x3xf64>) -> tensor<2x4x3x4xf64>
  %2:2 = autodiff.jacobian @f(%w, %x) : (tensor<3x4xf64>, tensor<2x3xf64>) -> (tensor<2x4x3x4xf64>, tensor<2x4x2x3xf64>)
  %3 = autodiff.hessian @loss(%w) : (tensor<3x4xf64>) -> tensor<3x4x3x4xf64>
  %4:2 = autodiff.vjp @f(%w, %x, %cts) {wrt = array<i64: 0>, is_grads_batched} : (tensor<3x4xf64>, tensor<2x3xf64>, tensor<6x2x4xf64>) -> (tensor<2x4xf64>, tensor<6x3x4xf64>)
  return
}
