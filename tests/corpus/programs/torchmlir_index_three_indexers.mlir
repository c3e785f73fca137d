// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `IndexTensorMultiInputThreeIndexers`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py
// What: advanced indexing `x[:, :, i1, :, i2, i3]` with three non-contiguous i64 index tensors broadcast together: expand_shape of the indices, negative-index wrap-around (cmpi + addi + select), index_cast, a 6-d gather generic with tensor.extract and linalg.transpose moving the indexed dims first.
// Adaptations: index1 8x4x2 -> 2x4x2 and index2 8x1x1 -> 2x1x1; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 1x2x4x4x5x3, index1 2x4x2, index2 2x1x1, index3 4x2 (i64); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_index_three_indexers inputs=tm_index_three_indexers

#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, 0, 0, 0)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, 0, 0, 0, 0, 0)>
#map3 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, 0, 0, 0)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5) -> (0, 0, 0)>
#map5 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, 0)>
#map6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d5)>
#map7 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
  func.func @main(%arg0: tensor<1x2x4x4x5x3xf32>, %arg1: tensor<2x4x2xi64>, %arg2: tensor<2x1x1xi64>, %arg3: tensor<4x2xi64>) -> tensor<2x4x2x1x2x4xf32> {
    %c2_i64 = arith.constant 2 : i64
    %c4_i64 = arith.constant 4 : i64
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c5_i64 = arith.constant 5 : i64
    %c3_i64 = arith.constant 3 : i64
    %0 = tensor.empty() : tensor<4x5x3x1x2x4xf32>
    %transposed = linalg.transpose ins(%arg0 : tensor<1x2x4x4x5x3xf32>) outs(%0 : tensor<4x5x3x1x2x4xf32>) permutation = [2, 4, 5, 0, 1, 3] 
    %1 = tensor.empty() : tensor<4xi64>
    %2 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%1 : tensor<4xi64>) {
    ^bb0(%out: i64):
      %9 = linalg.index 0 : index
      %10 = arith.index_cast %9 : index to i64
      linalg.yield %10 : i64
    } -> tensor<4xi64>
    %3 = tensor.empty() : tensor<2xi64>
    %4 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%3 : tensor<2xi64>) {
    ^bb0(%out: i64):
      %9 = linalg.index 0 : index
      %10 = arith.index_cast %9 : index to i64
      linalg.yield %10 : i64
    } -> tensor<2xi64>
    %expanded = tensor.expand_shape %4 [[0, 1]] output_shape [2, 1] : tensor<2xi64> into tensor<2x1xi64>
    %5 = tensor.empty() : tensor<1xi64>
    %6 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%5 : tensor<1xi64>) {
    ^bb0(%out: i64):
      linalg.yield %c0_i64 : i64
    } -> tensor<1xi64>
    %expanded_0 = tensor.expand_shape %6 [[0, 1, 2]] output_shape [1, 1, 1] : tensor<1xi64> into tensor<1x1x1xi64>
    %expanded_1 = tensor.expand_shape %arg3 [[0], [1, 2, 3, 4]] output_shape [4, 2, 1, 1, 1] : tensor<4x2xi64> into tensor<4x2x1x1x1xi64>
    %expanded_2 = tensor.expand_shape %arg2 [[0], [1], [2, 3, 4, 5]] output_shape [2, 1, 1, 1, 1, 1] : tensor<2x1x1xi64> into tensor<2x1x1x1x1x1xi64>
    %expanded_3 = tensor.expand_shape %arg1 [[0], [1], [2, 3, 4, 5]] output_shape [2, 4, 2, 1, 1, 1] : tensor<2x4x2xi64> into tensor<2x4x2x1x1x1xi64>
    %7 = tensor.empty() : tensor<2x4x2x1x2x4xf32>
    %8 = linalg.generic {indexing_maps = [#map1, #map2, #map3, #map4, #map5, #map6, #map7], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%expanded_3, %expanded_2, %expanded_1, %expanded_0, %expanded, %2 : tensor<2x4x2x1x1x1xi64>, tensor<2x1x1x1x1x1xi64>, tensor<4x2x1x1x1xi64>, tensor<1x1x1xi64>, tensor<2x1xi64>, tensor<4xi64>) outs(%7 : tensor<2x4x2x1x2x4xf32>) {
    ^bb0(%in: i64, %in_4: i64, %in_5: i64, %in_6: i64, %in_7: i64, %in_8: i64, %out: f32):
      %9 = arith.cmpi slt, %in, %c0_i64 : i64
      %10 = arith.addi %in, %c4_i64 : i64
      %11 = arith.select %9, %10, %in : i64
      %12 = arith.index_cast %11 : i64 to index
      %13 = arith.cmpi slt, %in_4, %c0_i64 : i64
      %14 = arith.addi %in_4, %c5_i64 : i64
      %15 = arith.select %13, %14, %in_4 : i64
      %16 = arith.index_cast %15 : i64 to index
      %17 = arith.cmpi slt, %in_5, %c0_i64 : i64
      %18 = arith.addi %in_5, %c3_i64 : i64
      %19 = arith.select %17, %18, %in_5 : i64
      %20 = arith.index_cast %19 : i64 to index
      %21 = arith.cmpi slt, %in_6, %c0_i64 : i64
      %22 = arith.addi %in_6, %c1_i64 : i64
      %23 = arith.select %21, %22, %in_6 : i64
      %24 = arith.index_cast %23 : i64 to index
      %25 = arith.cmpi slt, %in_7, %c0_i64 : i64
      %26 = arith.addi %in_7, %c2_i64 : i64
      %27 = arith.select %25, %26, %in_7 : i64
      %28 = arith.index_cast %27 : i64 to index
      %29 = arith.cmpi slt, %in_8, %c0_i64 : i64
      %30 = arith.addi %in_8, %c4_i64 : i64
      %31 = arith.select %29, %30, %in_8 : i64
      %32 = arith.index_cast %31 : i64 to index
      %extracted = tensor.extract %transposed[%12, %16, %20, %24, %28, %32] : tensor<4x5x3x1x2x4xf32>
      linalg.yield %extracted : f32
    } -> tensor<2x4x2x1x2x4xf32>
    return %8 : tensor<2x4x2x1x2x4xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x2x4x4x5x3xf32>, %a1: tensor<2x4x2xi64>, %a2: tensor<2x1x1xi64>, %a3: tensor<4x2xi64>, %ct0: tensor<2x4x2x1x2x4xf32>) -> (tensor<2x4x2x1x2x4xf32>, tensor<1x2x4x4x5x3xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %a1, %a2, %a3, %ct0) {wrt = array<i64: 0>} : (tensor<1x2x4x4x5x3xf32>, tensor<2x4x2xi64>, tensor<2x1x1xi64>, tensor<4x2xi64>, tensor<2x4x2x1x2x4xf32>) -> (tensor<2x4x2x1x2x4xf32>, tensor<1x2x4x4x5x3xf32>)
  return %r#0, %r#1 : tensor<2x4x2x1x2x4xf32>, tensor<1x2x4x4x5x3xf32>
}
