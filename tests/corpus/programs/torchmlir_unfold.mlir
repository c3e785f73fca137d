// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `UnfoldModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py
// What: `nn.Unfold(kernel_size=(2, 3))` (im2col): index tensors from linalg.index, a generic gathering with tensor.extract at computed (row + kernel offset) indices, linalg.transpose and collapse/expand_shape.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 2x5x3x4 (the upstream shape; static here); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_unfold inputs=signed

#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1) -> (0, d1)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, 0, 0, 0, 0, 0)>
#map5 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, 0, 0, 0, 0)>
#map6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d2, d3, 0, 0)>
#map7 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
#map8 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
  func.func @main(%arg0: tensor<2x5x3x4xf32>) -> tensor<2x30x4xf32> {
    %c5_i64 = arith.constant 5 : i64
    %c3_i64 = arith.constant 3 : i64
    %c0_i64 = arith.constant 0 : i64
    %c2_i64 = arith.constant 2 : i64
    %c4_i64 = arith.constant 4 : i64
    %0 = tensor.empty() : tensor<2xi64>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%0 : tensor<2xi64>) {
    ^bb0(%out: i64):
      %13 = linalg.index 0 : index
      %14 = arith.index_cast %13 : index to i64
      linalg.yield %14 : i64
    } -> tensor<2xi64>
    %expanded = tensor.expand_shape %1 [[0, 1]] output_shape [1, 2] : tensor<2xi64> into tensor<1x2xi64>
    %expanded_0 = tensor.expand_shape %1 [[0, 1]] output_shape [2, 1] : tensor<2xi64> into tensor<2x1xi64>
    %2 = tensor.empty() : tensor<2x2xi64>
    %3 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel"]} ins(%expanded, %expanded_0 : tensor<1x2xi64>, tensor<2x1xi64>) outs(%2 : tensor<2x2xi64>) {
    ^bb0(%in: i64, %in_5: i64, %out: i64):
      %13 = arith.addi %in, %in_5 : i64
      linalg.yield %13 : i64
    } -> tensor<2x2xi64>
    %4 = tensor.empty() : tensor<3xi64>
    %5 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%4 : tensor<3xi64>) {
    ^bb0(%out: i64):
      %13 = linalg.index 0 : index
      %14 = arith.index_cast %13 : index to i64
      linalg.yield %14 : i64
    } -> tensor<3xi64>
    %expanded_1 = tensor.expand_shape %5 [[0, 1]] output_shape [3, 1] : tensor<3xi64> into tensor<3x1xi64>
    %6 = tensor.empty() : tensor<3x2xi64>
    %7 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel"]} ins(%expanded, %expanded_1 : tensor<1x2xi64>, tensor<3x1xi64>) outs(%6 : tensor<3x2xi64>) {
    ^bb0(%in: i64, %in_5: i64, %out: i64):
      %13 = arith.addi %in, %in_5 : i64
      linalg.yield %13 : i64
    } -> tensor<3x2xi64>
    %expanded_2 = tensor.expand_shape %3 [[0], [1, 2, 3]] output_shape [2, 2, 1, 1] : tensor<2x2xi64> into tensor<2x2x1x1xi64>
    %8 = tensor.empty() : tensor<5xi64>
    %9 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%8 : tensor<5xi64>) {
    ^bb0(%out: i64):
      %13 = linalg.index 0 : index
      %14 = arith.index_cast %13 : index to i64
      linalg.yield %14 : i64
    } -> tensor<5xi64>
    %expanded_3 = tensor.expand_shape %9 [[0, 1, 2, 3, 4]] output_shape [5, 1, 1, 1, 1] : tensor<5xi64> into tensor<5x1x1x1x1xi64>
    %expanded_4 = tensor.expand_shape %1 [[0, 1, 2, 3, 4, 5]] output_shape [2, 1, 1, 1, 1, 1] : tensor<2xi64> into tensor<2x1x1x1x1x1xi64>
    %10 = tensor.empty() : tensor<2x5x2x2x3x2xf32>
    %11 = linalg.generic {indexing_maps = [#map4, #map5, #map6, #map7, #map8], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%expanded_4, %expanded_3, %expanded_2, %7 : tensor<2x1x1x1x1x1xi64>, tensor<5x1x1x1x1xi64>, tensor<2x2x1x1xi64>, tensor<3x2xi64>) outs(%10 : tensor<2x5x2x2x3x2xf32>) {
    ^bb0(%in: i64, %in_5: i64, %in_6: i64, %in_7: i64, %out: f32):
      %13 = arith.cmpi slt, %in, %c0_i64 : i64
      %14 = arith.addi %in, %c2_i64 : i64
      %15 = arith.select %13, %14, %in : i64
      %16 = arith.index_cast %15 : i64 to index
      %17 = arith.cmpi slt, %in_5, %c0_i64 : i64
      %18 = arith.addi %in_5, %c5_i64 : i64
      %19 = arith.select %17, %18, %in_5 : i64
      %20 = arith.index_cast %19 : i64 to index
      %21 = arith.cmpi slt, %in_6, %c0_i64 : i64
      %22 = arith.addi %in_6, %c3_i64 : i64
      %23 = arith.select %21, %22, %in_6 : i64
      %24 = arith.index_cast %23 : i64 to index
      %25 = arith.cmpi slt, %in_7, %c0_i64 : i64
      %26 = arith.addi %in_7, %c4_i64 : i64
      %27 = arith.select %25, %26, %in_7 : i64
      %28 = arith.index_cast %27 : i64 to index
      %extracted = tensor.extract %arg0[%16, %20, %24, %28] : tensor<2x5x3x4xf32>
      linalg.yield %extracted : f32
    } -> tensor<2x5x2x2x3x2xf32>
    %12 = tensor.empty() : tensor<2x5x2x3x2x2xf32>
    %transposed = linalg.transpose ins(%11 : tensor<2x5x2x2x3x2xf32>) outs(%12 : tensor<2x5x2x3x2x2xf32>) permutation = [0, 1, 2, 4, 3, 5] 
    %collapsed = tensor.collapse_shape %transposed [[0], [1, 2, 3], [4, 5]] : tensor<2x5x2x3x2x2xf32> into tensor<2x30x4xf32>
    return %collapsed : tensor<2x30x4xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x5x3x4xf32>, %ct0: tensor<2x30x4xf32>) -> (tensor<2x30x4xf32>, tensor<2x5x3x4xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<2x5x3x4xf32>, tensor<2x30x4xf32>) -> (tensor<2x30x4xf32>, tensor<2x5x3x4xf32>)
  return %r#0, %r#1 : tensor<2x30x4xf32>, tensor<2x5x3x4xf32>
}
