// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/conv.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `Conv1dDepthwiseWithPaddingDilationStrideStaticModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/conv.py
// What: depthwise `aten.conv1d` (groups 4 = channels, padding 4): tensor.pad, expand_shape of input and filter to 2-d, linalg.depthwise_conv_2d_nchw_chw with a unit height and collapse_shape back.
// Adaptations: the module's forward is called from a copy of the class (conv.py imports torchvision, not installed); batch 2 -> 1; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 1x4x6, weight 4x1x3; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=tm_conv1d_depthwise_pad inputs=signed

  func.func @main(%arg0: tensor<1x4x6xf32>, %arg1: tensor<4x1x3xf32>) -> tensor<1x4x12xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %expanded = tensor.expand_shape %arg0 [[0], [1], [2, 3]] output_shape [1, 4, 6, 1] : tensor<1x4x6xf32> into tensor<1x4x6x1xf32>
    %expanded_0 = tensor.expand_shape %arg1 [[0], [1], [2, 3]] output_shape [4, 1, 3, 1] : tensor<4x1x3xf32> into tensor<4x1x3x1xf32>
    %padded = tensor.pad %expanded low[0, 0, 4, 0] high[0, 0, 4, 0] {
    ^bb0(%arg2: index, %arg3: index, %arg4: index, %arg5: index):
      tensor.yield %cst : f32
    } : tensor<1x4x6x1xf32> to tensor<1x4x14x1xf32>
    %0 = tensor.empty() : tensor<1x4x12x1xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x4x12x1xf32>) -> tensor<1x4x12x1xf32>
    %collapsed = tensor.collapse_shape %expanded_0 [[0, 1], [2], [3]] : tensor<4x1x3x1xf32> into tensor<4x3x1xf32>
    %2 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %collapsed : tensor<1x4x14x1xf32>, tensor<4x3x1xf32>) outs(%1 : tensor<1x4x12x1xf32>) -> tensor<1x4x12x1xf32>
    %collapsed_1 = tensor.collapse_shape %2 [[0], [1], [2, 3]] : tensor<1x4x12x1xf32> into tensor<1x4x12xf32>
    return %collapsed_1 : tensor<1x4x12xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x4x6xf32>, %a1: tensor<4x1x3xf32>, %ct0: tensor<1x4x12xf32>) -> (tensor<1x4x12xf32>, tensor<1x4x6xf32>, tensor<4x1x3xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 0, 1>} : (tensor<1x4x6xf32>, tensor<4x1x3xf32>, tensor<1x4x12xf32>) -> (tensor<1x4x12xf32>, tensor<1x4x6xf32>, tensor<4x1x3xf32>)
  return %r#0, %r#1, %r#2 : tensor<1x4x12xf32>, tensor<1x4x6xf32>, tensor<4x1x3xf32>
}
