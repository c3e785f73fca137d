// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `HardTanhModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py
// What: `aten.hardtanh(x, -2, 2)`: two cmpf + select clamp generics.
// Adaptations: input 100x100 -> 4x5; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 4x5 (static; upstream annotates the dims as dynamic); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_hardtanh inputs=tm_hardtanh

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> ()>
  func.func @main(%arg0: tensor<4x5xf32>) -> tensor<4x5xf32> {
    %cst = arith.constant dense<2.000000e+00> : tensor<f32>
    %cst_0 = arith.constant dense<-2.000000e+00> : tensor<f32>
    %0 = tensor.empty() : tensor<4x5xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %cst_0 : tensor<4x5xf32>, tensor<f32>) outs(%0 : tensor<4x5xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %3 = arith.cmpf ogt, %in, %in_1 : f32
      %4 = arith.select %3, %in, %in_1 : f32
      linalg.yield %4 : f32
    } -> tensor<4x5xf32>
    %2 = linalg.generic {indexing_maps = [#map1, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%cst, %1 : tensor<f32>, tensor<4x5xf32>) outs(%0 : tensor<4x5xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %3 = arith.cmpf olt, %in, %in_1 : f32
      %4 = arith.select %3, %in, %in_1 : f32
      linalg.yield %4 : f32
    } -> tensor<4x5xf32>
    return %2 : tensor<4x5xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<4x5xf32>, %ct0: tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<4x5xf32>, tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>)
  return %r#0, %r#1 : tensor<4x5xf32>, tensor<4x5xf32>
}
