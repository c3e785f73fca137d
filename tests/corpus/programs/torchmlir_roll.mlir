// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `RollModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py
// What: `x.roll([2, -1], [0, 2])`: tensor.extract_slice pieces, tensor.cast to dynamic dims and tensor.concat along dims 0 and 2.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 3x1x2 (static; upstream annotates dim 1 as dynamic); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_roll inputs=signed

  func.func @main(%arg0: tensor<3x1x2xf32>) -> tensor<3x1x2xf32> {
    %extracted_slice = tensor.extract_slice %arg0[1, 0, 0] [2, 1, 2] [1, 1, 1] : tensor<3x1x2xf32> to tensor<2x1x2xf32>
    %cast = tensor.cast %extracted_slice : tensor<2x1x2xf32> to tensor<?x1x2xf32>
    %extracted_slice_0 = tensor.extract_slice %arg0[0, 0, 0] [1, 1, 2] [1, 1, 1] : tensor<3x1x2xf32> to tensor<1x1x2xf32>
    %cast_1 = tensor.cast %extracted_slice_0 : tensor<1x1x2xf32> to tensor<?x1x2xf32>
    %concat = tensor.concat dim(0) %cast, %cast_1 : (tensor<?x1x2xf32>, tensor<?x1x2xf32>) -> tensor<3x1x2xf32>
    %extracted_slice_2 = tensor.extract_slice %concat[0, 0, 1] [3, 1, 1] [1, 1, 1] : tensor<3x1x2xf32> to tensor<3x1x1xf32>
    %cast_3 = tensor.cast %extracted_slice_2 : tensor<3x1x1xf32> to tensor<3x1x?xf32>
    %extracted_slice_4 = tensor.extract_slice %concat[0, 0, 0] [3, 1, 1] [1, 1, 1] : tensor<3x1x2xf32> to tensor<3x1x1xf32>
    %cast_5 = tensor.cast %extracted_slice_4 : tensor<3x1x1xf32> to tensor<3x1x?xf32>
    %concat_6 = tensor.concat dim(2) %cast_3, %cast_5 : (tensor<3x1x?xf32>, tensor<3x1x?xf32>) -> tensor<3x1x2xf32>
    return %concat_6 : tensor<3x1x2xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<3x1x2xf32>, %ct0: tensor<3x1x2xf32>) -> (tensor<3x1x2xf32>, tensor<3x1x2xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<3x1x2xf32>, tensor<3x1x2xf32>) -> (tensor<3x1x2xf32>, tensor<3x1x2xf32>)
  return %r#0, %r#1 : tensor<3x1x2xf32>, tensor<3x1x2xf32>
}
