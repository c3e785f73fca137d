// MLIR 22's linalg.fill_rng_2d prints back as MLIR prints it; its generic form carries
// MLIR's body (a linear congruential generator over the seed and the indices, scaled to
// [min, max) in f64), whose linalg.index ops sit in the named op, and reads back.
// RUN: autodiff-opt %s | filecheck %s
// RUN: autodiff-opt %s | autodiff-opt | filecheck %s
// RUN: autodiff-opt %s --print-op-generic | autodiff-opt | filecheck %s
// RUN: autodiff-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @noise
// CHECK:         linalg.fill_rng_2d ins(%{{.*}}, %{{.*}}, %{{.*}} : f64, f64, i32) outs(%{{.*}} : tensor<16x8xf32>) -> tensor<16x8xf32>
// GENERIC:       "linalg.fill_rng_2d"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 3, 1>}> ({
// GENERIC-NEXT:  ^bb0(%[[MIN:.*]]: f64, %[[MAX:.*]]: f64, %[[SEED:.*]]: i32, %{{.*}}: f32):
// GENERIC:         "linalg.index"() <{dim = 1 : i64}>
// GENERIC:         "linalg.index"() <{dim = 0 : i64}>
// GENERIC:         "arith.subf"(%[[MAX]], %[[MIN]])
// GENERIC:         %[[VALUE:.*]] = "arith.truncf"
// GENERIC-NEXT:    "linalg.yield"(%[[VALUE]])
func.func @noise(%min: f64, %max: f64, %seed: i32, %init: tensor<16x8xf32>) -> tensor<16x8xf32> {
  %0 = linalg.fill_rng_2d ins(%min, %max, %seed : f64, f64, i32) outs(%init : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %0 : tensor<16x8xf32>
}
