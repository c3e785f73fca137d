// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/pooling.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `AvgPool3dStaticModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/pooling.py
// What: `nn.AvgPool3d(2, stride 2)`: linalg.transpose to channels-last, linalg.pooling_ndhwc_sum, linalg.transpose back and a divide by 8.
// Adaptations: batch 2 -> 1; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 1x2x4x4x4; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_avg_pool3d inputs=signed

#map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
  func.func @main(%arg0: tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 8.000000e+00 : f32
    %0 = tensor.empty() : tensor<2x2x2xf32>
    %1 = tensor.empty() : tensor<1x4x4x4x2xf32>
    %transposed = linalg.transpose ins(%arg0 : tensor<1x2x4x4x4xf32>) outs(%1 : tensor<1x4x4x4x2xf32>) permutation = [0, 2, 3, 4, 1] 
    %2 = tensor.empty() : tensor<1x2x2x2x2xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<1x2x2x2x2xf32>) -> tensor<1x2x2x2x2xf32>
    %4 = linalg.pooling_ndhwc_sum {dilations = dense<1> : vector<3xi64>, strides = dense<2> : vector<3xi64>} ins(%transposed, %0 : tensor<1x4x4x4x2xf32>, tensor<2x2x2xf32>) outs(%3 : tensor<1x2x2x2x2xf32>) -> tensor<1x2x2x2x2xf32>
    %transposed_1 = linalg.transpose ins(%4 : tensor<1x2x2x2x2xf32>) outs(%2 : tensor<1x2x2x2x2xf32>) permutation = [0, 4, 1, 2, 3] 
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%transposed_1 : tensor<1x2x2x2x2xf32>) outs(%2 : tensor<1x2x2x2x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %6 = arith.divf %in, %cst_0 : f32
      linalg.yield %6 : f32
    } -> tensor<1x2x2x2x2xf32>
    return %5 : tensor<1x2x2x2x2xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x2x4x4x4xf32>, %ct0: tensor<1x2x2x2x2xf32>) -> (tensor<1x2x2x2x2xf32>, tensor<1x2x4x4x4xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<1x2x4x4x4xf32>, tensor<1x2x2x2x2xf32>) -> (tensor<1x2x2x2x2xf32>, tensor<1x2x4x4x4xf32>)
  return %r#0, %r#1 : tensor<1x2x2x2x2xf32>, tensor<1x2x4x4x4xf32>
}
