// Source: llvm/llvm-project mlir/test/Integration/Dialect/Linalg/CPU/pack-unpack-mmt4d.mlir (commit 23223c8bdeb0ebf3f6a9437f09d5a2dc8bbdad09), https://github.com/llvm/llvm-project/blob/23223c8bdeb0ebf3f6a9437f09d5a2dc8bbdad09/mlir/test/Integration/Dialect/Linalg/CPU/pack-unpack-mmt4d.mlir
// What: a matrix product computed as linalg.pack of A, B (outer_dims_perm [1, 0]) and C into tiles padded with zeros, linalg.mmt4d on the tiles, and linalg.unpack of the result.
// Adaptations: kept only @mmt4d (dropped @main, @matmul, the transform schedule, the print declaration and the RUN/CHECK lines); i32 -> f32 throughout (the padding value 0 : i32 -> 0.0 : f32); the reduction dimension reduced from 16 to 4 (A 7x16 -> 7x4, B 16x13 -> 4x13, packed A 1x16x8x1 -> 1x4x8x1, packed B 2x16x8x1 -> 2x4x8x1; M = 7 and N = 13 kept, so that both packs still pad); made public (upstream's is private); added the gradir entry @vjp_mmt4d (autodiff.vjp) below the marker.
// gradir-corpus: entry=mmt4d wrt=0,1,2 reference=mlir_matmul_acc inputs=signed

func.func @mmt4d(%A: tensor<7x4xf32>, %B: tensor<4x13xf32>, %C: tensor<7x13xf32>) -> tensor<7x13xf32> {
  %zero = arith.constant 0.0 : f32

  %A_pack_empty = tensor.empty() : tensor<1x4x8x1xf32>
  %B_pack_empty = tensor.empty() : tensor<2x4x8x1xf32>
  %C_pack_empty = tensor.empty() : tensor<1x2x8x8xf32>

  // Pack matrices
  %A_pack = linalg.pack %A padding_value(%zero : f32) inner_dims_pos = [0, 1] inner_tiles = [8, 1] into %A_pack_empty : tensor<7x4xf32> -> tensor<1x4x8x1xf32>
  %B_pack = linalg.pack %B padding_value(%zero : f32) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [8, 1] into %B_pack_empty : tensor<4x13xf32> -> tensor<2x4x8x1xf32>
  %C_pack = linalg.pack %C padding_value(%zero : f32) outer_dims_perm = [0, 1] inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %C_pack_empty : tensor<7x13xf32> -> tensor<1x2x8x8xf32>

  // MMT4D
  %mmt4d = linalg.mmt4d ins(%A_pack, %B_pack : tensor<1x4x8x1xf32>, tensor<2x4x8x1xf32>) outs(%C_pack : tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32>

  // Unpack output
  %C_out_empty = tensor.empty() : tensor<7x13xf32>
  %C_out_unpack = linalg.unpack %mmt4d outer_dims_perm = [0, 1] inner_dims_pos = [0, 1] inner_tiles = [8, 8] into %C_out_empty : tensor<1x2x8x8xf32> -> tensor<7x13xf32>

  return %C_out_unpack : tensor<7x13xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_mmt4d(%a: tensor<7x4xf32>, %b: tensor<4x13xf32>, %c: tensor<7x13xf32>, %ct: tensor<7x13xf32>) -> (tensor<7x13xf32>, tensor<7x4xf32>, tensor<4x13xf32>, tensor<7x13xf32>) {
  %r:4 = autodiff.vjp @mmt4d(%a, %b, %c, %ct) {wrt = array<i64: 0, 1, 2>} : (tensor<7x4xf32>, tensor<4x13xf32>, tensor<7x13xf32>, tensor<7x13xf32>) -> (tensor<7x13xf32>, tensor<7x4xf32>, tensor<4x13xf32>, tensor<7x13xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<7x13xf32>, tensor<7x4xf32>, tensor<4x13xf32>, tensor<7x13xf32>
}
