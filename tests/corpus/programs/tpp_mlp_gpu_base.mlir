// Source: libxsmm/tpp-mlir benchmarks/mlir/GPU/mlp-fp32-1024-base.mlir (commit bac688f966c9cc4402d6b3e3f64d4cf2635f616a), https://github.com/libxsmm/tpp-mlir/blob/bac688f966c9cc4402d6b3e3f64d4cf2635f616a/benchmarks/mlir/GPU/mlp-fp32-1024-base.mlir
// What: one MLP layer as tpp-mlir's GPU benchmark writes it: a matmul generic accumulating into the function's output argument, a bias-add generic whose outs is the matmul result (in place), a ReLU generic with no inputs (arith.maximumf on the outs value), and bufferization.materialize_in_destination into the output argument; weights and bias are splat constants.
// Adaptations: kept only @entry (dropped the RUN and BENCH lines and the module wrapper); sizes reduced (256x1024 input and output -> 4x6 and 4x5, weights 1024x1024 -> 6x5, bias 256x1024 -> 4x5); added the gradir entry @vjp_entry (autodiff.vjp wrt the input and the accumulator) below the marker.
// gradir-corpus: entry=entry wrt=0,1 reference=tpp_mlp_gpu_base inputs=signed

#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
func.func @entry(%arg0: tensor<4x6xf32>, %arg1: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %weights = arith.constant dense<1.0> : tensor<6x5xf32>
  %bias = arith.constant dense<1.0> : tensor<4x5xf32>

  %0 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %weights : tensor<4x6xf32>, tensor<6x5xf32>) outs(%arg1 : tensor<4x5xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %3 = arith.mulf %in, %in_0 : f32
    %4 = arith.addf %out, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<4x5xf32>
  %1 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<4x5xf32>) outs(%0 : tensor<4x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %3 = arith.addf %in, %out : f32
    linalg.yield %3 : f32
  } -> tensor<4x5xf32>
  %cst = arith.constant 0.000000e+00 : f32
  %2 = linalg.generic {indexing_maps = [#map3], iterator_types = ["parallel", "parallel"]} outs(%1 : tensor<4x5xf32>) {
  ^bb0(%out: f32):
    %3 = arith.maximumf %out, %cst : f32
    linalg.yield %3 : f32
  } -> tensor<4x5xf32>
  %3 = bufferization.materialize_in_destination %2 in %arg1 : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return %3 : tensor<4x5xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_entry(%a0: tensor<4x6xf32>, %a1: tensor<4x5xf32>, %c0: tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x6xf32>, tensor<4x5xf32>) {
  %r:3 = autodiff.vjp @entry(%a0, %a1, %c0) {wrt = array<i64: 0, 1>} : (tensor<4x6xf32>, tensor<4x5xf32>, tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x6xf32>, tensor<4x5xf32>)
  return %r#0, %r#1, %r#2 : tensor<4x5xf32>, tensor<4x6xf32>, tensor<4x5xf32>
}
