// autodiff-jacobian with float scalars: a scalar in wrt, or a scalar result, is
// differentiated as a 0-d tensor. The derivative functions are made for
// @<callee>_scalars_as_tensors_<wrt> (scalars in, 0-d tensors out, around a call),
// the op's scalar operand is wrapped by tensor.from_elements, and a scalar's block has
// the shape () (tensor<f64> for a scalar of a scalar, as torch.autograd.functional).
// RUN: autodiff-opt %s -p autodiff-jacobian | filecheck %s
// RUN: autodiff-opt %s --pipeline grad | filecheck %s --check-prefix=GRAD

// CHECK-LABEL: func.func @f(
// CHECK-LABEL: func.func @f_scalars_as_tensors_0_1(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3xf64>, %[[S:[^:]*]]: tensor<f64>, %[[N:[^:]*]]: index) -> (tensor<3xf64>, tensor<f64>)
// CHECK:         %[[SV:.*]] = tensor.extract %[[S]][] : tensor<f64>
// CHECK:         %[[R0:.*]], %[[R1:.*]] = func.call @f(%[[X]], %[[SV]], %[[N]]) : (tensor<3xf64>, f64, index) -> (tensor<3xf64>, f64)
// CHECK:         %[[RT:.*]] = tensor.from_elements %[[R1]] : tensor<f64>
// CHECK:         func.return %[[R0]], %[[RT]] : tensor<3xf64>, tensor<f64>
// CHECK-LABEL: func.func @f_scalars_as_tensors_0_1_jacobian_rev_0_1(
// CHECK-SAME:    -> (tensor<3x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<f64>)

// CHECK-LABEL: func.func @loss_scalars_as_tensors_0_1(
// CHECK-SAME:    %{{.*}}: tensor<f64>, %{{.*}}: tensor<2xf64>) -> tensor<f64>
// CHECK-LABEL: func.func @loss_scalars_as_tensors_0_1_hessian_gradient_0_1(

// CHECK-LABEL: func.func @main(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3xf64>, %[[S:[^:]*]]: f64, %[[N:[^:]*]]: index, %[[W:[^:]*]]: tensor<2xf64>)
// CHECK:         %[[ST:.*]] = tensor.from_elements %[[S]] : tensor<f64>
// CHECK:         func.call @f_scalars_as_tensors_0_1_jacobian_rev_0_1(%[[X]], %[[ST]], %[[N]])
// CHECK:         %[[ST2:.*]] = tensor.from_elements %[[S]] : tensor<f64>
// CHECK:         func.call @loss_scalars_as_tensors_0_1_hessian_gradient_0_1_jacobian_fwd_0_1(%[[ST2]], %[[W]])

// GRAD-NOT:   autodiff.jacobian
// GRAD-NOT:   autodiff.hessian

func.func @f(%x: tensor<3xf64>, %s: f64, %n: index) -> (tensor<3xf64>, f64) {
  %e = tensor.empty() : tensor<3xf64>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x : tensor<3xf64>) outs(%e : tensor<3xf64>) {
  ^bb0(%v: f64, %o: f64):
    %m = arith.mulf %v, %s : f64
    %t = math.sin %m : f64
    linalg.yield %t : f64
  } -> tensor<3xf64>
  %c0 = arith.constant 0 : index
  %v0 = tensor.extract %x[%c0] : tensor<3xf64>
  %p = arith.mulf %v0, %s : f64
  return %y, %p : tensor<3xf64>, f64
}
func.func @loss(%s: f64, %w: tensor<2xf64>) -> f64 {
  %c1 = arith.constant 1 : index
  %v = tensor.extract %w[%c1] : tensor<2xf64>
  %p = arith.mulf %v, %s : f64
  %q = math.exp %p : f64
  return %q : f64
}
func.func @main(%x: tensor<3xf64>, %s: f64, %n: index, %w: tensor<2xf64>) -> (tensor<3x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<f64>, tensor<f64>, tensor<2xf64>, tensor<2xf64>, tensor<2x2xf64>) {
  %j:4 = autodiff.jacobian @f(%x, %s, %n) {wrt = array<i64: 0, 1>, mode = "rev"} : (tensor<3xf64>, f64, index) -> (tensor<3x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<f64>)
  %h:4 = autodiff.hessian @loss(%s, %w) {wrt = array<i64: 0, 1>} : (f64, tensor<2xf64>) -> (tensor<f64>, tensor<2xf64>, tensor<2xf64>, tensor<2x2xf64>)
  return %j#0, %j#1, %j#2, %j#3, %h#0, %h#1, %h#2, %h#3 : tensor<3x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<f64>, tensor<f64>, tensor<2xf64>, tensor<2xf64>, tensor<2x2xf64>
}
