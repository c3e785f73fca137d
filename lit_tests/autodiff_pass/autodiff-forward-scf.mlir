// Forward mode through scf.for: the loop carries the state's tangent as one
// more iteration argument, updated by the tangent code of the body's ops.
// RUN: autodiff-opt %s -p autodiff-forward | filecheck %s

func.func @loop(%x: tensor<3xf32>, %w: tensor<3xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %y = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<3xf32>) {
    %a = autodiff.mul %acc, %w : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %t = autodiff.tanh %a : tensor<3xf32>
    scf.yield %t : tensor<3xf32>
  }
  %s = autodiff.sum %y : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @jloop(%x: tensor<3xf32>, %w: tensor<3xf32>, %tx: tensor<3xf32>) -> (tensor<f32>, tensor<f32>) {
  %r, %t = autodiff.jvp @loop(%x, %w, %tx) {wrt = array<i64: 0>} : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<f32>, tensor<f32>)
  return %r, %t : tensor<f32>, tensor<f32>
}
// CHECK-LABEL: func.func @loop_jvp_0(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3xf32>, %[[W:[^:]*]]: tensor<3xf32>, %[[TX:[^:]*]]: tensor<3xf32>)
// CHECK:         %[[Y:[^,]*]], %[[TY:[^ ]*]] = scf.for %{{.*}} iter_args(%[[ACC:[^ ]*]] = %[[X]], %[[TACC:[^ ]*]] = %[[TX]]) -> (tensor<3xf32>, tensor<3xf32>)
// CHECK:           %[[A:.*]] = autodiff.mul %[[ACC]], %[[W]]
// CHECK:           %[[TA:.*]] = autodiff.mul %[[TACC]], %[[W]]
// CHECK:           %[[T:.*]] = autodiff.tanh %[[A]]
// CHECK:           %[[TT:.*]] = autodiff.mul %[[TA]], %{{.*}}
// CHECK:           scf.yield %[[T]], %[[TT]]
// CHECK:         %[[S:.*]] = autodiff.sum %[[Y]]
// CHECK:         %[[TS:.*]] = autodiff.sum %[[TY]]
// CHECK:         func.return %[[S]], %[[TS]]

// An inactive float loop state (updated by an op with no rule) gets no tangent.
func.func @decay(%x: tensor<3xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %d0 = arith.constant dense<0.5> : tensor<3xf32>
  %y:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x, %d = %d0) -> (tensor<3xf32>, tensor<3xf32>) {
    %a = autodiff.mul %acc, %d : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %dn = "test.op"(%d) : (tensor<3xf32>) -> tensor<3xf32>
    scf.yield %a, %dn : tensor<3xf32>, tensor<3xf32>
  }
  %r = autodiff.sum %y#0 : tensor<3xf32> -> tensor<f32>
  return %r : tensor<f32>
}
func.func @jdecay(%x: tensor<3xf32>, %tx: tensor<3xf32>) -> (tensor<f32>, tensor<f32>) {
  %r, %t = autodiff.jvp @decay(%x, %tx) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<f32>, tensor<f32>)
  return %r, %t : tensor<f32>, tensor<f32>
}
// CHECK-LABEL: func.func @decay_jvp_0(
// CHECK:         scf.for %{{.*}} iter_args(%[[ACC:[^ ]*]] = %{{.*}}, %[[D:[^ ]*]] = %{{.*}}, %[[TACC:[^ ]*]] = %{{.*}}) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK:           autodiff.mul %[[TACC]], %[[D]]
// CHECK:           "test.op"(%[[D]])
// CHECK:           scf.yield
