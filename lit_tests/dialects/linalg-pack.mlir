// MLIR 22's linalg.pack and linalg.unpack in MLIR's custom form print back the same,
// and their generic form (properties inner_dims_pos, outer_dims_perm,
// static_inner_tiles; pack's operandSegmentSizes) reads back to it.
// RUN: autodiff-opt %s --split-input-file | filecheck %s
// RUN: autodiff-opt %s --split-input-file | autodiff-opt --split-input-file | filecheck %s
// RUN: autodiff-opt %s --split-input-file --print-op-generic | autodiff-opt --split-input-file | filecheck %s
// RUN: autodiff-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @pack_padded
// CHECK:         linalg.pack %{{.*}} padding_value(%{{.*}} : f32) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [3, 2] into %{{.*}} : tensor<5x4xf32> -> tensor<2x3x3x2xf32>
// GENERIC-LABEL: sym_name = "pack_padded"
// GENERIC:         "linalg.pack"(%{{.*}}, %{{.*}}, %{{.*}}) <{outer_dims_perm = array<i64: 1, 0>, inner_dims_pos = array<i64: 1, 0>, static_inner_tiles = array<i64: 3, 2>, operandSegmentSizes = array<i32: 1, 1, 1, 0>}> : (tensor<5x4xf32>, tensor<2x3x3x2xf32>, f32) -> tensor<2x3x3x2xf32>
func.func @pack_padded(%x: tensor<5x4xf32>, %p: f32, %d: tensor<2x3x3x2xf32>) -> tensor<2x3x3x2xf32> {
  %0 = linalg.pack %x padding_value(%p : f32) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [3, 2]
         into %d : tensor<5x4xf32> -> tensor<2x3x3x2xf32>
  return %0 : tensor<2x3x3x2xf32>
}

// -----

// Full tiles need no padding value; attributes go after the destination.
// CHECK-LABEL: func.func @pack_unpack
// CHECK:         %[[P:.*]] = linalg.pack %{{.*}} inner_dims_pos = [0] inner_tiles = [2] into %{{.*}} {note = 1 : i64} : tensor<4x6xf64> -> tensor<2x6x2xf64>
// CHECK:         linalg.unpack %[[P]] inner_dims_pos = [0] inner_tiles = [2] into %{{.*}} : tensor<2x6x2xf64> -> tensor<4x6xf64>
// GENERIC-LABEL: sym_name = "pack_unpack"
// GENERIC:         "linalg.pack"(%{{.*}}, %{{.*}}) <{inner_dims_pos = array<i64: 0>, static_inner_tiles = array<i64: 2>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> {note = 1 : i64}
// GENERIC:         "linalg.unpack"(%{{.*}}, %{{.*}}) <{inner_dims_pos = array<i64: 0>, static_inner_tiles = array<i64: 2>}> : (tensor<2x6x2xf64>, tensor<4x6xf64>) -> tensor<4x6xf64>
func.func @pack_unpack(%x: tensor<4x6xf64>, %d: tensor<2x6x2xf64>) -> tensor<4x6xf64> {
  %0 = linalg.pack %x inner_dims_pos = [0] inner_tiles = [2] into %d {note = 1 : i64} : tensor<4x6xf64> -> tensor<2x6x2xf64>
  %1 = linalg.unpack %0 inner_dims_pos = [0] inner_tiles = [2] into %x : tensor<2x6x2xf64> -> tensor<4x6xf64>
  return %1 : tensor<4x6xf64>
}

// -----

// A dynamic tiled dimension has a dynamic tile count (MLIR's rule), not the `?` sentinel
// divided by the tile; a static size on one side matches a dynamic one on the other.
// CHECK-LABEL: func.func @pack_dynamic
// CHECK:         linalg.pack %{{.*}} inner_dims_pos = [0] inner_tiles = [2] into %{{.*}} : tensor<?xf32> -> tensor<?x2xf32>
// CHECK:         linalg.pack %{{.*}} padding_value(%{{.*}} : f32) outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [3, 3] into %{{.*}} : tensor<?x?xf32> -> tensor<?x?x3x3xf32>
// CHECK:         linalg.pack %{{.*}} inner_dims_pos = [0] inner_tiles = [2] into %{{.*}} : tensor<?x6xf32> -> tensor<4x6x2xf32>
// CHECK:         linalg.pack %{{.*}} inner_dims_pos = [0] inner_tiles = [2] into %{{.*}} : tensor<8x6xf32> -> tensor<?x6x2xf32>
// GENERIC-LABEL: sym_name = "pack_dynamic"
// GENERIC:         "linalg.pack"(%{{.*}}, %{{.*}}) <{inner_dims_pos = array<i64: 0>, static_inner_tiles = array<i64: 2>, operandSegmentSizes = array<i32: 1, 1, 0, 0>}> : (tensor<?xf32>, tensor<?x2xf32>) -> tensor<?x2xf32>
func.func @pack_dynamic(%x: tensor<?xf32>, %d: tensor<?x2xf32>, %y: tensor<?x?xf32>, %e: tensor<?x?x3x3xf32>, %p: f32,
                        %z: tensor<?x6xf32>, %f: tensor<4x6x2xf32>, %w: tensor<8x6xf32>, %g: tensor<?x6x2xf32>) {
  %0 = linalg.pack %x inner_dims_pos = [0] inner_tiles = [2] into %d : tensor<?xf32> -> tensor<?x2xf32>
  %1 = linalg.pack %y padding_value(%p : f32) outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [3, 3]
         into %e : tensor<?x?xf32> -> tensor<?x?x3x3xf32>
  %2 = linalg.pack %z inner_dims_pos = [0] inner_tiles = [2] into %f : tensor<?x6xf32> -> tensor<4x6x2xf32>
  %3 = linalg.pack %w inner_dims_pos = [0] inner_tiles = [2] into %g : tensor<8x6xf32> -> tensor<?x6x2xf32>
  return
}

// -----

// CHECK-LABEL: func.func @unpack_dynamic
// CHECK:         linalg.unpack %{{.*}} inner_dims_pos = [0, 1] inner_tiles = [3, 3] into %{{.*}} : tensor<?x?x3x3xf32> -> tensor<?x?xf32>
// CHECK:         linalg.unpack %{{.*}} outer_dims_perm = [1, 0] inner_dims_pos = [0] inner_tiles = [2] into %{{.*}} : tensor<6x?x2xf32> -> tensor<?x6xf32>
// GENERIC-LABEL: sym_name = "unpack_dynamic"
// GENERIC:         "linalg.unpack"(%{{.*}}, %{{.*}}) <{inner_dims_pos = array<i64: 0, 1>, static_inner_tiles = array<i64: 3, 3>}> : (tensor<?x?x3x3xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
func.func @unpack_dynamic(%x: tensor<?x?x3x3xf32>, %d: tensor<?x?xf32>, %y: tensor<6x?x2xf32>, %e: tensor<?x6xf32>) {
  %0 = linalg.unpack %x inner_dims_pos = [0, 1] inner_tiles = [3, 3] into %d : tensor<?x?x3x3xf32> -> tensor<?x?xf32>
  %1 = linalg.unpack %y outer_dims_perm = [1, 0] inner_dims_pos = [0] inner_tiles = [2] into %e : tensor<6x?x2xf32> -> tensor<?x6xf32>
  return
}
