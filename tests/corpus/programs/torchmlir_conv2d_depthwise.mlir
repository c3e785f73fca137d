// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/conv.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `Conv2dWithPaddingDilationStrideStaticModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/conv.py
// What: the same convolution with groups 4 = channels (the upstream `_depthwise` case): zero tensor.pad, a tensor.collapse_shape of the 4x1x3x3 filter and linalg.depthwise_conv_2d_nchw_chw with strides 2 and dilations 3.
// Adaptations: the module's `nn.Conv2d(groups=4, out_channels=4)` is called as `F.conv2d(x, weight, None, stride=2, padding=3, dilation=3, groups=4)` with the weight a forward argument; input 5x4x10x20 -> 1x4x7x8; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 1x4x7x8, weight 4x1x3x3; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=tm_conv2d_depthwise inputs=signed

  func.func @main(%arg0: tensor<1x4x7x8xf32>, %arg1: tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %padded = tensor.pad %arg0 low[0, 0, 3, 3] high[0, 0, 3, 3] {
    ^bb0(%arg2: index, %arg3: index, %arg4: index, %arg5: index):
      tensor.yield %cst : f32
    } : tensor<1x4x7x8xf32> to tensor<1x4x13x14xf32>
    %0 = tensor.empty() : tensor<1x4x4x4xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
    %collapsed = tensor.collapse_shape %arg1 [[0, 1], [2], [3]] : tensor<4x1x3x3xf32> into tensor<4x3x3xf32>
    %2 = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<3> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%padded, %collapsed : tensor<1x4x13x14xf32>, tensor<4x3x3xf32>) outs(%1 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
    return %2 : tensor<1x4x4x4xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x4x7x8xf32>, %a1: tensor<4x1x3x3xf32>, %ct0: tensor<1x4x4x4xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x7x8xf32>, tensor<4x1x3x3xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 0, 1>} : (tensor<1x4x7x8xf32>, tensor<4x1x3x3xf32>, tensor<1x4x4x4xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x7x8xf32>, tensor<4x1x3x3xf32>)
  return %r#0, %r#1, %r#2 : tensor<1x4x4x4xf32>, tensor<1x4x7x8xf32>, tensor<4x1x3x3xf32>
}
