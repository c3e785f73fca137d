// Source: llvm/llvm-project mlir/test/Dialect/Linalg/fusion-elementwise-ops.mlir (commit 15a2f924628168122f5fa00a1c1c411411be1a18), https://github.com/llvm/llvm-project/blob/15a2f924628168122f5fa00a1c1c411411be1a18/mlir/test/Dialect/Linalg/fusion-elementwise-ops.mlir
// What: a 0-d linalg.generic whose body gathers one element of a captured (non-operand) f32 tensor with tensor.extract at an index read from an i32 operand, then a second linalg.generic broadcasting that scalar times a dense constant into a 1-d tensor.
// Adaptations: kept only @scalar_generic_fusion of the split file (dropped the CHECK lines and the other splits); shapes kept; added the gradir entry @vjp_scalar_generic_fusion (autodiff.vjp wrt the f32 tensor; the index tensor holds 0 or 1 from the default generator) below the marker.
// gradir-corpus: entry=scalar_generic_fusion wrt=0 reference=mu_scalar_generic_fusion

func.func @scalar_generic_fusion
  (%arg0: tensor<5x1x1xf32>, %arg1 : tensor<i32>) -> tensor<10xf32>
{
  %c0 = arith.constant 0 : index
  %cst = arith.constant dense<1.000000e+00> : tensor<10xf32>
  %0 = tensor.empty() : tensor<f32>
  %1 = linalg.generic
    {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>],
     iterator_types = []}
    ins(%arg1 : tensor<i32>) outs(%0 : tensor<f32>) {
    ^bb0(%arg2: i32, %arg3: f32):
      %3 = arith.index_cast %arg2 : i32 to index
      %4 = tensor.extract %arg0[%3, %c0, %c0] : tensor<5x1x1xf32>
      linalg.yield %4 : f32
    } -> tensor<f32>
  %2 = tensor.empty() : tensor<10xf32>
  %3 = linalg.generic
   {indexing_maps = [affine_map<(d0) -> ()>, affine_map<(d0) -> (d0)>,
                     affine_map<(d0) -> (d0)>],
    iterator_types = ["parallel"]}
    ins(%1, %cst : tensor<f32>, tensor<10xf32>) outs(%2 : tensor<10xf32>) {
    ^bb0(%arg2: f32, %arg3: f32, %arg4: f32):
      %4 = arith.mulf %arg2, %arg3 : f32
      linalg.yield %4 : f32
    } -> tensor<10xf32>
  return %3 : tensor<10xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_scalar_generic_fusion(%a0: tensor<5x1x1xf32>, %a1: tensor<i32>, %c0: tensor<10xf32>) -> (tensor<10xf32>, tensor<5x1x1xf32>) {
  %r:2 = autodiff.vjp @scalar_generic_fusion(%a0, %a1, %c0) {wrt = array<i64: 0>} : (tensor<5x1x1xf32>, tensor<i32>, tensor<10xf32>) -> (tensor<10xf32>, tensor<5x1x1xf32>)
  return %r#0, %r#1 : tensor<10xf32>, tensor<5x1x1xf32>
}
