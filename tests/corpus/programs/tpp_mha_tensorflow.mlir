// Source: libxsmm/tpp-mlir test/Passes/pass-tile-and-fuse-mha.mlir (commit bac688f966c9cc4402d6b3e3f64d4cf2635f616a), https://github.com/libxsmm/tpp-mlir/blob/bac688f966c9cc4402d6b3e3f64d4cf2635f616a/test/Passes/pass-tile-and-fuse-mha.mlir
// What: TensorFlow-style multi-head attention without the softmax, written as five linalg.generic contractions with named unit attributes: Q/K/V projections over two reduction dimensions (6-d iteration, maps with a permuted dimension list (d0, d1, d2, d5, d3, d4)), Q x K with the output map (d0, d2, d4, d1), scores x V with (d0, d3, d1, d4) -> (d0, d2, d1, d4), and the output projection (d2, d3, d4) -> (d0, d1, d4); weights are splat constants.
// Adaptations: kept only @mha_tensorflow (dropped the RUN and CHECK lines); sizes reduced (batch 64 -> 2, sequence 32 -> 3, heads 8 -> 2, head size 64 -> 2, model 512 -> 4: 64x32x8x64 -> 2x3x2x2, 8x64x8x64 -> 2x2x2x2, 64x8x32x32 -> 2x2x3x3, 8x64x512 -> 2x2x4, 64x32x512 -> 2x3x4); added the gradir entry @vjp_mha_tensorflow (autodiff.vjp wrt the three inputs) below the marker.
// gradir-corpus: entry=mha_tensorflow wrt=0,1,2 reference=tpp_mha_tensorflow inputs=signed

#map = affine_map<(d0, d1, d2, d5, d3, d4) -> (d0, d1, d2, d5)>
#map1 = affine_map<(d0, d1, d2, d5, d3, d4) -> (d2, d5, d3, d4)>
#map2 = affine_map<(d0, d1, d2, d5, d3, d4) -> (d0, d1, d3, d4)>

#map4 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
#map5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2, d3)>
#map6 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d4, d1)>

#map9 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d3, d1, d4)>
#map10 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, d4)>
#map11 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4)>
#map12 = affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>

func.func @mha_tensorflow(%arg1: tensor<2x3x2x2xf32>,
                           %arg0: tensor<2x3x2x2xf32>,
                           %arg2: tensor<2x3x2x2xf32>) -> tensor<2x3x4xf32> {
  %cst_3 = arith.constant dense<4.0> : tensor<2x2x2x2xf32>
  %cst_4 = arith.constant dense<2.0> : tensor<2x2x2x2xf32>
  %cst_5 = arith.constant dense<1.0> : tensor<2x2x2x2xf32>
  %cst_6 = arith.constant dense<3.0> : tensor<2x2x4xf32>

  %cst_1 = arith.constant 0.0 : f32
  %0 = tensor.empty() : tensor<2x3x2x2xf32>

  %fill_1 = linalg.fill ins(%cst_1 : f32) outs(%0 : tensor<2x3x2x2xf32>) -> tensor<2x3x2x2xf32>
  %3 = linalg.generic {
    "__projection_Q__",
    indexing_maps = [#map, #map1, #map2],
    iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]}
    ins(%arg0, %cst_4 : tensor<2x3x2x2xf32>, tensor<2x2x2x2xf32>) outs(%fill_1 : tensor<2x3x2x2xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %23 = arith.mulf %in, %in_8 : f32
      %24 = arith.addf %out, %23 : f32
      linalg.yield %24 : f32
  } -> tensor<2x3x2x2xf32>

  %fill_2 = linalg.fill ins(%cst_1 : f32) outs(%0 : tensor<2x3x2x2xf32>) -> tensor<2x3x2x2xf32>
  %5 = linalg.generic {
    "__projection_K__",
    indexing_maps = [#map, #map1, #map2],
    iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]}
    ins(%arg1, %cst_5 : tensor<2x3x2x2xf32>, tensor<2x2x2x2xf32>) outs(%fill_2 : tensor<2x3x2x2xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %23 = arith.mulf %in, %in_8 : f32
      %24 = arith.addf %out, %23 : f32
      linalg.yield %24 : f32
  } -> tensor<2x3x2x2xf32>

  %6 = tensor.empty() : tensor<2x2x3x3xf32>
  %7 = linalg.fill ins(%cst_1 : f32) outs(%6 : tensor<2x2x3x3xf32>) -> tensor<2x2x3x3xf32>
  %8 = linalg.generic {
    "__Q_times_K__",
    indexing_maps = [#map4, #map5, #map6],
    iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
    ins(%5, %3 : tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>) outs(%7 : tensor<2x2x3x3xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %23 = arith.mulf %in, %in_8 : f32
      %24 = arith.addf %out, %23 : f32
      linalg.yield %24 : f32
  } -> tensor<2x2x3x3xf32>

  %fill = linalg.fill ins(%cst_1 : f32) outs(%0 : tensor<2x3x2x2xf32>) -> tensor<2x3x2x2xf32>
  %2 = linalg.generic {
    "__projection_V__",
    indexing_maps = [#map, #map1, #map2],
    iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]}
    ins(%arg2, %cst_3 : tensor<2x3x2x2xf32>, tensor<2x2x2x2xf32>) outs(%fill : tensor<2x3x2x2xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %23 = arith.mulf %in, %in_8 : f32
      %24 = arith.addf %out, %23 : f32
      linalg.yield %24 : f32
  } -> tensor<2x3x2x2xf32>

  %fill_4 = linalg.fill ins(%cst_1 : f32) outs(%0 : tensor<2x3x2x2xf32>) -> tensor<2x3x2x2xf32>
  %11 = linalg.generic {
    "__Softmax_times_V__",
    indexing_maps = [#map4, #map9, #map10],
    iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
    ins(%8, %2 : tensor<2x2x3x3xf32>, tensor<2x3x2x2xf32>) outs(%fill_4 : tensor<2x3x2x2xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %23 = arith.mulf %in, %in_8 : f32
      %24 = arith.addf %out, %23 : f32
      linalg.yield %24 : f32
  } -> tensor<2x3x2x2xf32>

  %result = tensor.empty() : tensor<2x3x4xf32>
  %fill_r = linalg.fill ins(%cst_1 : f32) outs(%result : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %12 = linalg.generic {
    "__projection_Wo__",
    indexing_maps = [#map4, #map12, #map11],
    iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel"]}
    ins(%11, %cst_6 : tensor<2x3x2x2xf32>, tensor<2x2x4xf32>) outs(%fill_r : tensor<2x3x4xf32>) {
    ^bb0(%in: f32, %in_8: f32, %out: f32):
      %23 = arith.mulf %in, %in_8 : f32
      %24 = arith.addf %out, %23 : f32
      linalg.yield %24 : f32
  } -> tensor<2x3x4xf32>

  return %12: tensor<2x3x4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_mha_tensorflow(%a0: tensor<2x3x2x2xf32>, %a1: tensor<2x3x2x2xf32>, %a2: tensor<2x3x2x2xf32>, %c0: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>) {
  %r:4 = autodiff.vjp @mha_tensorflow(%a0, %a1, %a2, %c0) {wrt = array<i64: 0, 1, 2>} : (tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>, tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<2x3x4xf32>, tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>, tensor<2x3x2x2xf32>
}
