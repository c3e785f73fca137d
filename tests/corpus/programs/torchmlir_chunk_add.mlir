// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/slice_like.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `ChunkListUnpack_Module`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/slice_like.py
// What: `torch.chunk(x, 3, 1)` and the sum of the three chunks: three tensor.extract_slice ops and two add generics.
// Adaptations: input 2x12x2 -> 2x6x2; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 2x6x2; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_chunk_add inputs=signed

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
  func.func @main(%arg0: tensor<2x6x2xf32>) -> tensor<2x2x2xf32> {
    %extracted_slice = tensor.extract_slice %arg0[0, 0, 0] [2, 2, 2] [1, 1, 1] : tensor<2x6x2xf32> to tensor<2x2x2xf32>
    %extracted_slice_0 = tensor.extract_slice %arg0[0, 2, 0] [2, 2, 2] [1, 1, 1] : tensor<2x6x2xf32> to tensor<2x2x2xf32>
    %extracted_slice_1 = tensor.extract_slice %arg0[0, 4, 0] [2, 2, 2] [1, 1, 1] : tensor<2x6x2xf32> to tensor<2x2x2xf32>
    %0 = tensor.empty() : tensor<2x2x2xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%extracted_slice, %extracted_slice_0 : tensor<2x2x2xf32>, tensor<2x2x2xf32>) outs(%0 : tensor<2x2x2xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %3 = arith.addf %in, %in_2 : f32
      linalg.yield %3 : f32
    } -> tensor<2x2x2xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1, %extracted_slice_1 : tensor<2x2x2xf32>, tensor<2x2x2xf32>) outs(%0 : tensor<2x2x2xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %3 = arith.addf %in, %in_2 : f32
      linalg.yield %3 : f32
    } -> tensor<2x2x2xf32>
    return %2 : tensor<2x2x2xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x6x2xf32>, %ct0: tensor<2x2x2xf32>) -> (tensor<2x2x2xf32>, tensor<2x6x2xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<2x6x2xf32>, tensor<2x2x2xf32>) -> (tensor<2x2x2xf32>, tensor<2x6x2xf32>)
  return %r#0, %r#1 : tensor<2x2x2xf32>, tensor<2x6x2xf32>
}
