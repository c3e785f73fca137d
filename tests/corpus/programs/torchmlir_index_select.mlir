// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/index_select.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `IndexSelectTwoIdxModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/index_select.py
// What: `torch.index_select(x, 2, indices)`: a generic over the output with the i64 index tensor as an input, index_cast and tensor.extract from x.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 4x5x6, indices 2 i64 (the upstream shapes); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_index_select inputs=tm_index_select

#map = affine_map<(d0, d1, d2) -> (d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
  func.func @main(%arg0: tensor<4x5x6xf32>, %arg1: tensor<2xi64>) -> tensor<4x5x2xf32> {
    %0 = tensor.empty() : tensor<4x5x2xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1 : tensor<2xi64>) outs(%0 : tensor<4x5x2xf32>) {
    ^bb0(%in: i64, %out: f32):
      %2 = arith.index_cast %in : i64 to index
      %3 = linalg.index 0 : index
      %4 = linalg.index 1 : index
      %extracted = tensor.extract %arg0[%3, %4, %2] : tensor<4x5x6xf32>
      linalg.yield %extracted : f32
    } -> tensor<4x5x2xf32>
    return %1 : tensor<4x5x2xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<4x5x6xf32>, %a1: tensor<2xi64>, %ct0: tensor<4x5x2xf32>) -> (tensor<4x5x2xf32>, tensor<4x5x6xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 0>} : (tensor<4x5x6xf32>, tensor<2xi64>, tensor<4x5x2xf32>) -> (tensor<4x5x2xf32>, tensor<4x5x6xf32>)
  return %r#0, %r#1 : tensor<4x5x2xf32>, tensor<4x5x6xf32>
}
