// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/pooling.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `MaxPool2dModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/pooling.py
// What: `nn.MaxPool2d(kernel_size=[6, 8], stride=2, padding=[3, 4], dilation=2)`: tensor.pad with -inf, an -inf linalg.fill and linalg.pooling_nchw_max with strides and dilations and an empty window tensor.
// Adaptations: input 1x1x20x20 -> 1x1x9x9; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 1x1x9x9 (static; upstream annotates the dims as dynamic); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_max_pool2d inputs=signed

  func.func @main(%arg0: tensor<1x1x9x9xf32>) -> tensor<1x1x3x2xf32> {
    %cst = arith.constant 0xFF800000 : f32
    %padded = tensor.pad %arg0 low[0, 0, 3, 4] high[0, 0, 3, 4] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst : f32
    } : tensor<1x1x9x9xf32> to tensor<1x1x15x17xf32>
    %0 = tensor.empty() : tensor<1x1x3x2xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x1x3x2xf32>) -> tensor<1x1x3x2xf32>
    %2 = tensor.empty() : tensor<6x8xf32>
    %3 = linalg.pooling_nchw_max {dilations = dense<2> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%padded, %2 : tensor<1x1x15x17xf32>, tensor<6x8xf32>) outs(%1 : tensor<1x1x3x2xf32>) -> tensor<1x1x3x2xf32>
    return %3 : tensor<1x1x3x2xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x1x9x9xf32>, %ct0: tensor<1x1x3x2xf32>) -> (tensor<1x1x3x2xf32>, tensor<1x1x9x9xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<1x1x9x9xf32>, tensor<1x1x3x2xf32>) -> (tensor<1x1x3x2xf32>, tensor<1x1x9x9xf32>)
  return %r#0, %r#1 : tensor<1x1x3x2xf32>, tensor<1x1x9x9xf32>
}
