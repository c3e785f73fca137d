// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/reshape_like.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `Rot90BasicModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/reshape_like.py
// What: `aten.rot90(a, 1, (0, 1))`: a flip as an output-only generic with linalg.index, arith.subi and tensor.extract, then linalg.transpose.
// Adaptations: input 4x5 -> 3x4; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 3x4; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_rot90 inputs=signed

#map = affine_map<(d0, d1) -> (d0, d1)>
  func.func @main(%arg0: tensor<3x4xf32>) -> tensor<4x3xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c3 = arith.constant 3 : index
    %0 = tensor.empty() : tensor<3x4xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<3x4xf32>) -> tensor<3x4xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<3x4xf32>) outs(%1 : tensor<3x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %4 = linalg.index 0 : index
      %5 = linalg.index 1 : index
      %6 = arith.subi %c3, %5 : index
      %extracted = tensor.extract %arg0[%4, %6] : tensor<3x4xf32>
      linalg.yield %extracted : f32
    } -> tensor<3x4xf32>
    %3 = tensor.empty() : tensor<4x3xf32>
    %transposed = linalg.transpose ins(%2 : tensor<3x4xf32>) outs(%3 : tensor<4x3xf32>) permutation = [1, 0] 
    return %transposed : tensor<4x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<3x4xf32>, %ct0: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3x4xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<3x4xf32>, tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3x4xf32>)
  return %r#0, %r#1 : tensor<4x3xf32>, tensor<3x4xf32>
}
