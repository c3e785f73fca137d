// Round trip of the entry ops grad, vjp and jvp.
// RUN: autodiff-opt %s | filecheck %s
// RUN: autodiff-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: autodiff-opt %s --print-op-generic | autodiff-opt | filecheck %s

func.func @loss(%w: tensor<3x4xf32>, %x: tensor<4xf32>, %n: tensor<2xi32>) -> tensor<f32> {
  %0 = autodiff.mul %w, %x : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %1 = autodiff.sum %0 : tensor<3x4xf32> -> tensor<f32>
  return %1 : tensor<f32>
}

func.func @pair(%a: tensor<4xf64>, %b: tensor<4xf64>) -> (tensor<4xf64>, tensor<f64>) {
  %0 = autodiff.mul %a, %b : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  %1 = autodiff.sum %0 : tensor<4xf64> -> tensor<f64>
  return %0, %1 : tensor<4xf64>, tensor<f64>
}

// CHECK-LABEL: func.func @entries(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<3x4xf32>, %[[X:[^:]*]]: tensor<4xf32>, %[[N:[^:]*]]: tensor<2xi32>, %[[A:[^:]*]]: tensor<4xf64>, %[[B:[^:]*]]: tensor<4xf64>, %[[S:[^:]*]]: tensor<f64>
func.func @entries(%w: tensor<3x4xf32>, %x: tensor<4xf32>, %n: tensor<2xi32>, %a: tensor<4xf64>, %b: tensor<4xf64>, %s: tensor<f64>) {
  // wrt defaults to every float-tensor argument (the i32 one is skipped).
  // CHECK: %{{.*}}, %{{.*}} = autodiff.grad @loss(%[[W]], %[[X]], %[[N]]) : (tensor<3x4xf32>, tensor<4xf32>, tensor<2xi32>) -> (tensor<3x4xf32>, tensor<4xf32>)
  // GENERIC: "autodiff.grad"(%{{.*}}, %{{.*}}, %{{.*}}) <{callee = @loss}> : (tensor<3x4xf32>, tensor<4xf32>, tensor<2xi32>) -> (tensor<3x4xf32>, tensor<4xf32>)
  %g:2 = autodiff.grad @loss(%w, %x, %n) : (tensor<3x4xf32>, tensor<4xf32>, tensor<2xi32>) -> (tensor<3x4xf32>, tensor<4xf32>)
  // CHECK: %{{.*}} = autodiff.grad @loss(%[[W]], %[[X]], %[[N]]) {wrt = array<i64: 1>} : (tensor<3x4xf32>, tensor<4xf32>, tensor<2xi32>) -> tensor<4xf32>
  // GENERIC: "autodiff.grad"(%{{.*}}, %{{.*}}, %{{.*}}) <{callee = @loss, wrt = array<i64: 1>}>
  %gx = autodiff.grad @loss(%w, %x, %n) {wrt = array<i64: 1>} : (tensor<3x4xf32>, tensor<4xf32>, tensor<2xi32>) -> tensor<4xf32>
  // vjp: callee arguments, then one cotangent per result; results: primal results, then gradients.
  // CHECK: autodiff.vjp @pair(%[[A]], %[[B]], %[[A]], %[[S]]) {wrt = array<i64: 0>} : (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<f64>) -> (tensor<4xf64>, tensor<f64>, tensor<4xf64>)
  // GENERIC: "autodiff.vjp"
  %v:3 = autodiff.vjp @pair(%a, %b, %a, %s) {wrt = array<i64: 0>} : (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<f64>) -> (tensor<4xf64>, tensor<f64>, tensor<4xf64>)
  // jvp: callee arguments, then one tangent per wrt argument; results: primal results, then tangents.
  // CHECK: autodiff.jvp @pair(%[[A]], %[[B]], %[[A]], %[[B]]) : (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<f64>, tensor<4xf64>, tensor<f64>)
  // GENERIC: "autodiff.jvp"
  %j:4 = autodiff.jvp @pair(%a, %b, %a, %b) : (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<f64>, tensor<4xf64>, tensor<f64>)
  // The generic form with the callee in the attribute dictionary parses too.
  // CHECK: autodiff.grad @loss(%[[W]], %[[X]], %[[N]]) {wrt = array<i64: 0>}
  %gw = "autodiff.grad"(%w, %x, %n) {callee = @loss, wrt = array<i64: 0>} : (tensor<3x4xf32>, tensor<4xf32>, tensor<2xi32>) -> tensor<3x4xf32>
  return
}
