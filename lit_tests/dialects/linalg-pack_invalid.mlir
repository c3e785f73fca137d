// linalg.pack / linalg.unpack shapes MLIR 22 refuses, in MLIR's words, with dynamic
// sizes about: a dynamic size matches any size, but static sizes must still agree, and a
// packed tile dimension must be the tile size itself, never `?`.
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @f(%x: tensor<?x5xf32>, %d: tensor<?x2x2x2xf32>, %p: f32) -> tensor<?x2x2x2xf32> {
  // CHECK: linalg-pack_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.pack' op expected 'tensor<?x3x2x2xf32>' for the packed domain value, got 'tensor<?x2x2x2xf32>'
  %0 = linalg.pack %x padding_value(%p : f32) inner_dims_pos = [0, 1] inner_tiles = [2, 2] into %d : tensor<?x5xf32> -> tensor<?x2x2x2xf32>
  return %0 : tensor<?x2x2x2xf32>
}

// -----

func.func @f(%x: tensor<?x6xf32>, %d: tensor<?x4x2xf32>) -> tensor<?x4x2xf32> {
  // CHECK: linalg-pack_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.pack' op expected 'tensor<?x6x2xf32>' for the packed domain value, got 'tensor<?x4x2xf32>'
  %0 = linalg.pack %x inner_dims_pos = [0] inner_tiles = [2] into %d : tensor<?x6xf32> -> tensor<?x4x2xf32>
  return %0 : tensor<?x4x2xf32>
}

// -----

func.func @f(%x: tensor<?xf32>, %d: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // CHECK: linalg-pack_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.pack' op mismatch in inner tile sizes specified and shaped of tiled dimension in the packed type
  %0 = linalg.pack %x inner_dims_pos = [0] inner_tiles = [2] into %d : tensor<?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

func.func @f(%x: tensor<?x3x3x3xf32>, %d: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // CHECK: linalg-pack_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.unpack' op expected 'tensor<?x2x3x3xf32>' for the packed domain value, got 'tensor<?x3x3x3xf32>'
  %0 = linalg.unpack %x inner_dims_pos = [0, 1] inner_tiles = [3, 3] into %d : tensor<?x3x3x3xf32> -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// As MLIR: a wrong static tile dimension is named before the outer sizes.
func.func @f(%x: tensor<4xf32>, %d: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: linalg-pack_invalid.mlir:[[# @LINE + 1]]:3: error: 'linalg.pack' op mismatch in inner tile sizes specified and shaped of tiled dimension in the packed type
  %0 = linalg.pack %x inner_dims_pos = [0] inner_tiles = [2] into %d : tensor<4xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
