// A linalg.matmul reading A transposed keeps its indexing_maps in custom form (MLIR's
// spelling), and the printed form parses again (xDSL 0.74 alone drops the maps).
// RUN: autodiff-opt %s | filecheck %s
// RUN: autodiff-opt %s | autodiff-opt | filecheck %s
// RUN: autodiff-opt %s --print-op-generic | autodiff-opt | filecheck %s --check-prefix=DEFAULT

// CHECK-LABEL: func.func @transposed_a
// CHECK:         linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<4x2xf32>) outs(%{{.*}} : tensor<3x2xf32>) -> tensor<3x2xf32>
func.func @transposed_a(%a: tensor<4x3xf32>, %b: tensor<4x2xf32>, %c: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %m = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%a, %b : tensor<4x3xf32>, tensor<4x2xf32>) outs(%c : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %m : tensor<3x2xf32>
}

// A matmul with the default maps prints without them.
// DEFAULT-LABEL: func.func @plain
// DEFAULT:         linalg.matmul ins(
// CHECK-LABEL: func.func @plain
// CHECK:         linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<3x4xf32>, tensor<4x2xf32>)
func.func @plain(%a: tensor<3x4xf32>, %b: tensor<4x2xf32>, %c: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<3x4xf32>, tensor<4x2xf32>) outs(%c : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %m : tensor<3x2xf32>
}

// linalg.batch_reduce_matmul: the batch summed too; default maps not printed, others
// (A transposed, B shared by the batch) printed before the attributes, cast kept.
// DEFAULT-LABEL: func.func @batch_reduce
// DEFAULT:         linalg.batch_reduce_matmul ins(
// CHECK-LABEL: func.func @batch_reduce
// CHECK:         linalg.batch_reduce_matmul ins(%{{.*}}, %{{.*}} : tensor<2x3x5xf32>, tensor<2x5x4xf32>) outs(%{{.*}} : tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK:         linalg.batch_reduce_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d1, d2)>] {cast = #linalg.type_fn<cast_unsigned>} ins(%{{.*}}, %{{.*}} : tensor<2x5x3xf32>, tensor<5x4xf32>)
func.func @batch_reduce(%a: tensor<2x3x5xf32>, %b: tensor<2x5x4xf32>, %at: tensor<2x5x3xf32>, %bs: tensor<5x4xf32>, %c: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = linalg.batch_reduce_matmul ins(%a, %b : tensor<2x3x5xf32>, tensor<2x5x4xf32>) outs(%c : tensor<3x4xf32>) -> tensor<3x4xf32>
  %1 = linalg.batch_reduce_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d1, d2)>] {cast = #linalg.type_fn<cast_unsigned>}
         ins(%at, %bs : tensor<2x5x3xf32>, tensor<5x4xf32>) outs(%0 : tensor<3x4xf32>) -> tensor<3x4xf32>
  return %1 : tensor<3x4xf32>
}
