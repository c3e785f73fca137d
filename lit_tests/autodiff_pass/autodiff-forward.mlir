// Forward mode: each active op is followed by its tangent code; the jvp op
// becomes a call returning the results, then their tangents.
// RUN: autodiff-opt %s --split-input-file -p autodiff-forward | filecheck %s

// f(a, b) = a*b*a + b with a tangent for a only: b has none, so the tangent
// of the add is the tangent of a*b*a alone.
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %ab = autodiff.mul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %aba = autodiff.mul %ab, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = autodiff.add %aba, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>, %ta: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r, %tr = autodiff.jvp @f(%a, %b, %ta) {wrt = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %r, %tr : tensor<4xf32>, tensor<4xf32>
}
// CHECK-LABEL: func.func @f_jvp_0(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xf32>, %[[B:[^:]*]]: tensor<4xf32>, %[[TA:[^:]*]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-SAME:    autodiff.derivative = {kind = "jvp", of = @f, wrt = array<i64: 0>, results = array<i64: 0>}
// CHECK:         %[[AB:.*]] = autodiff.mul %[[A]], %[[B]]
// CHECK-NEXT:    %[[T_AB:.*]] = autodiff.mul %[[TA]], %[[B]]
// CHECK-NEXT:    %[[ABA:.*]] = autodiff.mul %[[AB]], %[[A]]
// CHECK-DAG:     %[[T1:.*]] = autodiff.mul %[[T_AB]], %[[A]]
// CHECK-DAG:     %[[T2:.*]] = autodiff.mul %[[AB]], %[[TA]]
// CHECK:         %[[T_ABA:.*]] = autodiff.add %[[T1]], %[[T2]]
// CHECK-NEXT:    %[[R:.*]] = autodiff.add %[[ABA]], %[[B]]
// CHECK-NEXT:    return %[[R]], %[[T_ABA]]
// CHECK-LABEL: func.func @main(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xf32>, %[[B:[^:]*]]: tensor<4xf32>, %[[TA:[^:]*]]: tensor<4xf32>)
// CHECK:         func.call @f_jvp_0(%[[A]], %[[B]], %[[TA]])

// -----

// A tangent argument that does not reach the result gives a zero tangent.
func.func @ignores_b(%a: tensor<2xf64>, %b: tensor<2xf64>) -> tensor<2xf64> {
  %e = autodiff.exp %a : tensor<2xf64>
  return %e : tensor<2xf64>
}
func.func @main(%a: tensor<2xf64>, %b: tensor<2xf64>, %tb: tensor<2xf64>) -> tensor<2xf64> {
  %e, %te = autodiff.jvp @ignores_b(%a, %b, %tb) {wrt = array<i64: 1>} : (tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>)
  return %te : tensor<2xf64>
}
// CHECK-LABEL: func.func @ignores_b_jvp_1(
// CHECK:         %[[E:.*]] = autodiff.exp
// CHECK-NEXT:    %[[ZERO:.*]] = autodiff.autograd_zero : tensor<2xf64>
// CHECK-NEXT:    return %[[E]], %[[ZERO]]

// -----

// func.call: the call is replaced by one to the callee's jvp function, made
// for the active arguments (x) and the results whose tangents are used.
func.func @g(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %s = autodiff.sin %x : tensor<4xf32>
  %r = autodiff.mul %s, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @caller(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @g(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %e = autodiff.exp %y : tensor<4xf32>
  return %e : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %w: tensor<4xf32>, %tx: tensor<4xf32>) -> tensor<4xf32> {
  %e, %te = autodiff.jvp @caller(%x, %w, %tx) {wrt = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %te : tensor<4xf32>
}
// CHECK-LABEL: func.func @g_jvp_0(
// CHECK-SAME:    -> (tensor<4xf32>, tensor<4xf32>)
// CHECK:         autodiff.cos
// CHECK-LABEL: func.func @caller_jvp_0(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>, %[[W:[^:]*]]: tensor<4xf32>, %[[TX:[^:]*]]: tensor<4xf32>)
// CHECK-NOT:     func.call @g(
// CHECK:         %[[Y:.*]], %[[TY:.*]] = func.call @g_jvp_0(%[[X]], %[[W]], %[[TX]])
// CHECK:         %[[E:.*]] = autodiff.exp %[[Y]]
// CHECK:         %[[TE:.*]] = autodiff.mul %[[TY]], %[[E]]
// CHECK:         return %[[E]], %[[TE]]

// -----

// Forward over reverse (a Hessian-vector product): the grad inside @gradient is
// lowered first, then forward mode runs through the generated grad and vjp
// functions (their grad_of regions inlined) with a tangent for the gradient only.
func.func @loss(%x: tensor<3xf32>) -> tensor<f32> {
  %e = autodiff.exp %x : tensor<3xf32>
  %s = autodiff.sum %e : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @gradient(%x: tensor<3xf32>) -> tensor<3xf32> {
  %g = autodiff.grad @loss(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %g : tensor<3xf32>
}
func.func @hvp(%x: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<3xf32> {
  %g, %hv = autodiff.jvp @gradient(%x, %v) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
  return %hv : tensor<3xf32>
}
// CHECK-LABEL: func.func @loss_vjp_0(
// CHECK:         autodiff.grad_of "autodiff.exp"
// CHECK-LABEL: func.func @loss_vjp_0_jvp_0_results_1(
// CHECK-SAME:    autodiff.derivative = {kind = "jvp", of = @loss_vjp_0, wrt = array<i64: 0>, results = array<i64: 1>}
// CHECK-NOT:     grad_of
// CHECK:         return
// CHECK-LABEL: func.func @loss_grad_0_jvp_0(
// CHECK:         func.call @loss_vjp_0_jvp_0_results_1(
// CHECK-LABEL: func.func @gradient(
// CHECK:         func.call @loss_grad_0(
// CHECK-LABEL: func.func @gradient_jvp_0(
// CHECK:         func.call @loss_grad_0_jvp_0(
// CHECK-LABEL: func.func @hvp(
// CHECK:         func.call @gradient_jvp_0(

// -----

// An op without a rule is fine off the active path (it reads only b).
func.func @opaque(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %t = "test.op"(%b) : (tensor<4xf32>) -> tensor<4xf32>
  %r = autodiff.mul %a, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>, %ta: tensor<4xf32>) -> tensor<4xf32> {
  %r, %tr = autodiff.jvp @opaque(%a, %b, %ta) {wrt = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %tr : tensor<4xf32>
}
// CHECK-LABEL: func.func @opaque_jvp_0(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xf32>, %[[B:[^:]*]]: tensor<4xf32>, %[[TA:[^:]*]]: tensor<4xf32>)
// CHECK:         %[[T:.*]] = "test.op"(%[[B]])
// CHECK:         %[[R:.*]] = autodiff.mul %[[A]], %[[T]]
// CHECK-NEXT:    %[[TR:.*]] = autodiff.mul %[[TA]], %[[T]]
// CHECK-NEXT:    return %[[R]], %[[TR]]
