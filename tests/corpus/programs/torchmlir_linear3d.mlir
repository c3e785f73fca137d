// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/matmul.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `AtenLinear3DBias`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/matmul.py
// What: `aten.linear` of a 3-d input: linalg.transpose of the weight, collapse_shape of the input to 2-d, linalg.matmul, expand_shape and the bias broadcast add.
// Adaptations: input 3x6x4 -> 2x3x4; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 2x3x4, 5x4, 5; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1,2 reference=tm_linear3d inputs=signed

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
  func.func @main(%arg0: tensor<2x3x4xf32>, %arg1: tensor<5x4xf32>, %arg2: tensor<5xf32>) -> tensor<2x3x5xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %collapsed = tensor.collapse_shape %arg0 [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
    %0 = tensor.empty() : tensor<4x5xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<5x4xf32>) outs(%0 : tensor<4x5xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<6x5xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<6x5xf32>) -> tensor<6x5xf32>
    %3 = linalg.matmul ins(%collapsed, %transposed : tensor<6x4xf32>, tensor<4x5xf32>) outs(%2 : tensor<6x5xf32>) -> tensor<6x5xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %arg2 : tensor<6x5xf32>, tensor<5xf32>) outs(%1 : tensor<6x5xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %5 = arith.addf %in, %in_0 : f32
      linalg.yield %5 : f32
    } -> tensor<6x5xf32>
    %expanded = tensor.expand_shape %4 [[0, 1], [2]] output_shape [2, 3, 5] : tensor<6x5xf32> into tensor<2x3x5xf32>
    return %expanded : tensor<2x3x5xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x3x4xf32>, %a1: tensor<5x4xf32>, %a2: tensor<5xf32>, %ct0: tensor<2x3x5xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5xf32>) {
  %r:4 = autodiff.vjp @main(%a0, %a1, %a2, %ct0) {wrt = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5xf32>, tensor<2x3x5xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<2x3x5xf32>, tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5xf32>
}
