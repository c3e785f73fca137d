// Source: llvm/llvm-project mlir/test/Dialect/Linalg/fusion-elementwise-ops.mlir (commit 15a2f924628168122f5fa00a1c1c411411be1a18), https://github.com/llvm/llvm-project/blob/15a2f924628168122f5fa00a1c1c411411be1a18/mlir/test/Dialect/Linalg/fusion-elementwise-ops.mlir
// What: two chained linalg.generic ops (a #trait attribute alias) whose outs operand is the same tensor as their ins operand (x + x, then its square), the outs values unused by the bodies.
// Adaptations: kept only @break_outs_dependency of the split file (dropped the CHECK lines and the other splits); dynamic shapes made static (tensor<?x?xf32> -> tensor<3x4xf32>); added the gradir entry @vjp_break_outs_dependency (autodiff.vjp) below the marker.
// gradir-corpus: entry=break_outs_dependency wrt=0 reference=mu_break_outs_dependency inputs=signed

#map = affine_map<(d0, d1) -> (d0, d1)>
#trait = {
  indexing_maps = [#map, #map],
  iterator_types = ["parallel", "parallel"]
}
func.func @break_outs_dependency(%arg0 : tensor<3x4xf32>) -> tensor<3x4xf32>
{
  %0 = linalg.generic #trait ins(%arg0 : tensor<3x4xf32>) outs(%arg0 : tensor<3x4xf32>) {
       ^bb0(%arg1 : f32, %arg2 : f32) :
         %1 = arith.addf %arg1, %arg1 : f32
         linalg.yield %1 : f32
       } -> tensor<3x4xf32>
  %2 = linalg.generic #trait ins(%0 : tensor<3x4xf32>) outs(%0 : tensor<3x4xf32>) {
       ^bb0(%arg1 : f32, %arg2 : f32) :
         %3 = arith.mulf %arg1, %arg1 : f32
         linalg.yield %3 : f32
       } -> tensor<3x4xf32>
  return %2 : tensor<3x4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_break_outs_dependency(%a0: tensor<3x4xf32>, %c0: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %r:2 = autodiff.vjp @break_outs_dependency(%a0, %c0) {wrt = array<i64: 0>} : (tensor<3x4xf32>, tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>)
  return %r#0, %r#1 : tensor<3x4xf32>, tensor<3x4xf32>
}
