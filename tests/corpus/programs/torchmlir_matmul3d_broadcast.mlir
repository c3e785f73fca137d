// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/matmul.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `Matmul3DStaticBroadcast`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/matmul.py
// What: `torch.matmul` of 2x3x4 and 1x4x2: a generic broadcasting the size-1 batch, then linalg.batch_matmul.
// Adaptations: 4x8x5 and 1x5x6 -> 2x3x4 and 1x4x2; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 2x3x4, 1x4x2; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=tm_matmul3d_broadcast inputs=signed

#map = affine_map<(d0, d1, d2) -> (d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
  func.func @main(%arg0: tensor<2x3x4xf32>, %arg1: tensor<1x4x2xf32>) -> tensor<2x3x2xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<2x4x2xf32>
    %collapsed = tensor.collapse_shape %arg1 [[0, 1], [2]] : tensor<1x4x2xf32> into tensor<4x2xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed : tensor<4x2xf32>) outs(%0 : tensor<2x4x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x4x2xf32>
    %2 = tensor.empty() : tensor<2x3x2xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
    %4 = linalg.batch_matmul ins(%arg0, %1 : tensor<2x3x4xf32>, tensor<2x4x2xf32>) outs(%3 : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
    return %4 : tensor<2x3x2xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x3x4xf32>, %a1: tensor<1x4x2xf32>, %ct0: tensor<2x3x2xf32>) -> (tensor<2x3x2xf32>, tensor<2x3x4xf32>, tensor<1x4x2xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 0, 1>} : (tensor<2x3x4xf32>, tensor<1x4x2xf32>, tensor<2x3x2xf32>) -> (tensor<2x3x2xf32>, tensor<2x3x4xf32>, tensor<1x4x2xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x3x2xf32>, tensor<2x3x4xf32>, tensor<1x4x2xf32>
}
