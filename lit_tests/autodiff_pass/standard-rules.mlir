// Reverse mode of standard MLIR ops: arith/math rules from derivatives.yaml,
// linalg named ops, and linalg.generic (an adjoint generic per operand).
// RUN: autodiff-opt %s --split-input-file -p autodiff-reverse | filecheck %s

// math.tanh on a tensor reuses the tanh formula; linalg.matmul's rule is
// g Bᵀ and Aᵀ g; the fill (a constant) is not active and gets nothing.
func.func @mm(%a: tensor<3x5xf32>, %b: tensor<5x2xf32>) -> tensor<3x2xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %m = linalg.matmul ins(%a, %b : tensor<3x5xf32>, tensor<5x2xf32>) outs(%c : tensor<3x2xf32>) -> tensor<3x2xf32>
  %t = math.tanh %m : tensor<3x2xf32>
  return %t : tensor<3x2xf32>
}
func.func @vjp_mm(%a: tensor<3x5xf32>, %b: tensor<5x2xf32>, %ct: tensor<3x2xf32>) -> (tensor<3x5xf32>, tensor<5x2xf32>) {
  %r, %da, %db = autodiff.vjp @mm(%a, %b, %ct) : (tensor<3x5xf32>, tensor<5x2xf32>, tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x5xf32>, tensor<5x2xf32>)
  return %da, %db : tensor<3x5xf32>, tensor<5x2xf32>
}
// CHECK-LABEL: func.func @mm_vjp_0_1(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<3x5xf32>, %[[B:[^:]*]]: tensor<5x2xf32>, %[[CT:[^:]*]]: tensor<3x2xf32>)
// CHECK:         %[[T:.*]] = math.tanh
// CHECK:         %[[GT:.*]] = autodiff.grad_of "math.tanh"(%[[CT]])
// CHECK:           autodiff.mul %[[T]], %[[T]]
// CHECK:         %[[GA:[^,]*]], %[[GB:[^ ]*]] = autodiff.grad_of "linalg.matmul"(%[[GT]])
// CHECK:         ^bb0(%[[G:.*]]: tensor<3x2xf32>):
// CHECK:           %[[BT:.*]] = autodiff.transpose %[[B]] {permutation = array<i64: 1, 0>}
// CHECK:           %[[DA:.*]] = autodiff.matmul %[[G]], %[[BT]]
// CHECK:           %[[AT:.*]] = autodiff.transpose %[[A]] {permutation = array<i64: 1, 0>}
// CHECK:           %[[DB:.*]] = autodiff.matmul %[[AT]], %[[G]]
// CHECK:           autodiff.yield %[[DA]], %[[DB]]
// CHECK-NOT:     grad_of "linalg.fill"
// CHECK:         func.return %[[T]], %[[GA]], %[[GB]]

// -----

// A generic adding a bias broadcast along rows, then tanh, differentiated
// w.r.t. the bias: one adjoint generic whose output has the bias's map, so
// the row loop becomes a reduction; its body recomputes tanh and applies
// tanh's rule on scalars, accumulating into the output element.
#rows = affine_map<(i, j) -> (i, j)>
#cols = affine_map<(i, j) -> (j)>
func.func @bias_tanh(%x: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<3x4xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %y = linalg.generic {indexing_maps = [#rows, #cols, #rows], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<3x4xf32>, tensor<4xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %z = arith.addf %u, %v : f32
    %t = math.tanh %z : f32
    linalg.yield %t : f32
  } -> tensor<3x4xf32>
  return %y : tensor<3x4xf32>
}
func.func @vjp_bias(%x: tensor<3x4xf32>, %b: tensor<4xf32>, %ct: tensor<3x4xf32>) -> tensor<4xf32> {
  %r, %db = autodiff.vjp @bias_tanh(%x, %b, %ct) {wrt = array<i64: 1>} : (tensor<3x4xf32>, tensor<4xf32>, tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<4xf32>)
  return %db : tensor<4xf32>
}
// CHECK-LABEL: func.func @bias_tanh_vjp_1(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3x4xf32>, %[[B:[^:]*]]: tensor<4xf32>, %[[CT:[^:]*]]: tensor<3x4xf32>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<3x4xf32>
// CHECK:         autodiff.grad_of "linalg.generic"(%[[CT]]) : (tensor<3x4xf32>) -> tensor<4xf32>
// CHECK:         ^bb0(%[[G:.*]]: tensor<3x4xf32>):
// CHECK:           %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK:           %[[DB:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
// CHECK-SAME:        ins(%[[X]], %[[B]], %[[E]], %[[G]] : {{.*}}) outs(%[[ZERO]] : tensor<4xf32>)
// CHECK:           ^bb0(%[[U:.*]]: f32, %[[V:.*]]: f32, %{{.*}}: f32, %[[GE:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK:             %[[Z:.*]] = arith.addf %[[U]], %[[V]] : f32
// CHECK:             %[[TH:.*]] = math.tanh %[[Z]] : f32
// CHECK:             %[[SQ:.*]] = arith.mulf %[[TH]], %[[TH]] : f32
// CHECK:             %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:             %[[D:.*]] = arith.subf %[[ONE]], %[[SQ]] : f32
// CHECK:             %[[C:.*]] = arith.mulf %[[GE]], %[[D]] : f32
// CHECK:             %[[SUM:.*]] = arith.addf %[[ACC]], %[[C]] : f32
// CHECK:             linalg.yield %[[SUM]] : f32
// CHECK:           autodiff.yield %[[DB]] : tensor<4xf32>
