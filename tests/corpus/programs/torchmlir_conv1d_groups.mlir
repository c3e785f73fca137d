// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/conv.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `Conv1dGroupModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/conv.py
// What: grouped `aten.conv1d` (groups 2) with bias: expand_shape of input, filter and the broadcast bias into groups, linalg.conv_2d_ngchw_gfchw on unit-height images and collapse_shape back.
// Adaptations: the module's forward is called from a copy of the class (conv.py imports torchvision, not installed); batch 2 -> 1 and out_channels 8 -> 4; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 1x4x6, weight 4x2x3, bias 4 (static; upstream annotates the dims as dynamic); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1,2 reference=tm_conv1d_groups inputs=signed

  func.func @main(%arg0: tensor<1x4x6xf32>, %arg1: tensor<4x2x3xf32>, %arg2: tensor<4xf32>) -> tensor<1x4x4xf32> {
    %0 = tensor.empty() : tensor<1x4x4x1xf32>
    %broadcasted = linalg.broadcast ins(%arg2 : tensor<4xf32>) outs(%0 : tensor<1x4x4x1xf32>) dimensions = [0, 2, 3] 
    %expanded = tensor.expand_shape %arg0 [[0], [1, 2], [3, 4]] output_shape [1, 2, 2, 6, 1] : tensor<1x4x6xf32> into tensor<1x2x2x6x1xf32>
    %expanded_0 = tensor.expand_shape %arg1 [[0, 1], [2], [3, 4]] output_shape [2, 2, 2, 3, 1] : tensor<4x2x3xf32> into tensor<2x2x2x3x1xf32>
    %expanded_1 = tensor.expand_shape %broadcasted [[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 4, 1] : tensor<1x4x4x1xf32> into tensor<1x2x2x4x1xf32>
    %1 = linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%expanded, %expanded_0 : tensor<1x2x2x6x1xf32>, tensor<2x2x2x3x1xf32>) outs(%expanded_1 : tensor<1x2x2x4x1xf32>) -> tensor<1x2x2x4x1xf32>
    %collapsed = tensor.collapse_shape %1 [[0], [1, 2], [3, 4]] : tensor<1x2x2x4x1xf32> into tensor<1x4x4xf32>
    return %collapsed : tensor<1x4x4xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x4x6xf32>, %a1: tensor<4x2x3xf32>, %a2: tensor<4xf32>, %ct0: tensor<1x4x4xf32>) -> (tensor<1x4x4xf32>, tensor<1x4x6xf32>, tensor<4x2x3xf32>, tensor<4xf32>) {
  %r:4 = autodiff.vjp @main(%a0, %a1, %a2, %ct0) {wrt = array<i64: 0, 1, 2>} : (tensor<1x4x6xf32>, tensor<4x2x3xf32>, tensor<4xf32>, tensor<1x4x4xf32>) -> (tensor<1x4x4xf32>, tensor<1x4x6xf32>, tensor<4x2x3xf32>, tensor<4xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<1x4x4xf32>, tensor<1x4x6xf32>, tensor<4x2x3xf32>, tensor<4xf32>
}
