// The rules of linalg named ops and tensor ops (autodiff_pass/rules/linalg.py,
// autodiff_pass/rules/tensor.py): the grad_of region each one produces in reverse mode, and
// the tangent code in forward mode. Inits that an op overwrites get nothing.
// RUN: autodiff-opt %s --split-input-file -p autodiff-reverse,autodiff-forward | filecheck %s

// linalg.transpose: the inverse permutation ([2, 0, 1] -> [1, 2, 0]).
// linalg.broadcast: the sum over the added dimensions. linalg.mul: the rule
// of arith.mulf on whole tensors.
func.func @transpose_broadcast(%x: tensor<2x3x4xf32>, %v: tensor<3xf32>) -> tensor<4x2x3xf32> {
  %e = tensor.empty() : tensor<4x2x3xf32>
  %t = linalg.transpose ins(%x : tensor<2x3x4xf32>) outs(%e : tensor<4x2x3xf32>) permutation = [2, 0, 1]
  %b = linalg.broadcast ins(%v : tensor<3xf32>) outs(%e : tensor<4x2x3xf32>) dimensions = [0, 1]
  %p = linalg.mul ins(%t, %b : tensor<4x2x3xf32>, tensor<4x2x3xf32>) outs(%e : tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
  return %p : tensor<4x2x3xf32>
}
func.func @vjp(%x: tensor<2x3x4xf32>, %v: tensor<3xf32>, %ct: tensor<4x2x3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>) {
  %r, %dx, %dv = autodiff.vjp @transpose_broadcast(%x, %v, %ct) : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<4x2x3xf32>) -> (tensor<4x2x3xf32>, tensor<2x3x4xf32>, tensor<3xf32>)
  return %dx, %dv : tensor<2x3x4xf32>, tensor<3xf32>
}
// CHECK-LABEL: func.func @transpose_broadcast_vjp_0_1(
// CHECK:         %[[T:.*]] = linalg.transpose
// CHECK:         %[[B:.*]] = linalg.broadcast
// CHECK:         %[[GT:.*]], %[[GB:.*]] = autodiff.grad_of "linalg.mul"(%{{.*}}) : (tensor<4x2x3xf32>) -> (tensor<4x2x3xf32>, tensor<4x2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[G:.*]]: tensor<4x2x3xf32>):
// CHECK-NEXT:      %[[DT:.*]] = autodiff.mul %[[G]], %[[B]]
// CHECK-NEXT:      %[[DB:.*]] = autodiff.mul %[[G]], %[[T]]
// CHECK-NEXT:      autodiff.yield %[[DT]], %[[DB]]
// CHECK:         %[[DV:.*]] = autodiff.grad_of "linalg.broadcast"(%[[GB]]) : (tensor<4x2x3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    ^bb0(%[[G1:.*]]: tensor<4x2x3xf32>):
// CHECK-NEXT:      %[[S:.*]] = autodiff.sum %[[G1]] {dims = array<i64: 0, 1>} : tensor<4x2x3xf32> -> tensor<3xf32>
// CHECK-NEXT:      autodiff.yield %[[S]]
// CHECK:         %[[DX:.*]] = autodiff.grad_of "linalg.transpose"(%[[GT]]) : (tensor<4x2x3xf32>) -> tensor<2x3x4xf32>
// CHECK-NEXT:    ^bb0(%[[G2:.*]]: tensor<4x2x3xf32>):
// CHECK-NEXT:      %[[I:.*]] = autodiff.transpose %[[G2]] {permutation = array<i64: 1, 2, 0>}
// CHECK-NEXT:      autodiff.yield %[[I]]
// CHECK:         func.return %{{.*}}, %[[DX]], %[[DV]]

// -----

// linalg.copy passes the gradient on; linalg.fill gives its scalar the sum of
// the gradient (a 0-d sum, then tensor.extract); tensor.extract puts the
// scalar gradient back at its index in a zero tensor.
func.func @fill_copy(%x: tensor<3xf32>, %c: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %c1 = arith.constant 1 : index
  %v = tensor.extract %x[%c1] : tensor<3xf32>
  %f = linalg.fill ins(%v : f32) outs(%c : tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = linalg.copy ins(%f : tensor<2x3xf32>) outs(%c : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %m : tensor<2x3xf32>
}
func.func @vjp(%x: tensor<3xf32>, %c: tensor<2x3xf32>, %ct: tensor<2x3xf32>) -> tensor<3xf32> {
  %r, %dx = autodiff.vjp @fill_copy(%x, %c, %ct) {wrt = array<i64: 0>} : (tensor<3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>)
  return %dx : tensor<3xf32>
}
// CHECK-LABEL: func.func @fill_copy_vjp_0(
// CHECK-SAME:    %{{.*}}: tensor<3xf32>, %{{.*}}: tensor<2x3xf32>, %[[CT:.*]]: tensor<2x3xf32>)
// CHECK:         %[[C1:.*]] = arith.constant 1 : index
// CHECK:         %[[GM:.*]] = autodiff.grad_of "linalg.copy"(%[[CT]]) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT:    ^bb0(%[[G:.*]]: tensor<2x3xf32>):
// CHECK-NEXT:      autodiff.yield %[[G]]
// CHECK:         %[[GV:.*]] = autodiff.grad_of "linalg.fill"(%[[GM]]) : (tensor<2x3xf32>) -> f32
// CHECK-NEXT:    ^bb0(%[[G1:.*]]: tensor<2x3xf32>):
// CHECK-NEXT:      %[[SUM:.*]] = autodiff.sum %[[G1]] : tensor<2x3xf32> -> tensor<f32>
// CHECK-NEXT:      %[[E:.*]] = tensor.extract %[[SUM]][] : tensor<f32>
// CHECK-NEXT:      autodiff.yield %[[E]] : f32
// CHECK:         %[[GX:.*]] = autodiff.grad_of "tensor.extract"(%[[GV]]) : (f32) -> tensor<3xf32>
// CHECK-NEXT:    ^bb0(%[[G2:.*]]: f32):
// CHECK-NEXT:      %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<3xf32>
// CHECK-NEXT:      %[[IN:.*]] = tensor.insert %[[G2]] into %[[Z]][%[[C1]]] : tensor<3xf32>
// CHECK-NEXT:      autodiff.yield %[[IN]]
// CHECK:         func.return %{{.*}}, %[[GX]]

// -----

// extract_slice at a dynamic offset: the gradient is inserted into zeros at
// the same (dynamic) offset. insert_slice (strided): the source gets the slice
// of the gradient, the destination the gradient with that slice zeroed.
func.func @slices(%xs: tensor<6x4xf32>, %i: index, %y: tensor<2x4xf32>) -> tensor<6x4xf32> {
  %x = tensor.extract_slice %xs[%i, 0] [2, 4] [1, 1] : tensor<6x4xf32> to tensor<2x4xf32>
  %m = arith.mulf %x, %y : tensor<2x4xf32>
  %z = tensor.insert_slice %m into %xs[1, 0] [2, 4] [2, 1] : tensor<2x4xf32> into tensor<6x4xf32>
  return %z : tensor<6x4xf32>
}
func.func @vjp(%xs: tensor<6x4xf32>, %i: index, %y: tensor<2x4xf32>, %ct: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %r, %dx = autodiff.vjp @slices(%xs, %i, %y, %ct) {wrt = array<i64: 0>} : (tensor<6x4xf32>, index, tensor<2x4xf32>, tensor<6x4xf32>) -> (tensor<6x4xf32>, tensor<6x4xf32>)
  return %dx : tensor<6x4xf32>
}
// CHECK-LABEL: func.func @slices_vjp_0(
// CHECK-SAME:    %{{.*}}: tensor<6x4xf32>, %[[I:.*]]: index, %{{.*}}: tensor<2x4xf32>, %[[CT:.*]]: tensor<6x4xf32>)
// CHECK:         %[[GSRC:.*]], %[[GDEST:.*]] = autodiff.grad_of "tensor.insert_slice"(%[[CT]])
// CHECK-NEXT:    ^bb0(%[[G:.*]]: tensor<6x4xf32>):
// CHECK-NEXT:      %[[PART:.*]] = tensor.extract_slice %[[G]][1, 0] [2, 4] [2, 1] : tensor<6x4xf32> to tensor<2x4xf32>
// CHECK-NEXT:      %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<2x4xf32>
// CHECK-NEXT:      %[[REST:.*]] = tensor.insert_slice %[[Z]] into %[[G]][1, 0] [2, 4] [2, 1] : tensor<2x4xf32> into tensor<6x4xf32>
// CHECK-NEXT:      autodiff.yield %[[PART]], %[[REST]]
// CHECK:         %[[GM:.*]] = autodiff.grad_of "arith.mulf"(%[[GSRC]])
// CHECK:         %[[GX:.*]] = autodiff.grad_of "tensor.extract_slice"(%[[GM]]) : (tensor<2x4xf32>) -> tensor<6x4xf32>
// CHECK-NEXT:    ^bb0(%[[G1:.*]]: tensor<2x4xf32>):
// CHECK-NEXT:      %[[Z1:.*]] = arith.constant dense<0.000000e+00> : tensor<6x4xf32>
// CHECK-NEXT:      %[[BACK:.*]] = tensor.insert_slice %[[G1]] into %[[Z1]][%[[I]], 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<6x4xf32>
// CHECK-NEXT:      autodiff.yield %[[BACK]]
// CHECK:         %[[SUM:.*]] = autodiff.autograd_add %[[GDEST]], %[[GX]] : tensor<6x4xf32>
// CHECK:         func.return %{{.*}}, %[[SUM]]

// -----

// tensor.insert of a scalar computed from a tensor.extract, at dynamic
// indices: the scalar gets the gradient's element, the destination the
// gradient with that element zeroed; float scalar gradients meet in
// autograd_add.
func.func @elements(%x: tensor<4x3xf32>, %i: index, %j: index) -> tensor<4x3xf32> {
  %v = tensor.extract %x[%i, %j] : tensor<4x3xf32>
  %w = arith.mulf %v, %v : f32
  %z = tensor.insert %w into %x[%j, %i] : tensor<4x3xf32>
  return %z : tensor<4x3xf32>
}
func.func @vjp(%x: tensor<4x3xf32>, %i: index, %j: index, %ct: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %r, %dx = autodiff.vjp @elements(%x, %i, %j, %ct) {wrt = array<i64: 0>} : (tensor<4x3xf32>, index, index, tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>)
  return %dx : tensor<4x3xf32>
}
// CHECK-LABEL: func.func @elements_vjp_0(
// CHECK-SAME:    %{{.*}}: tensor<4x3xf32>, %[[I:.*]]: index, %[[J:.*]]: index, %[[CT:.*]]: tensor<4x3xf32>)
// CHECK:         %[[GW:.*]], %[[GDEST:.*]] = autodiff.grad_of "tensor.insert"(%[[CT]]) : (tensor<4x3xf32>) -> (f32, tensor<4x3xf32>)
// CHECK-NEXT:    ^bb0(%[[G:.*]]: tensor<4x3xf32>):
// CHECK-NEXT:      %[[E:.*]] = tensor.extract %[[G]][%[[J]], %[[I]]] : tensor<4x3xf32>
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[REST:.*]] = tensor.insert %[[Z]] into %[[G]][%[[J]], %[[I]]] : tensor<4x3xf32>
// CHECK-NEXT:      autodiff.yield %[[E]], %[[REST]] : f32, tensor<4x3xf32>
// CHECK:         %[[L:.*]], %[[R:.*]] = autodiff.grad_of "arith.mulf"(%[[GW]]) : (f32) -> (f32, f32)
// CHECK:         %[[GV:.*]] = autodiff.autograd_add %[[L]], %[[R]] : f32
// CHECK:         %[[GX:.*]] = autodiff.grad_of "tensor.extract"(%[[GV]]) : (f32) -> tensor<4x3xf32>
// CHECK:           tensor.insert %{{.*}} into %{{.*}}[%[[I]], %[[J]]] : tensor<4x3xf32>
// CHECK:         %[[SUM:.*]] = autodiff.autograd_add %[[GDEST]], %[[GX]] : tensor<4x3xf32>
// CHECK:         func.return %{{.*}}, %[[SUM]]

// -----

// expand_shape/collapse_shape reshape the gradient back; tensor.cast casts it
// back; tensor.concat gives each input its slice of the gradient.
func.func @shapes(%x: tensor<2x6xf32>, %y: tensor<2x3xf32>) -> tensor<6x3xf32> {
  %e = tensor.expand_shape %x [[0], [1, 2]] output_shape [2, 2, 3] : tensor<2x6xf32> into tensor<2x2x3xf32>
  %c = tensor.collapse_shape %e [[0, 1], [2]] : tensor<2x2x3xf32> into tensor<4x3xf32>
  %k = tensor.cast %y : tensor<2x3xf32> to tensor<2x3xf32>
  %j = tensor.concat dim(0) %c, %k : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<6x3xf32>
  return %j : tensor<6x3xf32>
}
func.func @vjp(%x: tensor<2x6xf32>, %y: tensor<2x3xf32>, %ct: tensor<6x3xf32>) -> (tensor<2x6xf32>, tensor<2x3xf32>) {
  %r, %dx, %dy = autodiff.vjp @shapes(%x, %y, %ct) : (tensor<2x6xf32>, tensor<2x3xf32>, tensor<6x3xf32>) -> (tensor<6x3xf32>, tensor<2x6xf32>, tensor<2x3xf32>)
  return %dx, %dy : tensor<2x6xf32>, tensor<2x3xf32>
}
// CHECK-LABEL: func.func @shapes_vjp_0_1(
// CHECK:         %[[GC:.*]], %[[GK:.*]] = autodiff.grad_of "tensor.concat"(%{{.*}}) : (tensor<6x3xf32>) -> (tensor<4x3xf32>, tensor<2x3xf32>)
// CHECK-NEXT:    ^bb0(%[[G:.*]]: tensor<6x3xf32>):
// CHECK-NEXT:      %[[TOP:.*]] = tensor.extract_slice %[[G]][0, 0] [4, 3] [1, 1] : tensor<6x3xf32> to tensor<4x3xf32>
// CHECK-NEXT:      %[[BOTTOM:.*]] = tensor.extract_slice %[[G]][4, 0] [2, 3] [1, 1] : tensor<6x3xf32> to tensor<2x3xf32>
// CHECK-NEXT:      autodiff.yield %[[TOP]], %[[BOTTOM]]
// CHECK:         %[[GY:.*]] = autodiff.grad_of "tensor.cast"(%[[GK]])
// CHECK-NEXT:    ^bb0(%[[G1:.*]]: tensor<2x3xf32>):
// CHECK-NEXT:      %[[CAST:.*]] = tensor.cast %[[G1]] : tensor<2x3xf32> to tensor<2x3xf32>
// CHECK:         %[[GE:.*]] = autodiff.grad_of "tensor.collapse_shape"(%[[GC]]) : (tensor<4x3xf32>) -> tensor<2x2x3xf32>
// CHECK-NEXT:    ^bb0(%[[G2:.*]]: tensor<4x3xf32>):
// CHECK-NEXT:      autodiff.reshape %[[G2]] : tensor<4x3xf32> -> tensor<2x2x3xf32>
// CHECK:         %[[GX:.*]] = autodiff.grad_of "tensor.expand_shape"(%[[GE]]) : (tensor<2x2x3xf32>) -> tensor<2x6xf32>
// CHECK-NEXT:    ^bb0(%[[G3:.*]]: tensor<2x2x3xf32>):
// CHECK-NEXT:      autodiff.reshape %[[G3]] : tensor<2x2x3xf32> -> tensor<2x6xf32>
// CHECK:         func.return %{{.*}}, %[[GX]], %[[GY]]

// -----

// tensor.splat gives its scalar the sum of the gradient; tensor.from_elements
// gives each scalar its element; linalg.add passes the gradient to both sides.
func.func @scalars(%x: tensor<2xf32>) -> tensor<2x2xf32> {
  %c0 = arith.constant 0 : index
  %a = tensor.extract %x[%c0] : tensor<2xf32>
  %s = tensor.splat %a : tensor<2x2xf32>
  %f = tensor.from_elements %a, %a : tensor<2xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %b = linalg.broadcast ins(%f : tensor<2xf32>) outs(%e : tensor<2x2xf32>) dimensions = [0]
  %p = linalg.add ins(%s, %b : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %p : tensor<2x2xf32>
}
func.func @vjp(%x: tensor<2xf32>, %ct: tensor<2x2xf32>) -> tensor<2xf32> {
  %r, %dx = autodiff.vjp @scalars(%x, %ct) : (tensor<2xf32>, tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>)
  return %dx : tensor<2xf32>
}
// CHECK-LABEL: func.func @scalars_vjp_0(
// CHECK:         %[[GS:.*]], %[[GB:.*]] = autodiff.grad_of "linalg.add"(%{{.*}}) : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>)
// CHECK-NEXT:    ^bb0(%[[G:.*]]: tensor<2x2xf32>):
// CHECK-NEXT:      autodiff.yield %[[G]], %[[G]]
// CHECK:         %[[GF:.*]] = autodiff.grad_of "linalg.broadcast"(%[[GB]])
// CHECK:         %[[E0:.*]], %[[E1:.*]] = autodiff.grad_of "tensor.from_elements"(%[[GF]]) : (tensor<2xf32>) -> (f32, f32)
// CHECK-NEXT:    ^bb0(%[[G1:.*]]: tensor<2xf32>):
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:      tensor.extract %[[G1]][%[[ZERO]]] : tensor<2xf32>
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:      tensor.extract %[[G1]][%[[ONE]]] : tensor<2xf32>
// CHECK:         %[[FROM:.*]] = autodiff.autograd_add %[[E0]], %[[E1]] : f32
// CHECK:         %[[SPLAT:.*]] = autodiff.grad_of "tensor.splat"(%[[GS]]) : (tensor<2x2xf32>) -> f32
// CHECK-NEXT:    ^bb0(%[[G2:.*]]: tensor<2x2xf32>):
// CHECK-NEXT:      %[[SUM:.*]] = autodiff.sum %[[G2]] : tensor<2x2xf32> -> tensor<f32>
// CHECK-NEXT:      tensor.extract %[[SUM]][] : tensor<f32>
// CHECK:         %[[GA:.*]] = autodiff.autograd_add %[[FROM]], %[[SPLAT]] : f32
// CHECK:         autodiff.grad_of "tensor.extract"(%[[GA]])

// -----

// Forward mode: the same linear ops on the tangents. The matmul's init is a
// fill of a constant (no tangent) and %b has none, so only A's term remains;
// linalg.exp reuses math.exp's tangent formula; the insert_slice's
// destination has no tangent, so a zero stands for it.
func.func @tangents(%a: tensor<3x5xf32>, %b: tensor<5x2xf32>, %xs: tensor<6x2xf32>, %i: index) -> tensor<6x2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %m = linalg.matmul ins(%a, %b : tensor<3x5xf32>, tensor<5x2xf32>) outs(%c : tensor<3x2xf32>) -> tensor<3x2xf32>
  %x = linalg.exp ins(%m : tensor<3x2xf32>) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %r = tensor.insert_slice %x into %xs[%i, 0] [3, 2] [1, 1] : tensor<3x2xf32> into tensor<6x2xf32>
  return %r : tensor<6x2xf32>
}
func.func @jvp(%a: tensor<3x5xf32>, %b: tensor<5x2xf32>, %xs: tensor<6x2xf32>, %i: index, %ta: tensor<3x5xf32>) -> tensor<6x2xf32> {
  %r, %t = autodiff.jvp @tangents(%a, %b, %xs, %i, %ta) {wrt = array<i64: 0>} : (tensor<3x5xf32>, tensor<5x2xf32>, tensor<6x2xf32>, index, tensor<3x5xf32>) -> (tensor<6x2xf32>, tensor<6x2xf32>)
  return %t : tensor<6x2xf32>
}
// CHECK-LABEL: func.func @tangents_jvp_0(
// CHECK-SAME:    %{{.*}}: tensor<3x5xf32>, %[[B:.*]]: tensor<5x2xf32>, %{{.*}}: tensor<6x2xf32>, %[[I:.*]]: index, %[[TA:.*]]: tensor<3x5xf32>)
// CHECK:         linalg.matmul
// CHECK-NEXT:    %[[TM:.*]] = autodiff.matmul %[[TA]], %[[B]] : (tensor<3x5xf32>, tensor<5x2xf32>) -> tensor<3x2xf32>
// CHECK-NEXT:    %[[X:.*]] = linalg.exp
// CHECK-NEXT:    %[[TX:.*]] = autodiff.mul %[[TM]], %[[X]]
// CHECK-NEXT:    %[[R:.*]] = tensor.insert_slice
// CHECK-NEXT:    %[[Z:.*]] = arith.constant dense<0.000000e+00> : tensor<6x2xf32>
// CHECK-NEXT:    %[[TR:.*]] = tensor.insert_slice %[[TX]] into %[[Z]][%[[I]], 0] [3, 2] [1, 1] : tensor<3x2xf32> into tensor<6x2xf32>
// CHECK-NEXT:    func.return %[[R]], %[[TR]]

// -----

// A matmul reading A transposed (A is 4x3, the product uses Aᵀ): A gets
// B gᵀ, of A's stored shape, and B gets (Aᵀ)ᵀ g = A g with no transpose.
func.func @transposed_a(%a: tensor<4x3xf32>, %b: tensor<4x2xf32>, %c: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %m = "linalg.matmul"(%a, %b, %c) <{operandSegmentSizes = array<i32: 2, 1>, indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]}> ({
  ^bb0(%x: f32, %y: f32, %z: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %z, %p : f32
    linalg.yield %s : f32
  }) : (tensor<4x3xf32>, tensor<4x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %m : tensor<3x2xf32>
}
func.func @vjp(%a: tensor<4x3xf32>, %b: tensor<4x2xf32>, %c: tensor<3x2xf32>, %ct: tensor<3x2xf32>) -> (tensor<4x3xf32>, tensor<4x2xf32>) {
  %r, %da, %db = autodiff.vjp @transposed_a(%a, %b, %c, %ct) {wrt = array<i64: 0, 1>} : (tensor<4x3xf32>, tensor<4x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<4x3xf32>, tensor<4x2xf32>)
  return %da, %db : tensor<4x3xf32>, tensor<4x2xf32>
}
// CHECK-LABEL: func.func @transposed_a_vjp_0_1(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4x3xf32>, %[[B:[^:]*]]: tensor<4x2xf32>
// CHECK:         autodiff.grad_of "linalg.matmul"(%{{.*}}) : (tensor<3x2xf32>) -> (tensor<4x3xf32>, tensor<4x2xf32>)
// CHECK-NEXT:    ^bb0(%[[G:.*]]: tensor<3x2xf32>):
// CHECK-NEXT:      %[[GT:.*]] = autodiff.transpose %[[G]] {permutation = array<i64: 1, 0>} : tensor<3x2xf32> -> tensor<2x3xf32>
// CHECK-NEXT:      %[[DA:.*]] = autodiff.matmul %[[B]], %[[GT]] : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:      %[[DB:.*]] = autodiff.matmul %[[A]], %[[G]] : (tensor<4x3xf32>, tensor<3x2xf32>) -> tensor<4x2xf32>
// CHECK-NEXT:      autodiff.yield %[[DA]], %[[DB]]
