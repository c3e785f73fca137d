// Source: llvm/llvm-project mlir/test/Dialect/Linalg/transform-op-fuse-into-containing.mlir (commit 00312886cca76b07a1f9efb0c81e6635c7b4b7ed), https://github.com/llvm/llvm-project/blob/00312886cca76b07a1f9efb0c81e6635c7b4b7ed/mlir/test/Dialect/Linalg/transform-op-fuse-into-containing.mlir
// What: scf.forall over chunks of a 1-d tensor (chunk count by affine.apply ceildiv, the last chunk clipped by affine.min), each thread applying an elementwise exp to its dynamically sized slice and writing it back with tensor.parallel_insert_slice into a shared output initialised by linalg.fill.
// Adaptations: kept only @fuse_tileable_op_through_bbarg of the split file (dropped the CHECK lines, the enclosing module and the transform schedule); dynamic shapes of the arguments and result made static (tensor<?xf32> -> tensor<5xf32>; the slices stay tensor<?xf32>); linalg.elemwise_unary (default fun exp), removed from MLIR since, written as its successor linalg.elementwise kind=#linalg.elementwise_kind<exp>; added the gradir entry @vjp_fuse_tileable_op_through_bbarg (autodiff.vjp wrt both tensors; the chunk size 2 comes from the input generator) below the marker.
// gradir-corpus: entry=fuse_tileable_op_through_bbarg wrt=1,2 reference=mu_forall_exp_chunks inputs=mu_chunk_two

#map0 = affine_map<()[s0, s1] -> (s0 ceildiv s1)>
#map1 = affine_map<(d0)[s0] -> (d0 * s0)>
#map2 = affine_map<(d0)[s0, s1] -> (-(d0 * s1) + s0, s1)>

  func.func @fuse_tileable_op_through_bbarg(%arg0: index, %arg1: tensor<5xf32>, %arg2: tensor<5xf32>) -> tensor<5xf32> {
    %cst = arith.constant 4.200000e+01 : f32
    %c0 = arith.constant 0 : index
    %0 = linalg.fill ins(%cst : f32) outs(%arg2 : tensor<5xf32>) -> tensor<5xf32>
    %d0 = tensor.dim %arg1, %c0 : tensor<5xf32>
    %1 = affine.apply #map0()[%d0, %arg0]

    %2 = scf.forall (%arg3) in (%1) shared_outs(%o = %0) -> (tensor<5xf32>) {
      %3 = affine.apply #map1(%arg3)[%arg0]
      %4 = affine.min #map2(%arg3)[%d0, %arg0]
      %5 = tensor.extract_slice %o[%3] [%4] [1] : tensor<5xf32> to tensor<?xf32>

      %6 = tensor.extract_slice %arg1[%3] [%4] [1] : tensor<5xf32> to tensor<?xf32>

      %7 = linalg.elementwise kind=#linalg.elementwise_kind<exp> ins(%6 : tensor<?xf32>) outs(%5 : tensor<?xf32>) -> tensor<?xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %7 into %o[%3] [%4] [1] : tensor<?xf32> into tensor<5xf32>
      }
    }
    func.return %2 : tensor<5xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_fuse_tileable_op_through_bbarg(%a0: index, %a1: tensor<5xf32>, %a2: tensor<5xf32>, %c0: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) {
  %r:3 = autodiff.vjp @fuse_tileable_op_through_bbarg(%a0, %a1, %a2, %c0) {wrt = array<i64: 1, 2>} : (index, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>)
  return %r#0, %r#1, %r#2 : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
}
