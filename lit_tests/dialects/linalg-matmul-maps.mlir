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
