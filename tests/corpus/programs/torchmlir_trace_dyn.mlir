// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/reduction.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `TraceModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/reduction.py
// What: `aten.trace` of a `tensor<?x?xf32>`: the diagonal length as min of the tensor.dim sizes, a generic gathering x[i, i] with tensor.extract at linalg.index, and a sum reduction to a 0-d result.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors", dynamic_shapes=({0: a, 1: b},))` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 3x4 with both dims dynamic (as upstream, its `_nonsquare` case); removed the `module { ... }` around @main; added the gradir entry @grad_main (autodiff.grad) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_trace inputs=tm_dyn_3x4

#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> ()>
  func.func @main(%arg0: tensor<?x?xf32>) -> tensor<f32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %cst = arith.constant 0.000000e+00 : f32
    %dim = tensor.dim %arg0, %c0 : tensor<?x?xf32>
    %dim_0 = tensor.dim %arg0, %c1 : tensor<?x?xf32>
    %0 = arith.minsi %dim, %dim_0 : index
    %1 = arith.maxsi %0, %c0 : index
    %2 = tensor.empty(%1) : tensor<?xf32>
    %3 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%2 : tensor<?xf32>) {
    ^bb0(%out: f32):
      %7 = linalg.index 0 : index
      %extracted = tensor.extract %arg0[%7, %7] : tensor<?x?xf32>
      linalg.yield %extracted : f32
    } -> tensor<?xf32>
    %4 = tensor.empty() : tensor<f32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<f32>) -> tensor<f32>
    %6 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction"]} ins(%3 : tensor<?xf32>) outs(%5 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = arith.addf %in, %out : f32
      linalg.yield %7 : f32
    } -> tensor<f32>
    return %6 : tensor<f32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_main(%a0: tensor<?x?xf32>) -> (tensor<?x?xf32>) {
  %g:1 = autodiff.grad @main(%a0) {wrt = array<i64: 0>} : (tensor<?x?xf32>) -> (tensor<?x?xf32>)
  return %g#0 : tensor<?x?xf32>
}
