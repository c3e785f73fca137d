// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/conv.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `Conv1dModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/conv.py
// What: `aten.conv1d` with bias (stride 1, no padding): linalg.broadcast of the bias over (N, W) into the output, then linalg.conv_1d_ncw_fcw accumulating into it.
// Adaptations: the module's forward is called from a copy of the class (conv.py imports torchvision, not installed); out_channels 8 -> 4; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 2x2x6, weight 4x2x3, bias 4 (static; upstream annotates the dims as dynamic); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1,2 reference=tm_conv1d inputs=signed

  func.func @main(%arg0: tensor<2x2x6xf32>, %arg1: tensor<4x2x3xf32>, %arg2: tensor<4xf32>) -> tensor<2x4x4xf32> {
    %0 = tensor.empty() : tensor<2x4x4xf32>
    %broadcasted = linalg.broadcast ins(%arg2 : tensor<4xf32>) outs(%0 : tensor<2x4x4xf32>) dimensions = [0, 2] 
    %1 = linalg.conv_1d_ncw_fcw {dilations = dense<1> : vector<1xi64>, strides = dense<1> : vector<1xi64>} ins(%arg0, %arg1 : tensor<2x2x6xf32>, tensor<4x2x3xf32>) outs(%broadcasted : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
    return %1 : tensor<2x4x4xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x2x6xf32>, %a1: tensor<4x2x3xf32>, %a2: tensor<4xf32>, %ct0: tensor<2x4x4xf32>) -> (tensor<2x4x4xf32>, tensor<2x2x6xf32>, tensor<4x2x3xf32>, tensor<4xf32>) {
  %r:4 = autodiff.vjp @main(%a0, %a1, %a2, %ct0) {wrt = array<i64: 0, 1, 2>} : (tensor<2x2x6xf32>, tensor<4x2x3xf32>, tensor<4xf32>, tensor<2x4x4xf32>) -> (tensor<2x4x4xf32>, tensor<2x2x6xf32>, tensor<4x2x3xf32>, tensor<4xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<2x4x4xf32>, tensor<2x2x6xf32>, tensor<4x2x3xf32>, tensor<4xf32>
}
