// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `TensorsStackModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py
// What: `torch.stack([x, y, z], dim=1)`: tensor.concat along dim 1 and a tensor.expand_shape.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs three 2x3x4 (the upstream shapes; static here); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1,2 reference=tm_stack inputs=signed

  func.func @main(%arg0: tensor<2x3x4xf32>, %arg1: tensor<2x3x4xf32>, %arg2: tensor<2x3x4xf32>) -> tensor<2x3x3x4xf32> {
    %concat = tensor.concat dim(1) %arg0, %arg1, %arg2 : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x9x4xf32>
    %expanded = tensor.expand_shape %concat [[0], [1, 2], [3]] output_shape [2, 3, 3, 4] : tensor<2x9x4xf32> into tensor<2x3x3x4xf32>
    return %expanded : tensor<2x3x3x4xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x3x4xf32>, %a1: tensor<2x3x4xf32>, %a2: tensor<2x3x4xf32>, %ct0: tensor<2x3x3x4xf32>) -> (tensor<2x3x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %r:4 = autodiff.vjp @main(%a0, %a1, %a2, %ct0) {wrt = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x3x4xf32>) -> (tensor<2x3x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<2x3x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}
