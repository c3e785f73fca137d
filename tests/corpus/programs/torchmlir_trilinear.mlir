// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/reshape_like.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `Aten_TrilinearModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/reshape_like.py
// What: `aten._trilinear` without expands or sum dims: two product generics of three 3x3x3 tensors.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs three 3x3x3 (the upstream shapes); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1,2 reference=tm_trilinear inputs=signed

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
  func.func @main(%arg0: tensor<3x3x3xf32>, %arg1: tensor<3x3x3xf32>, %arg2: tensor<3x3x3xf32>) -> tensor<3x3x3xf32> {
    %0 = tensor.empty() : tensor<3x3x3xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %arg1 : tensor<3x3x3xf32>, tensor<3x3x3xf32>) outs(%0 : tensor<3x3x3xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %3 = arith.mulf %in, %in_0 : f32
      linalg.yield %3 : f32
    } -> tensor<3x3x3xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1, %arg2 : tensor<3x3x3xf32>, tensor<3x3x3xf32>) outs(%0 : tensor<3x3x3xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %3 = arith.mulf %in, %in_0 : f32
      linalg.yield %3 : f32
    } -> tensor<3x3x3xf32>
    return %2 : tensor<3x3x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<3x3x3xf32>, %a1: tensor<3x3x3xf32>, %a2: tensor<3x3x3xf32>, %ct0: tensor<3x3x3xf32>) -> (tensor<3x3x3xf32>, tensor<3x3x3xf32>, tensor<3x3x3xf32>, tensor<3x3x3xf32>) {
  %r:4 = autodiff.vjp @main(%a0, %a1, %a2, %ct0) {wrt = array<i64: 0, 1, 2>} : (tensor<3x3x3xf32>, tensor<3x3x3xf32>, tensor<3x3x3xf32>, tensor<3x3x3xf32>) -> (tensor<3x3x3xf32>, tensor<3x3x3xf32>, tensor<3x3x3xf32>, tensor<3x3x3xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<3x3x3xf32>, tensor<3x3x3xf32>, tensor<3x3x3xf32>, tensor<3x3x3xf32>
}
