// arith/math ops differentiated with their derivatives.yaml entries: on whole
// tensors the formulas emit autodiff ops (float casts stay arith casts), on
// f32 elements inside a linalg.generic body the same formulas emit arith/math.
// RUN: autodiff-opt %s --split-input-file -p autodiff-reverse,autodiff-forward | filecheck %s
// RUN: autodiff-opt %s --split-input-file -p autodiff-reverse,autodiff-forward,autodiff-lower-grad-of,convert-autodiff-to-linalg | filecheck %s --check-prefix=LOWER

// Reverse mode on tensors: extf's gradient is truncated back to f32, then
// exp's is grad * result (the primal result is reused, not recomputed).
func.func @exp_cast(%x: tensor<2x3xf32>) -> tensor<2x3xf64> {
  %e = math.exp %x : tensor<2x3xf32>
  %w = arith.extf %e : tensor<2x3xf32> to tensor<2x3xf64>
  return %w : tensor<2x3xf64>
}
func.func @vjp_exp_cast(%x: tensor<2x3xf32>, %ct: tensor<2x3xf64>) -> tensor<2x3xf32> {
  %r, %d = autodiff.vjp @exp_cast(%x, %ct) : (tensor<2x3xf32>, tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf32>)
  return %d : tensor<2x3xf32>
}
// CHECK-LABEL: func.func @exp_cast_vjp_0(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3xf32>, %[[CT:[^:]*]]: tensor<2x3xf64>)
// CHECK:         %[[E:.*]] = math.exp %[[X]] : tensor<2x3xf32>
// CHECK:         %[[W:.*]] = arith.extf %[[E]]
// CHECK:         %[[GE:.*]] = autodiff.grad_of "arith.extf"(%[[CT]]) : (tensor<2x3xf64>) -> tensor<2x3xf32>
// CHECK:         ^bb0(%[[G:.*]]: tensor<2x3xf64>):
// CHECK:           %[[T:.*]] = arith.truncf %[[G]] : tensor<2x3xf64> to tensor<2x3xf32>
// CHECK:           autodiff.yield %[[T]]
// CHECK:         %[[GX:.*]] = autodiff.grad_of "math.exp"(%[[GE]])
// CHECK:         ^bb0(%[[G2:.*]]: tensor<2x3xf32>):
// CHECK:           %[[M:.*]] = autodiff.mul %[[G2]], %[[E]]
// CHECK:           autodiff.yield %[[M]]
// CHECK:         func.return %[[W]], %[[GX]]

// -----

// Forward mode on tensors: erf' = 2/sqrt(pi) exp(-x^2); divf's tangent is
// (x_t - result * y_t) / y.
func.func @erf_div(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %e = math.erf %x : tensor<4xf32>
  %q = arith.divf %e, %y : tensor<4xf32>
  return %q : tensor<4xf32>
}
func.func @jvp_erf_div(%x: tensor<4xf32>, %y: tensor<4xf32>, %tx: tensor<4xf32>, %ty: tensor<4xf32>) -> tensor<4xf32> {
  %r, %t = autodiff.jvp @erf_div(%x, %y, %tx, %ty) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %t : tensor<4xf32>
}
// CHECK-LABEL: func.func @erf_div_jvp_0_1(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4xf32>, %[[Y:[^:]*]]: tensor<4xf32>, %[[TX:[^:]*]]: tensor<4xf32>, %[[TY:[^:]*]]: tensor<4xf32>)
// CHECK:         %[[SQ:.*]] = autodiff.mul %[[X]], %[[X]]
// CHECK:         %[[NEG:.*]] = autodiff.neg %[[SQ]]
// CHECK:         %[[EXP:.*]] = autodiff.exp %[[NEG]]
// CHECK:         %[[C:.*]] = arith.constant dense<1.12837923> : tensor<4xf32>
// CHECK:         %[[D:.*]] = autodiff.mul %[[C]], %[[EXP]]
// CHECK:         %[[TE:.*]] = autodiff.mul %[[TX]], %[[D]]
// CHECK:         %[[Q:.*]] = arith.divf %{{.*}}, %[[Y]] : tensor<4xf32>
// CHECK:         %[[QT:.*]] = autodiff.mul %[[Q]], %[[TY]]
// CHECK:         %[[NUM:.*]] = autodiff.sub %[[TE]], %[[QT]]
// CHECK:         %[[T:.*]] = autodiff.div %[[NUM]], %[[Y]]
// CHECK:         func.return %[[Q]], %[[T]]

// -----

// On scalars inside a generic body: log1p' = 1 / (1 + x) and maximumf's
// tie-sharing select become arith/math ops on f32, in both modes.
#id = affine_map<(i) -> (i)>
func.func @body(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %l = math.log1p %u : f32
    %m = arith.maximumf %l, %v : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @vjp_body(%x: tensor<4xf32>, %y: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %r, %d = autodiff.vjp @body(%x, %y, %ct) {wrt = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %d : tensor<4xf32>
}
func.func @jvp_body(%x: tensor<4xf32>, %y: tensor<4xf32>, %tx: tensor<4xf32>) -> tensor<4xf32> {
  %r, %t = autodiff.jvp @body(%x, %y, %tx) {wrt = array<i64: 0>} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %t : tensor<4xf32>
}
// CHECK-LABEL: func.func @body_jvp_0(
// CHECK:         ^bb0(%[[U:[^:]*]]: f32, %[[V:[^:]*]]: f32, %[[UT:[^:]*]]: f32, %{{[^:]*}}: f32, %{{[^:]*}}: f32):
// CHECK:           %[[L:.*]] = math.log1p %[[U]] : f32
// CHECK:           %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:           %[[D:.*]] = arith.addf %[[ONE]], %[[U]] : f32
// CHECK:           %[[LT:.*]] = arith.divf %[[UT]], %[[D]] : f32
// CHECK:           %[[M:.*]] = arith.maximumf %[[L]], %[[V]] : f32
// CHECK:           %[[GT:.*]] = arith.cmpf ogt, %[[L]], %[[V]] : f32
// CHECK:           %[[EQ:.*]] = arith.cmpf oeq, %[[L]], %[[V]] : f32
// CHECK:           %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK:           %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:           %[[TIE:.*]] = arith.select %[[EQ]], %[[HALF]], %[[ZERO]] : f32
// CHECK:           %[[SHARE:.*]] = arith.select %[[GT]], %[[ONE]], %[[TIE]] : f32
// CHECK:           %[[MT:.*]] = arith.mulf %[[LT]], %[[SHARE]] : f32
// CHECK:           linalg.yield %[[M]], %[[MT]] : f32, f32
// CHECK-LABEL: func.func @body_vjp_0(
// CHECK:         autodiff.grad_of "linalg.generic"
// CHECK:         ^bb0(%[[U:[^:]*]]: f32, %[[V:[^:]*]]: f32, %{{[^:]*}}: f32, %[[G:[^:]*]]: f32, %[[ACC:[^:]*]]: f32):
// CHECK:           %[[L:.*]] = math.log1p %[[U]] : f32
// CHECK:           %[[GT:.*]] = arith.cmpf ogt, %[[L]], %[[V]] : f32
// CHECK:           %[[SHARE:.*]] = arith.select %[[GT]]
// CHECK:           %[[GL:.*]] = arith.mulf %[[G]], %[[SHARE]] : f32
// CHECK:           %[[D:.*]] = arith.addf %{{.*}}, %[[U]] : f32
// CHECK:           %[[GU:.*]] = arith.divf %[[GL]], %[[D]] : f32
// CHECK-NOT:       %[[ACC]]
// CHECK:           linalg.yield %[[GU]] : f32

// -----

// Scalar gradients (a generic's element, tensor.extract) lower to arith.
func.func @scalar_gradients(%a: f32) -> (f32, f32) {
  %z = autodiff.autograd_zero : f32
  %s = autodiff.autograd_add %a, %a : f32
  return %z, %s : f32, f32
}
// LOWER-LABEL: func.func @scalar_gradients(
// LOWER-SAME:    %[[A:.*]]: f32)
// LOWER:         %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// LOWER:         %[[S:.*]] = arith.addf %[[A]], %[[A]] : f32
// LOWER:         func.return %[[Z]], %[[S]] : f32, f32
