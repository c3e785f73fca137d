// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/slice_like.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `SliceScatterStaticModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/slice_like.py
// What: `aten.slice_scatter(x, src, dim=1, start=0, end=1)`: one tensor.insert_slice.
// Adaptations: x 6x8 -> 3x4 and src 6x1 -> 3x1; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 3x4, src 3x1; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=tm_slice_scatter inputs=signed

  func.func @main(%arg0: tensor<3x4xf32>, %arg1: tensor<3x1xf32>) -> tensor<3x4xf32> {
    %inserted_slice = tensor.insert_slice %arg1 into %arg0[0, 0] [3, 1] [1, 1] : tensor<3x1xf32> into tensor<3x4xf32>
    return %inserted_slice : tensor<3x4xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<3x4xf32>, %a1: tensor<3x1xf32>, %ct0: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x1xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 0, 1>} : (tensor<3x4xf32>, tensor<3x1xf32>, tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x1xf32>)
  return %r#0, %r#1, %r#2 : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x1xf32>
}
