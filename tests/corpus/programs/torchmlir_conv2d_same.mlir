// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/conv.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `Conv2dWithSamePaddingModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/conv.py
// What: `nn.Conv2d(padding="same", bias=False)` with a 3x3 kernel: zero tensor.pad by one on each side and linalg.conv_2d_nchw_fchw into a zero fill.
// Adaptations: the module's `nn.Conv2d(2, 10, 3, bias=False, padding="same")` is called as `F.conv2d(x, weight, None, padding="same")` with the weight a forward argument, from a copy of the class (conv.py imports torchvision, not installed); input 5x2x10x20 -> 1x2x4x5 and out_channels 10 -> 3; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 1x2x4x5, weight 3x2x3x3; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=tm_conv2d_same inputs=signed

  func.func @main(%arg0: tensor<1x2x4x5xf32>, %arg1: tensor<3x2x3x3xf32>) -> tensor<1x3x4x5xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %padded = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg2: index, %arg3: index, %arg4: index, %arg5: index):
      tensor.yield %cst : f32
    } : tensor<1x2x4x5xf32> to tensor<1x2x6x7xf32>
    %0 = tensor.empty() : tensor<1x3x4x5xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
    %2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %arg1 : tensor<1x2x6x7xf32>, tensor<3x2x3x3xf32>) outs(%1 : tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
    return %2 : tensor<1x3x4x5xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x2x4x5xf32>, %a1: tensor<3x2x3x3xf32>, %ct0: tensor<1x3x4x5xf32>) -> (tensor<1x3x4x5xf32>, tensor<1x2x4x5xf32>, tensor<3x2x3x3xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 0, 1>} : (tensor<1x2x4x5xf32>, tensor<3x2x3x3xf32>, tensor<1x3x4x5xf32>) -> (tensor<1x3x4x5xf32>, tensor<1x2x4x5xf32>, tensor<3x2x3x3xf32>)
  return %r#0, %r#1, %r#2 : tensor<1x3x4x5xf32>, tensor<1x2x4x5xf32>, tensor<3x2x3x3xf32>
}
