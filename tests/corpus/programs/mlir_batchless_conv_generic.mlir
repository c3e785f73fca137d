// Source: llvm/llvm-project mlir/test/Dialect/Linalg/transform-op-decompose.mlir (commit 95fd80b932b110f43fcce03caa10f7cf5f5774f5), https://github.com/llvm/llvm-project/blob/95fd80b932b110f43fcce03caa10f7cf5f5774f5/mlir/test/Dialect/Linalg/transform-op-decompose.mlir
// What: a batchless 2-d convolution written as a linalg.generic with sliding-window maps `(oh + kh, ow + kw, c)` (not projected permutations), accumulator as first addend.
// Adaptations: kept only @batchless_conv_2d_hwc_hwcf and its three #map_conv_* aliases (dropped the CHECK lines, the other functions and the transform schedule); shapes reduced (input 1x14x8 -> 1x6x3, filter 1x3x8x16 -> 1x3x3x4, output 1x12x16 -> 1x4x4); added the gradir entry @vjp_batchless_conv (autodiff.vjp) below the marker.
// gradir-corpus: entry=batchless_conv_2d_hwc_hwcf wrt=0,1,2 reference=batchless_conv_2d_hwc_hwcf inputs=signed

#map_conv_i = affine_map<(oh, ow, f, kh, kw, c) -> (oh + kh, ow + kw, c)>
#map_conv_f = affine_map<(oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>
#map_conv_o = affine_map<(oh, ow, f, kh, kw, c) -> (oh, ow, f)>

func.func @batchless_conv_2d_hwc_hwcf(%input: tensor<1x6x3xf32>, %filter: tensor<1x3x3x4xf32>, %output: tensor<1x4x4xf32>) -> tensor<1x4x4xf32> {
  %0 = linalg.generic {
    indexing_maps = [#map_conv_i, #map_conv_f, #map_conv_o],
    iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
  } ins(%input, %filter : tensor<1x6x3xf32>, tensor<1x3x3x4xf32>)
    outs(%output : tensor<1x4x4xf32>) {
  ^bb0(%in: f32, %fil: f32, %out: f32):
    %mul = arith.mulf %in, %fil : f32
    %add = arith.addf %out, %mul : f32
    linalg.yield %add : f32
  } -> tensor<1x4x4xf32>
  return %0 : tensor<1x4x4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_batchless_conv(%i: tensor<1x6x3xf32>, %f: tensor<1x3x3x4xf32>, %o: tensor<1x4x4xf32>, %ct: tensor<1x4x4xf32>) -> (tensor<1x4x4xf32>, tensor<1x6x3xf32>, tensor<1x3x3x4xf32>, tensor<1x4x4xf32>) {
  %r:4 = autodiff.vjp @batchless_conv_2d_hwc_hwcf(%i, %f, %o, %ct) {wrt = array<i64: 0, 1, 2>} : (tensor<1x6x3xf32>, tensor<1x3x3x4xf32>, tensor<1x4x4xf32>, tensor<1x4x4xf32>) -> (tensor<1x4x4xf32>, tensor<1x6x3xf32>, tensor<1x3x3x4xf32>, tensor<1x4x4xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<1x4x4xf32>, tensor<1x6x3xf32>, tensor<1x3x3x4xf32>, tensor<1x4x4xf32>
}
