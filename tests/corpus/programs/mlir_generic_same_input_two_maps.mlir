// Source: llvm/llvm-project mlir/test/Dialect/Linalg/canonicalize-duplicate-inputs.mlir (commit 231429fbcd24c8625afda3200aef58bf4f5c3028), https://github.com/llvm/llvm-project/blob/231429fbcd24c8625afda3200aef58bf4f5c3028/mlir/test/Dialect/Linalg/canonicalize-duplicate-inputs.mlir
// What: a linalg.generic reading the same tensor twice, once directly and once transposed, and writing into that same tensor as its init: x + x^T.
// Adaptations: kept only @distinct_affine_maps of the split file (dropped the CHECK lines and the other splits); dynamic shapes made static (tensor<?x?xf32> -> tensor<3x3xf32>, square as the maps require); added the gradir entry @vjp_maps (autodiff.vjp) below the marker.
// gradir-corpus: entry=distinct_affine_maps wrt=0 reference=mlir_x_plus_xt inputs=signed

#map0 = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1, d0)>

func.func @distinct_affine_maps(%arg0: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %0 = linalg.generic {indexing_maps = [#map0, #map1, #map0], iterator_types = ["parallel", "parallel"]}
     ins(%arg0, %arg0 : tensor<3x3xf32>, tensor<3x3xf32>)
    outs(%arg0 : tensor<3x3xf32>) {
  ^bb0(%arg1: f32, %arg2: f32, %arg3: f32):
    %1 = arith.addf %arg1, %arg2 : f32
    linalg.yield %1 : f32
  } -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_maps(%x: tensor<3x3xf32>, %ct: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>) {
  %r:2 = autodiff.vjp @distinct_affine_maps(%x, %ct) {wrt = array<i64: 0>} : (tensor<3x3xf32>, tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>)
  return %r#0, %r#1 : tensor<3x3xf32>, tensor<3x3xf32>
}
