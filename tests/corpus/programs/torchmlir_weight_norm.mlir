// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/norm_like.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `WeightNormInterfaceModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/norm_like.py
// What: `aten._weight_norm_interface(v, g, dim=2)`: the norm of v over dims 0 and 1 (math.absf, math.powf reductions into a `(0, 0, d2)` output), then v * (g / norm); two results (w and the norm).
// Adaptations: v 3x10x10 -> 2x3x4 and g 1x1x10 -> 1x1x4; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs v 2x3x4, g 1x1x4 (static; upstream annotates the dims as dynamic); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=tm_weight_norm inputs=signed

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (0, 0, d2)>
  func.func @main(%arg0: tensor<2x3x4xf32>, %arg1: tensor<1x1x4xf32>) -> (tensor<2x3x4xf32>, tensor<1x1x4xf32>) {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 5.000000e-01 : f32
    %cst_1 = arith.constant 2.000000e+00 : f32
    %0 = tensor.empty() : tensor<1x1x4xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x1x4xf32>) -> tensor<1x1x4xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "reduction", "parallel"]} ins(%arg0 : tensor<2x3x4xf32>) outs(%1 : tensor<1x1x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = math.absf %in : f32
      %8 = math.powf %7, %cst_1 : f32
      %9 = arith.addf %8, %out : f32
      linalg.yield %9 : f32
    } -> tensor<1x1x4xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2 : tensor<1x1x4xf32>) outs(%0 : tensor<1x1x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = math.powf %in, %cst_0 : f32
      linalg.yield %7 : f32
    } -> tensor<1x1x4xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1, %3 : tensor<1x1x4xf32>, tensor<1x1x4xf32>) outs(%0 : tensor<1x1x4xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %7 = arith.divf %in, %in_2 : f32
      linalg.yield %7 : f32
    } -> tensor<1x1x4xf32>
    %5 = tensor.empty() : tensor<2x3x4xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %4 : tensor<2x3x4xf32>, tensor<1x1x4xf32>) outs(%5 : tensor<2x3x4xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %7 = arith.mulf %in, %in_2 : f32
      linalg.yield %7 : f32
    } -> tensor<2x3x4xf32>
    return %6, %3 : tensor<2x3x4xf32>, tensor<1x1x4xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x3x4xf32>, %a1: tensor<1x1x4xf32>, %ct0: tensor<2x3x4xf32>, %ct1: tensor<1x1x4xf32>) -> (tensor<2x3x4xf32>, tensor<1x1x4xf32>, tensor<2x3x4xf32>, tensor<1x1x4xf32>) {
  %r:4 = autodiff.vjp @main(%a0, %a1, %ct0, %ct1) {wrt = array<i64: 0, 1>} : (tensor<2x3x4xf32>, tensor<1x1x4xf32>, tensor<2x3x4xf32>, tensor<1x1x4xf32>) -> (tensor<2x3x4xf32>, tensor<1x1x4xf32>, tensor<2x3x4xf32>, tensor<1x1x4xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<2x3x4xf32>, tensor<1x1x4xf32>, tensor<2x3x4xf32>, tensor<1x1x4xf32>
}
