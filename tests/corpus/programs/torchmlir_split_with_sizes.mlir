// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/slice_like.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `SplitWithSizesListUnpackModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/slice_like.py
// What: `aten.split_with_sizes(x, [3, 4, 5], -1)`: three tensor.extract_slice results.
// Adaptations: input 10x12 -> 2x12; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 2x12; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_split_with_sizes inputs=signed

  func.func @main(%arg0: tensor<2x12xf32>) -> (tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x5xf32>) {
    %extracted_slice = tensor.extract_slice %arg0[0, 0] [2, 3] [1, 1] : tensor<2x12xf32> to tensor<2x3xf32>
    %extracted_slice_0 = tensor.extract_slice %arg0[0, 3] [2, 4] [1, 1] : tensor<2x12xf32> to tensor<2x4xf32>
    %extracted_slice_1 = tensor.extract_slice %arg0[0, 7] [2, 5] [1, 1] : tensor<2x12xf32> to tensor<2x5xf32>
    return %extracted_slice, %extracted_slice_0, %extracted_slice_1 : tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x5xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x12xf32>, %ct0: tensor<2x3xf32>, %ct1: tensor<2x4xf32>, %ct2: tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x5xf32>, tensor<2x12xf32>) {
  %r:4 = autodiff.vjp @main(%a0, %ct0, %ct1, %ct2) {wrt = array<i64: 0>} : (tensor<2x12xf32>, tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x5xf32>, tensor<2x12xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x5xf32>, tensor<2x12xf32>
}
