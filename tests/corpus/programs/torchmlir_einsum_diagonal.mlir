// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/reshape_like.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `EinsumStaticDiagonalDimensionModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/reshape_like.py
// What: `einsum("iijj,ijij->ji")`: diagonals extracted by output-only generics (linalg.index, tensor.extract), linalg.transpose and a product generic.
// Adaptations: 5x5x4x4 and 5x4x5x4 -> 3x3x2x2 and 3x2x3x2; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 3x3x2x2, 3x2x3x2; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=tm_einsum_diagonal inputs=signed

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
  func.func @main(%arg0: tensor<3x3x2x2xf32>, %arg1: tensor<3x2x3x2xf32>) -> tensor<2x3xf32> {
    %0 = tensor.empty() : tensor<2x2x3xf32>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%0 : tensor<2x2x3xf32>) {
    ^bb0(%out: f32):
      %9 = linalg.index 2 : index
      %10 = linalg.index 0 : index
      %11 = linalg.index 1 : index
      %extracted = tensor.extract %arg0[%9, %9, %10, %11] : tensor<3x3x2x2xf32>
      linalg.yield %extracted : f32
    } -> tensor<2x2x3xf32>
    %2 = tensor.empty() : tensor<3x2x2xf32>
    %transposed = linalg.transpose ins(%1 : tensor<2x2x3xf32>) outs(%2 : tensor<3x2x2xf32>) permutation = [2, 0, 1] 
    %3 = tensor.empty() : tensor<3x2xf32>
    %4 = linalg.generic {indexing_maps = [#map1], iterator_types = ["parallel", "parallel"]} outs(%3 : tensor<3x2xf32>) {
    ^bb0(%out: f32):
      %9 = linalg.index 1 : index
      %10 = linalg.index 0 : index
      %extracted = tensor.extract %transposed[%10, %9, %9] : tensor<3x2x2xf32>
      linalg.yield %extracted : f32
    } -> tensor<3x2xf32>
    %5 = tensor.empty() : tensor<2x3xf32>
    %transposed_0 = linalg.transpose ins(%4 : tensor<3x2xf32>) outs(%5 : tensor<2x3xf32>) permutation = [1, 0] 
    %6 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%0 : tensor<2x2x3xf32>) {
    ^bb0(%out: f32):
      %9 = linalg.index 2 : index
      %10 = linalg.index 0 : index
      %11 = linalg.index 1 : index
      %extracted = tensor.extract %arg1[%9, %10, %9, %11] : tensor<3x2x3x2xf32>
      linalg.yield %extracted : f32
    } -> tensor<2x2x3xf32>
    %transposed_1 = linalg.transpose ins(%6 : tensor<2x2x3xf32>) outs(%2 : tensor<3x2x2xf32>) permutation = [2, 0, 1] 
    %7 = linalg.generic {indexing_maps = [#map1], iterator_types = ["parallel", "parallel"]} outs(%3 : tensor<3x2xf32>) {
    ^bb0(%out: f32):
      %9 = linalg.index 1 : index
      %10 = linalg.index 0 : index
      %extracted = tensor.extract %transposed_1[%10, %9, %9] : tensor<3x2x2xf32>
      linalg.yield %extracted : f32
    } -> tensor<3x2xf32>
    %transposed_2 = linalg.transpose ins(%7 : tensor<3x2xf32>) outs(%5 : tensor<2x3xf32>) permutation = [1, 0] 
    %8 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%transposed_0, %transposed_2 : tensor<2x3xf32>, tensor<2x3xf32>) outs(%5 : tensor<2x3xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %9 = arith.mulf %in, %in_3 : f32
      linalg.yield %9 : f32
    } -> tensor<2x3xf32>
    return %8 : tensor<2x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<3x3x2x2xf32>, %a1: tensor<3x2x3x2xf32>, %ct0: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3x3x2x2xf32>, tensor<3x2x3x2xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 0, 1>} : (tensor<3x3x2x2xf32>, tensor<3x2x3x2xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3x3x2x2xf32>, tensor<3x2x3x2xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x3xf32>, tensor<3x3x2x2xf32>, tensor<3x2x3x2xf32>
}
