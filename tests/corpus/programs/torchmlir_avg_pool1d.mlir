// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/pooling.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `AvgPool1dFloatModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/pooling.py
// What: `nn.AvgPool1d(kernel 6, stride 2, padding 3, count_include_pad=True)`: expand_shape to a unit-height image, zero tensor.pad, linalg.pooling_nchw_sum with an empty 1x6 window, a divide by 6 and collapse_shape back.
// Adaptations: input 2x4x20 -> 1x2x8; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 1x2x8 (static; upstream annotates the dims as dynamic); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_avg_pool1d inputs=signed

#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
  func.func @main(%arg0: tensor<1x2x8xf32>) -> tensor<1x2x5xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 6.000000e+00 : f32
    %expanded = tensor.expand_shape %arg0 [[0], [1], [2, 3]] output_shape [1, 2, 1, 8] : tensor<1x2x8xf32> into tensor<1x2x1x8xf32>
    %padded = tensor.pad %expanded low[0, 0, 0, 3] high[0, 0, 0, 3] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst : f32
    } : tensor<1x2x1x8xf32> to tensor<1x2x1x14xf32>
    %0 = tensor.empty() : tensor<1x2x1x5xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x2x1x5xf32>) -> tensor<1x2x1x5xf32>
    %2 = tensor.empty() : tensor<1x6xf32>
    %3 = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<[1, 2]> : vector<2xi64>} ins(%padded, %2 : tensor<1x2x1x14xf32>, tensor<1x6xf32>) outs(%1 : tensor<1x2x1x5xf32>) -> tensor<1x2x1x5xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3 : tensor<1x2x1x5xf32>) outs(%0 : tensor<1x2x1x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %5 = arith.divf %in, %cst_0 : f32
      linalg.yield %5 : f32
    } -> tensor<1x2x1x5xf32>
    %collapsed = tensor.collapse_shape %4 [[0], [1, 2], [3]] : tensor<1x2x1x5xf32> into tensor<1x2x5xf32>
    return %collapsed : tensor<1x2x5xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x2x8xf32>, %ct0: tensor<1x2x5xf32>) -> (tensor<1x2x5xf32>, tensor<1x2x8xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<1x2x8xf32>, tensor<1x2x5xf32>) -> (tensor<1x2x5xf32>, tensor<1x2x8xf32>)
  return %r#0, %r#1 : tensor<1x2x5xf32>, tensor<1x2x8xf32>
}
