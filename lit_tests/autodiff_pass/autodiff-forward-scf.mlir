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

// A float scalar state gets a scalar tangent iteration argument; the scalar x,
// the loop's initial value, is also read inside: its tangent is used there too.
func.func @scalar_loop(%x: f64, %w: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %y = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %x) -> f64 {
    %m = arith.mulf %a, %w : f64
    %s = arith.addf %m, %x : f64
    scf.yield %s : f64
  }
  return %y : f64
}
func.func @jscalar_loop(%x: f64, %w: f64, %tx: f64) -> (f64, f64) {
  %r:2 = autodiff.jvp @scalar_loop(%x, %w, %tx) {wrt = array<i64: 0>} : (f64, f64, f64) -> (f64, f64)
  return %r#0, %r#1 : f64, f64
}
// CHECK-LABEL: func.func @scalar_loop_jvp_0(
// CHECK-SAME:    %[[X:[^:]*]]: f64, %[[W:[^:]*]]: f64, %[[TX:[^:]*]]: f64)
// CHECK:         %[[Y:[^,]*]], %[[TY:[^ ]*]] = scf.for %{{.*}} iter_args(%[[A:[^ ]*]] = %[[X]], %[[TA:[^ ]*]] = %[[TX]]) -> (f64, f64)
// CHECK:           %[[M:.*]] = arith.mulf %[[A]], %[[W]] : f64
// CHECK:           %[[TM:.*]] = arith.mulf %[[TA]], %[[W]] : f64
// CHECK:           %[[S:.*]] = arith.addf %[[M]], %[[X]] : f64
// CHECK:           %[[TS:.*]] = arith.addf %[[TM]], %[[TX]] : f64
// CHECK:           scf.yield %[[S]], %[[TS]] : f64, f64
// CHECK:         func.return %[[Y]], %[[TY]] : f64, f64

// A branch with a float scalar result gets a scalar tangent result.
func.func @branch(%x: f64, %c: i1) -> f64 {
  %r = scf.if %c -> (f64) {
    %m = arith.mulf %x, %x : f64
    scf.yield %m : f64
  } else {
    %two = arith.constant 2.0 : f64
    scf.yield %two : f64
  }
  return %r : f64
}
func.func @jbranch(%x: f64, %c: i1, %tx: f64) -> (f64, f64) {
  %r:2 = autodiff.jvp @branch(%x, %c, %tx) {wrt = array<i64: 0>} : (f64, i1, f64) -> (f64, f64)
  return %r#0, %r#1 : f64, f64
}
// CHECK-LABEL: func.func @branch_jvp_0(
// CHECK:         %[[R:[^,]*]], %[[TR:[^ ]*]] = scf.if %{{.*}} -> (f64, f64) {
// CHECK:           scf.yield %{{.*}}, %{{.*}} : f64, f64
// CHECK:         } else {
// CHECK:           %[[Z:.*]] = autodiff.autograd_zero : f64
// CHECK:           scf.yield %{{.*}}, %[[Z]] : f64, f64
// CHECK:         func.return %[[R]], %[[TR]] : f64, f64

// Forward over reverse (a Hessian-vector product): the gradient function's
// loops hold grad_of ops, inlined before it is differentiated; the tangent of
// the cache stack is a stack of tangents, read back by the reverse loop.
func.func @sin_loop(%x: tensor<3xf64>) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %y = scf.for %i = %c0 to %c2 step %c1 iter_args(%a = %x) -> tensor<3xf64> {
    %t = autodiff.sin %a : tensor<3xf64>
    scf.yield %t : tensor<3xf64>
  }
  %s = autodiff.sum %y : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
func.func @gsin_loop(%x: tensor<3xf64>) -> tensor<3xf64> {
  %g = autodiff.grad @sin_loop(%x) : (tensor<3xf64>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}
func.func @hvp(%x: tensor<3xf64>, %v: tensor<3xf64>) -> tensor<3xf64> {
  %g, %hv = autodiff.jvp @gsin_loop(%x, %v) : (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  return %hv : tensor<3xf64>
}
// CHECK-LABEL: func.func @sin_loop_vjp_0_jvp_0_results_1(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3xf64>, %[[CT:[^:]*]]: tensor<f64>, %[[T:[^:]*]]: tensor<3xf64>)
// CHECK:         %{{.*}}, %[[STACK:[^,]*]], %{{.*}}, %[[TSTACK:[^ ]*]] = scf.for %[[I:[^ ]*]] = {{.*}} iter_args(%[[A:[^ ]*]] = %[[X]], %[[S:[^ ]*]] = %{{.*}}, %[[TA:[^ ]*]] = %[[T]], %[[TS:[^ ]*]] = %{{.*}})
// CHECK:           tensor.insert_slice %[[A]] into %[[S]][%[[I]], 0]
// CHECK:           tensor.insert_slice %[[TA]] into %[[TS]][%[[I]], 0]
// CHECK-NOT:     autodiff.grad_of
// CHECK:         scf.for %{{.*}} iter_args(%[[G:[^ ]*]] = %{{.*}}, %[[TG:[^ ]*]] = %{{.*}}) -> (tensor<3xf64>, tensor<3xf64>)
// CHECK-NOT:       autodiff.grad_of
// CHECK-DAG:       tensor.extract_slice %[[STACK]]
// CHECK-DAG:       tensor.extract_slice %[[TSTACK]]
// CHECK:           scf.yield
