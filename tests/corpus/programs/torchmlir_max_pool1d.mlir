// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/pooling.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `MaxPool1dStaticModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/pooling.py
// What: `nn.MaxPool1d(3, stride 2, padding 1)`: expand_shape to a unit-height image, -inf tensor.pad and -inf fill, linalg.pooling_nchw_max with stride (1, 2) and collapse_shape back.
// Adaptations: input 1x64x112 -> 1x2x9; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 1x2x9; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_max_pool1d inputs=signed

  func.func @main(%arg0: tensor<1x2x9xf32>) -> tensor<1x2x5xf32> {
    %cst = arith.constant 0xFF800000 : f32
    %expanded = tensor.expand_shape %arg0 [[0], [1], [2, 3]] output_shape [1, 2, 1, 9] : tensor<1x2x9xf32> into tensor<1x2x1x9xf32>
    %padded = tensor.pad %expanded low[0, 0, 0, 1] high[0, 0, 0, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst : f32
    } : tensor<1x2x1x9xf32> to tensor<1x2x1x11xf32>
    %0 = tensor.empty() : tensor<1x2x1x5xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x2x1x5xf32>) -> tensor<1x2x1x5xf32>
    %2 = tensor.empty() : tensor<1x3xf32>
    %3 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<[1, 2]> : vector<2xi64>} ins(%padded, %2 : tensor<1x2x1x11xf32>, tensor<1x3xf32>) outs(%1 : tensor<1x2x1x5xf32>) -> tensor<1x2x1x5xf32>
    %collapsed = tensor.collapse_shape %3 [[0], [1, 2], [3]] : tensor<1x2x1x5xf32> into tensor<1x2x5xf32>
    return %collapsed : tensor<1x2x5xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x2x9xf32>, %ct0: tensor<1x2x5xf32>) -> (tensor<1x2x5xf32>, tensor<1x2x9xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<1x2x9xf32>, tensor<1x2x5xf32>) -> (tensor<1x2x5xf32>, tensor<1x2x9xf32>)
  return %r#0, %r#1 : tensor<1x2x5xf32>, tensor<1x2x9xf32>
}
