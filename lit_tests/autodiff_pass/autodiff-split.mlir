// The f/df split: each vjp function becomes <name>_fwd (real outputs, then the
// temporaries the backward reads) and <name>_bwd (output vjps, captured inputs,
// captured outputs -> input gradients), and <name> calls one then the other.
// RUN: autodiff-opt %s --split-input-file -p autodiff-reverse,autodiff-specialize-zero,cse,dce,autodiff-split | filecheck %s

// f(a, b) = a*b*a + b w.r.t. a: the backward reads a, b (inputs, passed to df
// directly) and a*b (a temporary, added as output 1 of f).
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %ab = autodiff.mul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %aba = autodiff.mul %ab, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = autodiff.add %aba, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r, %da = autodiff.vjp @f(%a, %b, %ct) {wrt = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %r, %da : tensor<4xf32>, tensor<4xf32>
}
// CHECK-LABEL: func.func @f_vjp_0(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xf32>, %[[B:[^:]*]]: tensor<4xf32>, %[[CT:[^:]*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[R:.*]], %[[AB:.*]] = func.call @f_vjp_0_fwd(%[[A]], %[[B]]) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:    %[[DA:.*]] = func.call @f_vjp_0_bwd(%[[CT]], %[[A]], %[[B]], %[[AB]]) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    return %[[R]], %[[DA]]
// CHECK-LABEL: func.func @f_vjp_0_fwd(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xf32>, %[[B:[^:]*]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK-SAME:    autodiff.gradient = {f_real_outputs = 1 : i64, df_input_vjps = array<i64: 0>, df_input_captured_inputs = array<i64: 0, 1>, df_input_captured_outputs = array<i64: 1>, df_output_vjps = array<i64: 0>}
// CHECK-NEXT:    %[[AB:.*]] = autodiff.mul %[[A]], %[[B]]
// CHECK-NEXT:    %[[ABA:.*]] = autodiff.mul %[[AB]], %[[A]]
// CHECK-NEXT:    %[[R:.*]] = autodiff.add %[[ABA]], %[[B]]
// CHECK-NEXT:    return %[[R]], %[[AB]]
// CHECK-LABEL: func.func @f_vjp_0_bwd(
// CHECK-SAME:    %[[CT:[^:]*]]: tensor<4xf32>, %[[A:[^:]*]]: tensor<4xf32>, %[[B:[^:]*]]: tensor<4xf32>, %[[AB:[^:]*]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT:     = autodiff.add %
// CHECK:         %[[D_ABA:.*]] = autodiff.grad_of "autodiff.add"(%[[CT]])
// CHECK:         %[[D_AB:[^,]*]], %[[DA1:.*]] = autodiff.grad_of "autodiff.mul"(%[[D_ABA]])
// CHECK-DAG:       autodiff.mul %{{.*}}, %[[A]]
// CHECK-DAG:       autodiff.mul %{{.*}}, %[[AB]]
// CHECK:         %[[DA2:.*]] = autodiff.grad_of "autodiff.mul"(%[[D_AB]])
// CHECK:           autodiff.mul %{{.*}}, %[[B]]
// CHECK:         %[[DA:.*]] = autodiff.autograd_add %[[DA1]], %[[DA2]]
// CHECK-NEXT:    return %[[DA]]

// -----

// exp saves its result: the capture is a real output of f (index 0), so f
// gets no extra output; x itself is not read by the backward.
func.func @e(%x: tensor<3xf64>) -> tensor<3xf64> {
  %y = autodiff.exp %x : tensor<3xf64>
  return %y : tensor<3xf64>
}
func.func @main(%x: tensor<3xf64>, %ct: tensor<3xf64>) -> tensor<3xf64> {
  %y, %dx = autodiff.vjp @e(%x, %ct) : (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  return %dx : tensor<3xf64>
}
// CHECK-LABEL: func.func @e_vjp_0_fwd(
// CHECK-SAME:    %{{[^:]*}}: tensor<3xf64>) -> tensor<3xf64>
// CHECK-SAME:    autodiff.gradient = {f_real_outputs = 1 : i64, df_input_vjps = array<i64: 0>, df_input_captured_inputs = array<i64>, df_input_captured_outputs = array<i64: 0>, df_output_vjps = array<i64: 0>}
// CHECK-LABEL: func.func @e_vjp_0_bwd(
// CHECK-SAME:    %[[CT:[^:]*]]: tensor<3xf64>, %[[Y:[^:]*]]: tensor<3xf64>) -> tensor<3xf64>
// CHECK:           autodiff.mul %{{.*}}, %[[Y]]

// -----

// A constant the backward reads is rematerialised in df, not captured.
func.func @scale(%x: tensor<2xf32>) -> tensor<f32> {
  %c = arith.constant dense<3.0> : tensor<2xf32>
  %y = autodiff.mul %x, %c : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %s = autodiff.sum %y : tensor<2xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %dx = autodiff.grad @scale(%x) : (tensor<2xf32>) -> tensor<2xf32>
  return %dx : tensor<2xf32>
}
// CHECK-LABEL: func.func @scale_vjp_0_fwd(
// CHECK-SAME:    -> tensor<f32>
// CHECK-SAME:    df_input_captured_inputs = array<i64>, df_input_captured_outputs = array<i64>
// CHECK-LABEL: func.func @scale_vjp_0_bwd(
// CHECK-SAME:    %{{[^:]*}}: tensor<f32>) -> tensor<2xf32>
// CHECK-NEXT:    %[[C:.*]] = arith.constant dense<3.000000e+00> : tensor<2xf32>
// CHECK:           autodiff.mul %{{.*}}, %[[C]]
// The grad function still seeds 1 and calls the (now split) vjp function.
// CHECK-LABEL: func.func @scale_grad_0(
// CHECK:         func.call @scale_vjp_0(
