// Source: llvm/llvm-project mlir/test/Dialect/Linalg/vectorization/extract-with-patterns.mlir (commit 4829edbc8d1875058d2fbce372e6e5df47243e8c), https://github.com/llvm/llvm-project/blob/4829edbc8d1875058d2fbce372e6e5df47243e8c/mlir/test/Dialect/Linalg/vectorization/extract-with-patterns.mlir
// What: a linalg.generic gathering from a captured 3x3 f32 tensor with tensor.extract at indices read from two i32 operands (broadcast over two loop dimensions, so every gathered element is read many times and indices repeat), with an f32 input operand the body ignores.
// Adaptations: kept only @vectorize_nd_tensor_extract_index_from_tensor of the split file (dropped the CHECK lines and the other splits); shapes kept; added the gradir entry @vjp_vectorize_nd_tensor_extract_index_from_tensor (autodiff.vjp wrt the gathered tensor and the ignored f32 input; the i32 indices, 0 or 1, from the default generator) below the marker.
// gradir-corpus: entry=vectorize_nd_tensor_extract_index_from_tensor wrt=0,3 reference=mu_extract_index_from_tensor inputs=signed

#map0 = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @vectorize_nd_tensor_extract_index_from_tensor(%arg0: tensor<3x3xf32>, %arg1: tensor<4x3xi32>, %arg2: tensor<4x3xi32>, %arg3: tensor<4x7x2xf32>, %arg4: tensor<4x7x3x2xf32>) -> tensor<4x7x3x2xf32> {
  %2 = linalg.generic {
    indexing_maps = [#map0, #map0, #map1, #map2],
    iterator_types = ["parallel", "parallel", "parallel", "parallel"]
  } ins(%arg1, %arg2, %arg3 : tensor<4x3xi32>, tensor<4x3xi32>, tensor<4x7x2xf32>) outs(%arg4 : tensor<4x7x3x2xf32>) {
  ^bb0(%arg5: i32, %arg6: i32, %arg7: f32, %arg8: f32):
    %3 = arith.index_cast %arg5 : i32 to index
    %4 = arith.index_cast %arg6 : i32 to index
    %7 = tensor.extract %arg0[%3, %4] : tensor<3x3xf32>
    linalg.yield %7 : f32
  } -> tensor<4x7x3x2xf32>
  return %2 : tensor<4x7x3x2xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_vectorize_nd_tensor_extract_index_from_tensor(%a0: tensor<3x3xf32>, %a1: tensor<4x3xi32>, %a2: tensor<4x3xi32>, %a3: tensor<4x7x2xf32>, %a4: tensor<4x7x3x2xf32>, %c0: tensor<4x7x3x2xf32>) -> (tensor<4x7x3x2xf32>, tensor<3x3xf32>, tensor<4x7x2xf32>) {
  %r:3 = autodiff.vjp @vectorize_nd_tensor_extract_index_from_tensor(%a0, %a1, %a2, %a3, %a4, %c0) {wrt = array<i64: 0, 3>} : (tensor<3x3xf32>, tensor<4x3xi32>, tensor<4x3xi32>, tensor<4x7x2xf32>, tensor<4x7x3x2xf32>, tensor<4x7x3x2xf32>) -> (tensor<4x7x3x2xf32>, tensor<3x3xf32>, tensor<4x7x2xf32>)
  return %r#0, %r#1, %r#2 : tensor<4x7x3x2xf32>, tensor<3x3xf32>, tensor<4x7x2xf32>
}
