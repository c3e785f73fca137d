// Source: llvm/llvm-project mlir/test/Dialect/Linalg/vectorization/pad-with-patterns.mlir (commit 0c34fbbd8f26bb72d18264dd9ba578157b25d3e4), https://github.com/llvm/llvm-project/blob/0c34fbbd8f26bb72d18264dd9ba578157b25d3e4/mlir/test/Dialect/Linalg/vectorization/pad-with-patterns.mlir
// What: tensor.pad of a 3-d tensor (low [0, 0, 2], high [0, 1, 0]) whose padding value is an f32 function argument: the scalar gets the sum of the gradient over the padded positions.
// Adaptations: kept only @pad_static_source of the split file (dropped the CHECK lines, the other splits and the transform schedules); shapes kept; added the gradir entry @vjp_pad_static_source (autodiff.vjp wrt the tensor and the padding value) below the marker.
// gradir-corpus: entry=pad_static_source wrt=0,1 reference=mu_pad_value_argument inputs=signed

func.func @pad_static_source(%arg0: tensor<2x5x2xf32>, %pad_value: f32) -> tensor<2x6x4xf32> {
  %0 = tensor.pad %arg0 low[0, 0, 2] high[0, 1, 0] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index):
      tensor.yield %pad_value : f32
    } : tensor<2x5x2xf32> to tensor<2x6x4xf32>
  return %0 : tensor<2x6x4xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_pad_static_source(%a0: tensor<2x5x2xf32>, %a1: f32, %c0: tensor<2x6x4xf32>) -> (tensor<2x6x4xf32>, tensor<2x5x2xf32>, f32) {
  %r:3 = autodiff.vjp @pad_static_source(%a0, %a1, %c0) {wrt = array<i64: 0, 1>} : (tensor<2x5x2xf32>, f32, tensor<2x6x4xf32>) -> (tensor<2x6x4xf32>, tensor<2x5x2xf32>, f32)
  return %r#0, %r#1, %r#2 : tensor<2x6x4xf32>, tensor<2x5x2xf32>, f32
}
