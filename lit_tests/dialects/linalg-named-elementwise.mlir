// MLIR 22's named elementwise ops that xDSL 0.74 lacks (abs ceil erf floor negf
// reciprocal round rsqrt square tanh div powf div_unsigned) in MLIR's custom form
// print back the same, and their generic form (with MLIR's body) reads back to it.
// RUN: autodiff-opt %s --split-input-file | filecheck %s
// RUN: autodiff-opt %s --split-input-file | autodiff-opt --split-input-file | filecheck %s
// RUN: autodiff-opt %s --split-input-file --print-op-generic | autodiff-opt --split-input-file | filecheck %s
// RUN: autodiff-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @unary
// CHECK:         linalg.abs ins(%{{.*}} : tensor<2x3xf32>) outs(%{{.*}} : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK:         linalg.ceil ins(
// CHECK:         linalg.erf ins(
// CHECK:         linalg.floor ins(
// CHECK:         linalg.negf ins(
// CHECK:         linalg.reciprocal ins(
// CHECK:         linalg.round ins(
// CHECK:         linalg.rsqrt ins(
// CHECK:         linalg.square ins(
// CHECK:         linalg.tanh {note = 1 : i64} ins(%{{.*}} : tensor<2x3xf32>) outs(%{{.*}} : tensor<2x3xf32>) -> tensor<2x3xf32>
// GENERIC-LABEL: sym_name = "unary"
// GENERIC:         "linalg.abs"(%{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1>}> ({
// GENERIC-NEXT:    ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// GENERIC-NEXT:      %[[A:.*]] = "math.absf"(%[[X]])
// GENERIC-NEXT:      "linalg.yield"(%[[A]])
// GENERIC:         "math.ceil"
// GENERIC:         "math.erf"
// GENERIC:         "math.floor"
// GENERIC:         "arith.negf"
// GENERIC:         "linalg.reciprocal"
// GENERIC-NEXT:    ^bb0(%[[R:.*]]: f32, %{{.*}}: f32):
// GENERIC-NEXT:      %[[ONE:.*]] = "arith.constant"() <{value = 1.000000e+00 : f32}>
// GENERIC-NEXT:      "arith.divf"(%[[ONE]], %[[R]])
// GENERIC:         "math.round"
// GENERIC:         "math.rsqrt"
// GENERIC:         "linalg.square"
// GENERIC-NEXT:    ^bb0(%[[S:.*]]: f32, %{{.*}}: f32):
// GENERIC-NEXT:      "arith.mulf"(%[[S]], %[[S]])
// GENERIC:         "math.tanh"
// GENERIC:         }) {note = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @unary(%x: tensor<2x3xf32>, %o: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = linalg.abs ins(%x : tensor<2x3xf32>) outs(%o : tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = linalg.ceil ins(%0 : tensor<2x3xf32>) outs(%o : tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = linalg.erf ins(%1 : tensor<2x3xf32>) outs(%o : tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = linalg.floor ins(%2 : tensor<2x3xf32>) outs(%o : tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = linalg.negf ins(%3 : tensor<2x3xf32>) outs(%o : tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = linalg.reciprocal ins(%4 : tensor<2x3xf32>) outs(%o : tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = linalg.round ins(%5 : tensor<2x3xf32>) outs(%o : tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = linalg.rsqrt ins(%6 : tensor<2x3xf32>) outs(%o : tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = linalg.square ins(%7 : tensor<2x3xf32>) outs(%o : tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = linalg.tanh {note = 1 : i64} ins(%8 : tensor<2x3xf32>) outs(%o : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %9 : tensor<2x3xf32>
}

// -----

// Binary ops; a scalar operand is read in every iteration (its map is `()`);
// div on integers is signed, div_unsigned takes integers only.
// CHECK-LABEL: func.func @binary
// CHECK:         linalg.div ins(%{{.*}}, %{{.*}} : tensor<4xf64>, tensor<4xf64>) outs(%{{.*}} : tensor<4xf64>) -> tensor<4xf64>
// CHECK:         linalg.powf ins(%{{.*}}, %{{.*}} : tensor<4xf64>, f64) outs(%{{.*}} : tensor<4xf64>) -> tensor<4xf64>
// CHECK:         linalg.div ins(%{{.*}}, %{{.*}} : tensor<4xi32>, tensor<4xi32>) outs(%{{.*}} : tensor<4xi32>) -> tensor<4xi32>
// CHECK:         linalg.div_unsigned ins(%{{.*}}, %{{.*}} : tensor<4xi32>, tensor<4xi32>) outs(%{{.*}} : tensor<4xi32>) -> tensor<4xi32>
// GENERIC-LABEL: sym_name = "binary"
// GENERIC:         "arith.divf"
// GENERIC:         "math.powf"
// GENERIC:         }) : (tensor<4xf64>, f64, tensor<4xf64>) -> tensor<4xf64>
// GENERIC:         "arith.divsi"
// GENERIC:         "arith.divui"
func.func @binary(%x: tensor<4xf64>, %y: tensor<4xf64>, %s: f64, %o: tensor<4xf64>, %i: tensor<4xi32>, %j: tensor<4xi32>, %k: tensor<4xi32>) -> (tensor<4xf64>, tensor<4xi32>) {
  %0 = linalg.div ins(%x, %y : tensor<4xf64>, tensor<4xf64>) outs(%o : tensor<4xf64>) -> tensor<4xf64>
  %1 = linalg.powf ins(%0, %s : tensor<4xf64>, f64) outs(%o : tensor<4xf64>) -> tensor<4xf64>
  %2 = linalg.div ins(%i, %j : tensor<4xi32>, tensor<4xi32>) outs(%k : tensor<4xi32>) -> tensor<4xi32>
  %3 = linalg.div_unsigned ins(%2, %j : tensor<4xi32>, tensor<4xi32>) outs(%k : tensor<4xi32>) -> tensor<4xi32>
  return %1, %3 : tensor<4xf64>, tensor<4xi32>
}

// -----

// On buffers: no result.
// CHECK-LABEL: func.func @buffers
// CHECK:         linalg.rsqrt ins(%{{.*}} : memref<8xf32>) outs(%{{.*}} : memref<8xf32>)
// CHECK-NEXT:    func.return
func.func @buffers(%x: memref<8xf32>, %o: memref<8xf32>) {
  linalg.rsqrt ins(%x : memref<8xf32>) outs(%o : memref<8xf32>)
  return
}
