// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `ElementwiseAtenWhereSelfModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py
// What: `aten.where(cond, b, c)` with a 1x1x3x3 i1 condition, a 1x4x3x3 tensor and a 0-d tensor: one generic broadcasting the condition with `(0, 0, d2, d3)` and the scalar with `()` maps, arith.select.
// Adaptations: condition 1x1x5x5 -> 1x1x3x3 and b 1x12x5x5 -> 1x4x3x3; a random condition instead of the upstream all-false one; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs cond 1x1x3x3 i1, b 1x4x3x3, c 0-d; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=1,2 reference=tm_where_self_broadcast inputs=tm_where_self_broadcast

#map = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> ()>
  func.func @main(%arg0: tensor<1x1x3x3xi1>, %arg1: tensor<1x4x3x3xf32>, %arg2: tensor<f32>) -> tensor<1x4x3x3xf32> {
    %0 = tensor.empty() : tensor<1x4x3x3xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0, %arg1, %arg2 : tensor<1x1x3x3xi1>, tensor<1x4x3x3xf32>, tensor<f32>) outs(%0 : tensor<1x4x3x3xf32>) {
    ^bb0(%in: i1, %in_0: f32, %in_1: f32, %out: f32):
      %2 = arith.select %in, %in_0, %in_1 : f32
      linalg.yield %2 : f32
    } -> tensor<1x4x3x3xf32>
    return %1 : tensor<1x4x3x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x1x3x3xi1>, %a1: tensor<1x4x3x3xf32>, %a2: tensor<f32>, %ct0: tensor<1x4x3x3xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<f32>) {
  %r:3 = autodiff.vjp @main(%a0, %a1, %a2, %ct0) {wrt = array<i64: 1, 2>} : (tensor<1x1x3x3xi1>, tensor<1x4x3x3xf32>, tensor<f32>, tensor<1x4x3x3xf32>) -> (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<f32>)
  return %r#0, %r#1, %r#2 : tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>, tensor<f32>
}
