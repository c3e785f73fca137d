// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/reduction.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `ReduceL1NormModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/reduction.py
// What: `linalg.vector_norm(a, dim=0, ord=1)`: math.absf and math.powf(1) in a reduction generic, then math.powf(1/1).
// Adaptations: input 3x4x5 -> 3x4x2; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 3x4x2 (static; upstream annotates the dims as dynamic); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_l1_norm inputs=signed

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map2 = affine_map<(d0, d1) -> (d0, d1)>
  func.func @main(%arg0: tensor<3x4x2xf32>) -> tensor<4x2xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %0 = tensor.empty() : tensor<4x2xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4x2xf32>) -> tensor<4x2xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "parallel", "parallel"]} ins(%arg0 : tensor<3x4x2xf32>) outs(%1 : tensor<4x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %4 = math.absf %in : f32
      %5 = math.powf %4, %cst_0 : f32
      %6 = arith.addf %5, %out : f32
      linalg.yield %6 : f32
    } -> tensor<4x2xf32>
    %3 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<4x2xf32>) outs(%0 : tensor<4x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %4 = math.powf %in, %cst_0 : f32
      linalg.yield %4 : f32
    } -> tensor<4x2xf32>
    return %3 : tensor<4x2xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<3x4x2xf32>, %ct0: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<3x4x2xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<3x4x2xf32>, tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<3x4x2xf32>)
  return %r#0, %r#1 : tensor<4x2xf32>, tensor<3x4x2xf32>
}
