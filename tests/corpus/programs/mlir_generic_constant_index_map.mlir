// Source: llvm/llvm-project mlir/test/Dialect/Linalg/inline-scalar-operands.mlir (commit 25c2eafef4b430831eab3b684b5bb46ba67db75a), https://github.com/llvm/llvm-project/blob/25c2eafef4b430831eab3b684b5bb46ba67db75a/mlir/test/Dialect/Linalg/inline-scalar-operands.mlir
// What: a linalg.generic reading a 1-element tensor through the constant indexing map (d0) -> (0), dividing a vector by its element.
// Adaptations: kept only @inline_oned of the split file (dropped the CHECK lines and the other splits); added the gradir entry @vjp_inline_oned (autodiff.vjp) below the marker.
// gradir-corpus: entry=inline_oned wrt=0,1 reference=mlir_div_by_scalar inputs=signed

#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0) -> (0)>

func.func @inline_oned(%arg0: tensor<4xf32>, %scalar: tensor<1xf32>) -> tensor<4xf32> {
    %0 = tensor.empty() : tensor<4xf32>
    %1 = linalg.generic {indexing_maps = [#map2, #map3, #map2],
                         iterator_types = ["parallel"]}
                         ins(%arg0, %scalar : tensor<4xf32>, tensor<1xf32>)
                         outs(%0 : tensor<4xf32>) {
    ^bb0(%arg1: f32, %arg2: f32, %arg3: f32):
      %2 = arith.divf %arg1, %arg2 : f32
      linalg.yield %2 : f32
    } -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_inline_oned(%x: tensor<4xf32>, %s: tensor<1xf32>, %ct: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<1xf32>) {
  %r:3 = autodiff.vjp @inline_oned(%x, %s, %ct) {wrt = array<i64: 0, 1>} : (tensor<4xf32>, tensor<1xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<1xf32>)
  return %r#0, %r#1, %r#2 : tensor<4xf32>, tensor<4xf32>, tensor<1xf32>
}
