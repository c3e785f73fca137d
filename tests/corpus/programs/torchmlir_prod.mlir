// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/reduction.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `ReduceProdFloatModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/reduction.py
// What: `torch.prod(a)`: a full reduction generic multiplying into a fill of 1.0, to a 0-d result.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 2x3x2 (upstream 3x4x5; static here); removed the `module { ... }` around @main; added the gradir entry @grad_main (autodiff.grad) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_prod inputs=pos

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> ()>
  func.func @main(%arg0: tensor<2x3x2xf32>) -> tensor<f32> {
    %cst = arith.constant 1.000000e+00 : f32
    %0 = tensor.empty() : tensor<f32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<f32>) -> tensor<f32>
    %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "reduction", "reduction"]} ins(%arg0 : tensor<2x3x2xf32>) outs(%1 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %3 = arith.mulf %in, %out : f32
      linalg.yield %3 : f32
    } -> tensor<f32>
    return %2 : tensor<f32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_main(%a0: tensor<2x3x2xf32>) -> (tensor<2x3x2xf32>) {
  %g:1 = autodiff.grad @main(%a0) {wrt = array<i64: 0>} : (tensor<2x3x2xf32>) -> (tensor<2x3x2xf32>)
  return %g#0 : tensor<2x3x2xf32>
}
