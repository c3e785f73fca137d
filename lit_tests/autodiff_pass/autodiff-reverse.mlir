// Reverse mode: one grad_of per active op in reverse order, autograd_add where
// gradients meet, autograd_zero for a missing one, the entry op replaced by a call.
// RUN: autodiff-opt %s --split-input-file -p autodiff-reverse | filecheck %s
// RUN: autodiff-opt %s --split-input-file -p autodiff-reverse,autodiff-specialize-zero,cse,dce | filecheck %s --check-prefix=CLEAN

// f(a, b) = a*b*a + b w.r.t. both: one grad_of "autodiff.add", two "autodiff.mul",
// and a and b each receive two gradients, summed by one autograd_add each.
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %ab = autodiff.mul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %aba = autodiff.mul %ab, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = autodiff.add %aba, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @both(%a: tensor<4xf32>, %b: tensor<4xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %r, %da, %db = autodiff.vjp @f(%a, %b, %ct) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %r, %da, %db : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
// CHECK-LABEL: func.func @f_vjp_0_1(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4xf32>, %[[B:[^:]*]]: tensor<4xf32>, %[[CT:[^:]*]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK-SAME:    autodiff.derivative = {kind = "vjp", of = @f, wrt = array<i64: 0, 1>, results = array<i64: 0>}
// CHECK:         %[[AB:.*]] = autodiff.mul %[[A]], %[[B]]
// CHECK:         %[[ABA:.*]] = autodiff.mul %[[AB]], %[[A]]
// CHECK:         %[[R:.*]] = autodiff.add %[[ABA]], %[[B]]
// CHECK:         %[[D_ABA:[^,]*]], %[[DB1:.*]] = autodiff.grad_of "autodiff.add"(%[[CT]])
// CHECK-NOT:     grad_of "autodiff.add"
// CHECK:         %[[D_AB:[^,]*]], %[[DA1:.*]] = autodiff.grad_of "autodiff.mul"(%[[D_ABA]])
// CHECK:         %[[DA2:[^,]*]], %[[DB2:.*]] = autodiff.grad_of "autodiff.mul"(%[[D_AB]])
// CHECK-NOT:     grad_of
// CHECK-DAG:     %[[DA:.*]] = autodiff.autograd_add %[[DA1]], %[[DA2]]
// CHECK-DAG:     %[[DB:.*]] = autodiff.autograd_add %[[DB1]], %[[DB2]]
// CHECK-NOT:     {{grad_of|autograd_add}}
// CHECK:         return %[[R]], %[[DA]], %[[DB]]
// CHECK-LABEL: func.func @both(
// CHECK:         func.call @f_vjp_0_1(
// CHECK-NOT:     autodiff.vjp

// -----

// The same function w.r.t. a only: b is not active, so no grad_of yields a
// gradient for it and, after cleanup, no gradient work for b remains.
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %ab = autodiff.mul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %aba = autodiff.mul %ab, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = autodiff.add %aba, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @only_a(%a: tensor<4xf32>, %b: tensor<4xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %r, %da = autodiff.vjp @f(%a, %b, %ct) {wrt = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %r, %da : tensor<4xf32>, tensor<4xf32>
}
// CHECK-LABEL: func.func @f_vjp_0(
// CHECK-SAME:    -> (tensor<4xf32>, tensor<4xf32>)
// CHECK:         autodiff.grad_of "autodiff.add"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK:         autodiff.grad_of "autodiff.mul"(%{{.*}}) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CHECK:         autodiff.grad_of "autodiff.mul"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-COUNT-1: autodiff.autograd_add
// CHECK-NOT:     autodiff.autograd_add
// CHECK:         return
// CLEAN-LABEL: func.func @f_vjp_0(
// CLEAN-SAME:    %[[A:[^:]*]]: tensor<4xf32>, %[[B:[^:]*]]: tensor<4xf32>, %[[CT:[^:]*]]: tensor<4xf32>)
// CLEAN:         %[[AB:.*]] = autodiff.mul %[[A]], %[[B]]
// CLEAN:         %[[D_ABA:.*]] = autodiff.grad_of "autodiff.add"(%[[CT]]) : (tensor<4xf32>) -> tensor<4xf32>
// CLEAN:         %[[D_AB:[^,]*]], %[[DA1:.*]] = autodiff.grad_of "autodiff.mul"(%[[D_ABA]]) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
// CLEAN:         %[[DA2:.*]] = autodiff.grad_of "autodiff.mul"(%[[D_AB]]) : (tensor<4xf32>) -> tensor<4xf32>
// CLEAN:         %[[DA:.*]] = autodiff.autograd_add %[[DA1]], %[[DA2]]
// CLEAN-NOT:     {{grad_of|autograd_add|autograd_zero}}
// CLEAN:         return %{{.*}}, %[[DA]]

// -----

// Fan-out: x is read three times; its three gradients meet in two autograd_adds.
func.func @fan_out(%x: tensor<3xf64>) -> tensor<3xf64> {
  %sq = autodiff.mul %x, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %r = autodiff.add %sq, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %r : tensor<3xf64>
}
func.func @main(%x: tensor<3xf64>, %ct: tensor<3xf64>) -> tensor<3xf64> {
  %r, %dx = autodiff.vjp @fan_out(%x, %ct) : (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
  return %dx : tensor<3xf64>
}
// CHECK-LABEL: func.func @fan_out_vjp_0(
// CHECK:         %[[D_SQ:[^,]*]], %[[DX1:.*]] = autodiff.grad_of "autodiff.add"
// CHECK:         %[[DX2:[^,]*]], %[[DX3:.*]] = autodiff.grad_of "autodiff.mul"(%[[D_SQ]])
// CHECK:         %[[S1:.*]] = autodiff.autograd_add %[[DX1]], %[[DX2]]
// CHECK:         %[[S2:.*]] = autodiff.autograd_add %[[S1]], %[[DX3]]
// CHECK:         return %{{.*}}, %[[S2]]

// -----

// A wrt argument that does not influence the result gets a zero gradient.
func.func @ignores_b(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<f32> {
  %e = autodiff.exp %a : tensor<2xf32>
  %s = autodiff.sum %e : tensor<2xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %da, %db = autodiff.grad @ignores_b(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
  return %da, %db : tensor<2xf32>, tensor<2xf32>
}
// CHECK-LABEL: func.func @ignores_b_vjp_0_1(
// CHECK:         %[[DA:.*]] = autodiff.grad_of "autodiff.exp"
// CHECK:         %[[DB:.*]] = autodiff.autograd_zero : tensor<2xf32>
// CHECK:         return %{{.*}}, %[[DA]], %[[DB]]
// The grad function seeds 1 and calls the vjp function.
// CHECK-LABEL: func.func @ignores_b_grad_0_1(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<2xf32>, %[[B:[^:]*]]: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
// CHECK:         %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK:         %{{.*}}, %[[GA:.*]], %[[GB:.*]] = func.call @ignores_b_vjp_0_1(%[[A]], %[[B]], %[[ONE]])
// CHECK:         return %[[GA]], %[[GB]]
// CHECK-LABEL: func.func @main(
// CHECK:         func.call @ignores_b_grad_0_1(

// -----

// An op without a derivative rule is fine off the active path (it depends
// only on b, and we differentiate w.r.t. a): it stays in the primal.
func.func @opaque(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<f32> {
  %t = "test.op"(%b) : (tensor<4xf32>) -> tensor<4xf32>
  %p = autodiff.mul %a, %t : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = autodiff.sum %p : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %da = autodiff.grad @opaque(%a, %b) {wrt = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %da : tensor<4xf32>
}
// CHECK-LABEL: func.func @opaque_vjp_0(
// CHECK:         "test.op"
// CHECK-NOT:     grad_of "test.op"
// CHECK:         autodiff.grad_of "autodiff.sum"
// CHECK:         autodiff.grad_of "autodiff.mul"
// CHECK-NOT:     grad_of
// CHECK:         return

// -----

// func.call is differentiated through: the call's backward is a grad_of
// "func.call" calling the callee's own vjp function (per callee and active
// arguments: only x is active here).
func.func @g(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %s = autodiff.sin %x : tensor<4xf32>
  %r = autodiff.mul %s, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @caller(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<f32> {
  %y = func.call @g(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %s = autodiff.sum %y : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @main(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %dx = autodiff.grad @caller(%x, %w) {wrt = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %dx : tensor<4xf32>
}
// CHECK-LABEL: func.func @g_vjp_0(
// CHECK-SAME:    autodiff.derivative = {kind = "vjp", of = @g, wrt = array<i64: 0>, results = array<i64: 0>}
// CHECK:         autodiff.grad_of "autodiff.mul"
// CHECK:         autodiff.grad_of "autodiff.sin"
// CHECK-LABEL: func.func @caller_vjp_0(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>, %[[W:[^:]*]]: tensor<4xf32>, %{{.*}}: tensor<f32>)
// CHECK:         func.call @g(%[[X]], %[[W]])
// CHECK:         %[[DY:.*]] = autodiff.grad_of "autodiff.sum"
// CHECK:         %[[DX:.*]] = autodiff.grad_of "func.call"(%[[DY]]) : (tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    ^{{.*}}(%[[G:.*]]: tensor<4xf32>):
// CHECK-NEXT:      %{{.*}}, %[[GX:.*]] = func.call @g_vjp_0(%[[X]], %[[W]], %[[G]])
// CHECK-NEXT:      autodiff.yield %[[GX]] : tensor<4xf32>
// CHECK:         return %{{.*}}, %[[DX]]

// -----

// Cotangents: vjp of a function with two results takes one cotangent per
// result and returns the results, then the gradients.
func.func @two(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %s = autodiff.sin %x : tensor<4xf32>
  %c = autodiff.cos %x : tensor<4xf32>
  return %s, %c : tensor<4xf32>, tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %u: tensor<4xf32>, %v: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %s, %c, %dx = autodiff.vjp @two(%x, %u, %v) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  return %s, %c, %dx : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
// CHECK-LABEL: func.func @two_vjp_0(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>, %[[U:[^:]*]]: tensor<4xf32>, %[[V:[^:]*]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK:         %[[S:.*]] = autodiff.sin %[[X]]
// CHECK:         %[[C:.*]] = autodiff.cos %[[X]]
// CHECK:         %[[DC:.*]] = autodiff.grad_of "autodiff.cos"(%[[V]])
// CHECK:         %[[DS:.*]] = autodiff.grad_of "autodiff.sin"(%[[U]])
// CHECK:         %[[DX:.*]] = autodiff.autograd_add %[[DC]], %[[DS]]
// CHECK:         return %[[S]], %[[C]], %[[DX]]
// CHECK-LABEL: func.func @main(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>, %[[U:[^:]*]]: tensor<4xf32>, %[[V:[^:]*]]: tensor<4xf32>)
// CHECK:         func.call @two_vjp_0(%[[X]], %[[U]], %[[V]])

// -----

// Grad of grad: the inner autodiff.grad is lowered first, so the outer one
// differentiates an ordinary function; the call to the inner grad function is
// differentiated through its own vjp, which in turn differentiates the first
// vjp function (grad_of bodies inlined) with a cotangent for its gradient only.
// autodiff-reverse leaves its functions as the walk made them (the pipeline's
// specialize-zero, cse and dce clean them), but a vjp function that is itself
// differentiated is cleaned first: x*x's two equal gradients are one value.
func.func @cube(%x: tensor<f32>) -> tensor<f32> {
  %sq = autodiff.mul %x, %x : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %r = autodiff.mul %sq, %x : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
func.func @dcube(%x: tensor<f32>) -> tensor<f32> {
  %d = autodiff.grad @cube(%x) : (tensor<f32>) -> tensor<f32>
  return %d : tensor<f32>
}
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %dd = autodiff.grad @dcube(%x) : (tensor<f32>) -> tensor<f32>
  return %dd : tensor<f32>
}
// CHECK-LABEL: func.func @cube_vjp_0(
// CHECK:         autodiff.grad_of "autodiff.mul"
// CHECK:         autodiff.grad_of "autodiff.mul"
// CHECK-NEXT:    ^bb0(%[[G:.*]]: tensor<f32>):
// CHECK-NEXT:      %[[GX:.*]] = autodiff.mul %[[G]], %{{.*}}
// CHECK-NEXT:      autodiff.yield %[[GX]], %[[GX]]
// CHECK-LABEL: func.func @cube_vjp_0_vjp_0_results_1(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<f32>, %[[SEED:[^:]*]]: tensor<f32>, %[[CT:[^:]*]]: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
// CHECK-SAME:    autodiff.derivative = {kind = "vjp", of = @cube_vjp_0, wrt = array<i64: 0>, results = array<i64: 1>}
// CHECK-NOT:     func.call
// CHECK:         autodiff.grad_of "autodiff.mul"
// CHECK:         return
// CHECK-LABEL: func.func @cube_grad_0(
// CHECK:         func.call @cube_vjp_0(
// CHECK-LABEL: func.func @cube_grad_0_vjp_0(
// CHECK:         autodiff.grad_of "func.call"
// CHECK:           func.call @cube_vjp_0_vjp_0_results_1(
// CHECK-LABEL: func.func @dcube(
// CHECK:         func.call @cube_grad_0(
// CHECK-LABEL: func.func @dcube_vjp_0(
// CHECK:         autodiff.grad_of "func.call"
// CHECK:           func.call @cube_grad_0_vjp_0(
// CHECK-LABEL: func.func @dcube_grad_0(
// CHECK:         func.call @dcube_vjp_0(
// CHECK-LABEL: func.func @main(
// CHECK:         func.call @dcube_grad_0(

// -----

// Float scalars: a scalar loss, scalar arguments in wrt, scalar gradients; the seed is a scalar 1.
// CHECK-LABEL: func.func @scalar_f_vjp_0_1(%x: f64, %y: f64, %cotangent: f64) -> (f64, f64, f64)
// CHECK:         autodiff.grad_of "math.sin"
// CHECK-LABEL: func.func @scalar_f_grad_0_1(%x: f64, %y: f64) -> (f64, f64)
// CHECK:         %{{.*}} = arith.constant 1.000000e+00 : f64
func.func @scalar_f(%x: f64, %y: f64) -> f64 {
  %a = arith.mulf %x, %y : f64
  %b = math.sin %a : f64
  return %b : f64
}
func.func @scalar_g(%x: f64, %y: f64) -> (f64, f64) {
  %r:2 = autodiff.grad @scalar_f(%x, %y) {wrt = array<i64: 0, 1>} : (f64, f64) -> (f64, f64)
  return %r#0, %r#1 : f64, f64
}
