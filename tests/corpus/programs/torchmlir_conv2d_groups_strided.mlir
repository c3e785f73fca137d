// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/conv.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `ConvolutionModule2DGroups`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/conv.py
// What: `aten.convolution` with groups 4, stride 3, padding 2: zero tensor.pad, expand_shape into groups and linalg.conv_2d_ngchw_gfchw with strides 3, collapse_shape back.
// Adaptations: the module's forward is called from a copy of the class (conv.py imports torchvision, not installed); input 1x32x4x4 -> 1x8x4x4 and weight 32x8x3x3 -> 8x2x3x3 (groups kept); the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 1x8x4x4, weight 8x2x3x3 (static; upstream annotates the dims as dynamic); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=tm_conv2d_groups_strided inputs=signed

  func.func @main(%arg0: tensor<1x8x4x4xf32>, %arg1: tensor<8x2x3x3xf32>) -> tensor<1x8x2x2xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %padded = tensor.pad %arg0 low[0, 0, 2, 2] high[0, 0, 2, 2] {
    ^bb0(%arg2: index, %arg3: index, %arg4: index, %arg5: index):
      tensor.yield %cst : f32
    } : tensor<1x8x4x4xf32> to tensor<1x8x8x8xf32>
    %0 = tensor.empty() : tensor<1x8x2x2xf32>
    %expanded = tensor.expand_shape %padded [[0], [1, 2], [3], [4]] output_shape [1, 4, 2, 8, 8] : tensor<1x8x8x8xf32> into tensor<1x4x2x8x8xf32>
    %expanded_0 = tensor.expand_shape %arg1 [[0, 1], [2], [3], [4]] output_shape [4, 2, 2, 3, 3] : tensor<8x2x3x3xf32> into tensor<4x2x2x3x3xf32>
    %expanded_1 = tensor.expand_shape %0 [[0], [1, 2], [3], [4]] output_shape [1, 4, 2, 2, 2] : tensor<1x8x2x2xf32> into tensor<1x4x2x2x2xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%expanded_1 : tensor<1x4x2x2x2xf32>) -> tensor<1x4x2x2x2xf32>
    %2 = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : vector<2xi64>, strides = dense<3> : vector<2xi64>} ins(%expanded, %expanded_0 : tensor<1x4x2x8x8xf32>, tensor<4x2x2x3x3xf32>) outs(%1 : tensor<1x4x2x2x2xf32>) -> tensor<1x4x2x2x2xf32>
    %collapsed = tensor.collapse_shape %2 [[0], [1, 2], [3], [4]] : tensor<1x4x2x2x2xf32> into tensor<1x8x2x2xf32>
    return %collapsed : tensor<1x8x2x2xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x8x4x4xf32>, %a1: tensor<8x2x3x3xf32>, %ct0: tensor<1x8x2x2xf32>) -> (tensor<1x8x2x2xf32>, tensor<1x8x4x4xf32>, tensor<8x2x3x3xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 0, 1>} : (tensor<1x8x4x4xf32>, tensor<8x2x3x3xf32>, tensor<1x8x2x2xf32>) -> (tensor<1x8x2x2xf32>, tensor<1x8x4x4xf32>, tensor<8x2x3x3xf32>)
  return %r#0, %r#1, %r#2 : tensor<1x8x2x2xf32>, tensor<1x8x4x4xf32>, tensor<8x2x3x3xf32>
}
