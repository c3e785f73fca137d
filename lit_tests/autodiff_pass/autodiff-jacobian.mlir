// autodiff-jacobian: a reverse Jacobian is a vmap of a vjp over the rows of an identity
// (the output basis), a forward one a vmap of a jvp over the input basis with the batch
// put last; a Hessian is the forward Jacobian of the gradient (forward over reverse).
// After autodiff-vmap the vjp's backward runs once on the whole basis: its matmuls are
// batched or flattened, no loop over the basis.
// RUN: autodiff-opt %s -p autodiff-jacobian | filecheck %s
// RUN: autodiff-opt %s --pipeline grad | filecheck %s --check-prefix=GRAD

// CHECK-LABEL: func.func @f_jacobian_rev_0(
// CHECK-SAME:    %[[W:[^:]*]]: tensor<3x4xf64>, %[[X:[^:]*]]: tensor<2x3xf64>) -> tensor<2x4x3x4xf64>
// CHECK:         %[[BASIS:.*]] = arith.constant dense<{{.*}}> : tensor<8x2x4xf64>
// CHECK:         %[[ROWS:.*]] = autodiff.vmap @f_jacobian_rev_0_row(%[[W]], %[[X]], %[[BASIS]]) {in_axes = array<i64: -1, -1, 0>, out_axes = array<i64: 0>, size = 8 : i64}
// CHECK:         %[[J:.*]] = autodiff.reshape %[[ROWS]] : tensor<8x3x4xf64> -> tensor<2x4x3x4xf64>
// CHECK:         func.return %[[J]]
// CHECK-LABEL: func.func @f_jacobian_rev_0_row(
// CHECK-SAME:    tensor<3x4xf64>, %{{.*}}: tensor<2x3xf64>, %{{.*}}: tensor<2x4xf64>) -> tensor<3x4xf64>
// CHECK:         autodiff.vjp @f(%{{.*}}, %{{.*}}, %{{.*}}) {wrt = array<i64: 0>}

// CHECK-LABEL: func.func @f_jacobian_fwd_1(
// CHECK:         %[[BASIS:.*]] = arith.constant dense<{{.*}}> : tensor<6x2x3xf64>
// CHECK:         autodiff.vmap @f_jacobian_fwd_1_column(%{{.*}}, %{{.*}}, %[[BASIS]]) {in_axes = array<i64: -1, -1, 0>, out_axes = array<i64: 2>, size = 6 : i64} : {{.*}} -> tensor<2x4x6xf64>
// CHECK:         autodiff.reshape %{{.*}} : tensor<2x4x6xf64> -> tensor<2x4x2x3xf64>

// CHECK-LABEL: func.func @loss_hessian_gradient_0(
// CHECK:         autodiff.grad @loss
// CHECK-LABEL: func.func @loss_hessian_gradient_0_jacobian_fwd_0(
// CHECK:         autodiff.vmap @loss_hessian_gradient_0_jacobian_fwd_0_column

// CHECK-LABEL: func.func @main(
// CHECK:         func.call @f_jacobian_rev_0(
// CHECK:         func.call @f_jacobian_fwd_1(
// CHECK:         func.call @loss_hessian_gradient_0_jacobian_fwd_0(

// GRAD-LABEL: func.func @f_vjp_0_vmap_n_n_0_to_0_0_x8(
// GRAD-SAME:    %{{.*}}: tensor<3x4xf64>, %[[X:[^:]*]]: tensor<2x3xf64>, %{{.*}}: tensor<8x2x4xf64>) -> (tensor<8x2x4xf64>, tensor<8x3x4xf64>)
// GRAD-NOT:     scf.for
// GRAD:         %[[XT:.*]] = autodiff.transpose %[[X]] {permutation = array<i64: 1, 0>} : tensor<2x3xf64> -> tensor<3x2xf64>
// GRAD:         %[[XTB:.*]] = autodiff.broadcast_to %[[XT]] : tensor<3x2xf64> -> tensor<8x3x2xf64>
// GRAD:         autodiff.matmul %[[XTB]], %{{.*}} : (tensor<8x3x2xf64>, tensor<8x2x4xf64>) -> tensor<8x3x4xf64>
// GRAD-NOT:     scf.for
// GRAD:         func.return
// GRAD-NOT:   autodiff.vmap
// GRAD-NOT:   autodiff.jacobian
// GRAD-NOT:   autodiff.hessian

func.func @f(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>) -> tensor<2x4xf64> {
  %y = autodiff.matmul %x, %w : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  %t = autodiff.tanh %y : tensor<2x4xf64>
  return %t : tensor<2x4xf64>
}
func.func @loss(%w: tensor<3x4xf64>) -> tensor<f64> {
  %e = autodiff.exp %w : tensor<3x4xf64>
  %s = autodiff.sum %e : tensor<3x4xf64> -> tensor<f64>
  return %s : tensor<f64>
}
func.func @main(%w: tensor<3x4xf64>, %x: tensor<2x3xf64>) -> (tensor<2x4x3x4xf64>, tensor<2x4x2x3xf64>, tensor<3x4x3x4xf64>) {
  %jw = autodiff.jacobian @f(%w, %x) {wrt = array<i64: 0>, mode = "rev"} : (tensor<3x4xf64>, tensor<2x3xf64>) -> tensor<2x4x3x4xf64>
  %jx = autodiff.jacobian @f(%w, %x) {wrt = array<i64: 1>, mode = "fwd"} : (tensor<3x4xf64>, tensor<2x3xf64>) -> tensor<2x4x2x3xf64>
  %h = autodiff.hessian @loss(%w) : (tensor<3x4xf64>) -> tensor<3x4x3x4xf64>
  return %jw, %jx, %h : tensor<2x4x3x4xf64>, tensor<2x4x2x3xf64>, tensor<3x4x3x4xf64>
}
