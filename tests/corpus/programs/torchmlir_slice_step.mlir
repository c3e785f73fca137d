// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/slice_like.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `SliceSizeTwoStepModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/slice_like.py
// What: `x[0:5:2, 0:3:2, 0:4:2]`: three tensor.extract_slice ops with stride 2.
// Adaptations: input 10x5x17 -> 6x4x5; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 6x4x5 (static; upstream annotates the dims as dynamic); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_slice_step inputs=signed

  func.func @main(%arg0: tensor<6x4x5xf32>) -> tensor<3x2x2xf32> {
    %extracted_slice = tensor.extract_slice %arg0[0, 0, 0] [3, 4, 5] [2, 1, 1] : tensor<6x4x5xf32> to tensor<3x4x5xf32>
    %extracted_slice_0 = tensor.extract_slice %extracted_slice[0, 0, 0] [3, 2, 5] [1, 2, 1] : tensor<3x4x5xf32> to tensor<3x2x5xf32>
    %extracted_slice_1 = tensor.extract_slice %extracted_slice_0[0, 0, 0] [3, 2, 2] [1, 1, 2] : tensor<3x2x5xf32> to tensor<3x2x2xf32>
    return %extracted_slice_1 : tensor<3x2x2xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<6x4x5xf32>, %ct0: tensor<3x2x2xf32>) -> (tensor<3x2x2xf32>, tensor<6x4x5xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<6x4x5xf32>, tensor<3x2x2xf32>) -> (tensor<3x2x2xf32>, tensor<6x4x5xf32>)
  return %r#0, %r#1 : tensor<3x2x2xf32>, tensor<6x4x5xf32>
}
