// Source: llvm/llvm-project mlir/test/Dialect/Linalg/canonicalize-duplicate-inputs.mlir (commit 231429fbcd24c8625afda3200aef58bf4f5c3028), https://github.com/llvm/llvm-project/blob/231429fbcd24c8625afda3200aef58bf4f5c3028/mlir/test/Dialect/Linalg/canonicalize-duplicate-inputs.mlir
// What: a linalg.generic with four results, each x + x written through a different permutation map ((d0, d2, d1), (d1, d2, d0), (d1, d0, d2), (d2, d0, d1)) into the argument itself as init; only results 0 and 2 are returned.
// Adaptations: kept only @drop_dead_results of the split file (dropped the CHECK lines and the other splits); dynamic shapes made static (tensor<?x?x?xf32> -> tensor<3x3x3xf32>, cubic as the permuted maps require); added the gradir entry @vjp_dead (autodiff.vjp) below the marker.
// gradir-corpus: entry=drop_dead_results wrt=0 reference=mlir_dead_results inputs=signed

#map0 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
#map3 = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
#map4 = affine_map<(d0, d1, d2) -> (d2, d0, d1)>
func.func @drop_dead_results(%arg0 : tensor<3x3x3xf32>) -> (tensor<3x3x3xf32>, tensor<3x3x3xf32>) {
  %0:4 = linalg.generic {
      indexing_maps = [#map0, #map1, #map2, #map3, #map4],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%arg0 : tensor<3x3x3xf32>)
      outs(%arg0, %arg0, %arg0, %arg0
          : tensor<3x3x3xf32>, tensor<3x3x3xf32>, tensor<3x3x3xf32>, tensor<3x3x3xf32>) {
    ^bb0(%b0 : f32, %b1 : f32, %b2 : f32, %b3 : f32, %b4 : f32) :
      %1 = arith.addf %b0, %b0: f32
      linalg.yield %1, %1, %1, %1 : f32, f32, f32, f32
    } -> (tensor<3x3x3xf32>, tensor<3x3x3xf32>, tensor<3x3x3xf32>, tensor<3x3x3xf32>)
  return %0#0, %0#2 : tensor<3x3x3xf32>, tensor<3x3x3xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_dead(%x: tensor<3x3x3xf32>, %c0: tensor<3x3x3xf32>, %c1: tensor<3x3x3xf32>) -> (tensor<3x3x3xf32>, tensor<3x3x3xf32>, tensor<3x3x3xf32>) {
  %r:3 = autodiff.vjp @drop_dead_results(%x, %c0, %c1) {wrt = array<i64: 0>} : (tensor<3x3x3xf32>, tensor<3x3x3xf32>, tensor<3x3x3xf32>) -> (tensor<3x3x3xf32>, tensor<3x3x3xf32>, tensor<3x3x3xf32>)
  return %r#0, %r#1, %r#2 : tensor<3x3x3xf32>, tensor<3x3x3xf32>, tensor<3x3x3xf32>
}
