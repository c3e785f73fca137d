// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `IndexTensorMultiInputContiguousCenter`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py
// What: advanced indexing `x[:, i1, i2, :]` with a 2x2 and a 2-element i64 index tensor broadcast together: expand_shape of the indices, a generic reading both index tensors through broadcasting maps, negative-index wrap-around (cmpi + addi + select), index_cast and tensor.extract.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 2x4x3x2 (upstream 5x4x3x2), index1 2x2, index2 2; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_index_tensor_center inputs=tm_index_tensor_center

#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, 0)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d1, d2, 0)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d2, 0)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d3)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
  func.func @main(%arg0: tensor<2x4x3x2xf32>, %arg1: tensor<2x2xi64>, %arg2: tensor<2xi64>) -> tensor<2x2x2x2xf32> {
    %c2_i64 = arith.constant 2 : i64
    %c0_i64 = arith.constant 0 : i64
    %c4_i64 = arith.constant 4 : i64
    %c3_i64 = arith.constant 3 : i64
    %0 = tensor.empty() : tensor<2xi64>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%0 : tensor<2xi64>) {
    ^bb0(%out: i64):
      %4 = linalg.index 0 : index
      %5 = arith.index_cast %4 : index to i64
      linalg.yield %5 : i64
    } -> tensor<2xi64>
    %expanded = tensor.expand_shape %arg2 [[0, 1]] output_shape [2, 1] : tensor<2xi64> into tensor<2x1xi64>
    %expanded_0 = tensor.expand_shape %arg1 [[0], [1, 2]] output_shape [2, 2, 1] : tensor<2x2xi64> into tensor<2x2x1xi64>
    %expanded_1 = tensor.expand_shape %1 [[0, 1, 2, 3]] output_shape [2, 1, 1, 1] : tensor<2xi64> into tensor<2x1x1x1xi64>
    %2 = tensor.empty() : tensor<2x2x2x2xf32>
    %3 = linalg.generic {indexing_maps = [#map1, #map2, #map3, #map4, #map5], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_1, %expanded_0, %expanded, %1 : tensor<2x1x1x1xi64>, tensor<2x2x1xi64>, tensor<2x1xi64>, tensor<2xi64>) outs(%2 : tensor<2x2x2x2xf32>) {
    ^bb0(%in: i64, %in_2: i64, %in_3: i64, %in_4: i64, %out: f32):
      %4 = arith.cmpi slt, %in, %c0_i64 : i64
      %5 = arith.addi %in, %c2_i64 : i64
      %6 = arith.select %4, %5, %in : i64
      %7 = arith.index_cast %6 : i64 to index
      %8 = arith.cmpi slt, %in_2, %c0_i64 : i64
      %9 = arith.addi %in_2, %c4_i64 : i64
      %10 = arith.select %8, %9, %in_2 : i64
      %11 = arith.index_cast %10 : i64 to index
      %12 = arith.cmpi slt, %in_3, %c0_i64 : i64
      %13 = arith.addi %in_3, %c3_i64 : i64
      %14 = arith.select %12, %13, %in_3 : i64
      %15 = arith.index_cast %14 : i64 to index
      %16 = arith.cmpi slt, %in_4, %c0_i64 : i64
      %17 = arith.addi %in_4, %c2_i64 : i64
      %18 = arith.select %16, %17, %in_4 : i64
      %19 = arith.index_cast %18 : i64 to index
      %extracted = tensor.extract %arg0[%7, %11, %15, %19] : tensor<2x4x3x2xf32>
      linalg.yield %extracted : f32
    } -> tensor<2x2x2x2xf32>
    return %3 : tensor<2x2x2x2xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x4x3x2xf32>, %a1: tensor<2x2xi64>, %a2: tensor<2xi64>, %ct0: tensor<2x2x2x2xf32>) -> (tensor<2x2x2x2xf32>, tensor<2x4x3x2xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %a1, %a2, %ct0) {wrt = array<i64: 0>} : (tensor<2x4x3x2xf32>, tensor<2x2xi64>, tensor<2xi64>, tensor<2x2x2x2xf32>) -> (tensor<2x2x2x2xf32>, tensor<2x4x3x2xf32>)
  return %r#0, %r#1 : tensor<2x2x2x2xf32>, tensor<2x4x3x2xf32>
}
