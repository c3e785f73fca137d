// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `BaddbmmBroadcast2DInputModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py
// What: `aten.baddbmm` with a 2-d input: a generic broadcasting the input over the batch with a `(d1, d2)` map into the init of linalg.batch_matmul.
// Adaptations: input 2x7 -> 2x3, batch1 5x2x9 -> 2x2x4, batch2 5x9x7 -> 2x4x3; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 2x3, 2x2x4, 2x4x3; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1,2 reference=tm_baddbmm_broadcast inputs=signed

#map = affine_map<(d0, d1, d2) -> (d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
  func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x2x4xf32>, %arg2: tensor<2x4x3xf32>) -> tensor<2x2x3xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<2x2x3xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
    %2 = linalg.batch_matmul ins(%arg1, %arg2 : tensor<2x2x4xf32>, tensor<2x4x3xf32>) outs(%1 : tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %2 : tensor<2x3xf32>, tensor<2x2x3xf32>) outs(%0 : tensor<2x2x3xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %4 = arith.addf %in, %in_0 : f32
      linalg.yield %4 : f32
    } -> tensor<2x2x3xf32>
    return %3 : tensor<2x2x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x3xf32>, %a1: tensor<2x2x4xf32>, %a2: tensor<2x4x3xf32>, %ct0: tensor<2x2x3xf32>) -> (tensor<2x2x3xf32>, tensor<2x3xf32>, tensor<2x2x4xf32>, tensor<2x4x3xf32>) {
  %r:4 = autodiff.vjp @main(%a0, %a1, %a2, %ct0) {wrt = array<i64: 0, 1, 2>} : (tensor<2x3xf32>, tensor<2x2x4xf32>, tensor<2x4x3xf32>, tensor<2x2x3xf32>) -> (tensor<2x2x3xf32>, tensor<2x3xf32>, tensor<2x2x4xf32>, tensor<2x4x3xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<2x2x3xf32>, tensor<2x3xf32>, tensor<2x2x4xf32>, tensor<2x4x3xf32>
}
