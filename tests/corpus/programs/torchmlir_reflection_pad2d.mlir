// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/padding.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `ReflectionPad2dModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/padding.py
// What: `aten.reflection_pad2d(x, (2, 2, 2, 2))` on 1x4x4: i64 index vectors of the reflected rows and columns built by generics (linalg.index, arith.index_cast, addi, math.absi, subi), expand_shape, and 3-d gather generics with tensor.extract at those indices.
// Adaptations: padding (10, 10, 10, 10) -> (2, 2, 2, 2) and input 1x20x20 -> 1x4x4 (reflection padding must be below the size); the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 1x4x4; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_reflection_pad2d inputs=signed

#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> ()>
#map2 = affine_map<(d0, d1, d2) -> (0, 0, 0)>
#map3 = affine_map<(d0, d1, d2) -> (d1, 0)>
#map4 = affine_map<(d0, d1, d2) -> (d2)>
#map5 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
  func.func @main(%arg0: tensor<1x4x4xf32>) -> tensor<1x8x8xf32> {
    %c-2_i64 = arith.constant -2 : i64
    %c1_i64 = arith.constant 1 : i64
    %c0_i64 = arith.constant 0 : i64
    %c4_i64 = arith.constant 4 : i64
    %c8_i64 = arith.constant 8 : i64
    %cst = arith.constant dense<3> : tensor<i64>
    %0 = tensor.empty() : tensor<8xi64>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%0 : tensor<8xi64>) {
    ^bb0(%out: i64):
      %15 = linalg.index 0 : index
      %16 = arith.index_cast %15 : index to i64
      %17 = arith.addi %16, %c-2_i64 : i64
      linalg.yield %17 : i64
    } -> tensor<8xi64>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%1 : tensor<8xi64>) outs(%0 : tensor<8xi64>) {
    ^bb0(%in: i64, %out: i64):
      %15 = math.absi %in : i64
      linalg.yield %15 : i64
    } -> tensor<8xi64>
    %3 = linalg.generic {indexing_maps = [#map1, #map, #map], iterator_types = ["parallel"]} ins(%cst, %2 : tensor<i64>, tensor<8xi64>) outs(%0 : tensor<8xi64>) {
    ^bb0(%in: i64, %in_2: i64, %out: i64):
      %15 = arith.subi %in, %in_2 : i64
      linalg.yield %15 : i64
    } -> tensor<8xi64>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%3 : tensor<8xi64>) outs(%0 : tensor<8xi64>) {
    ^bb0(%in: i64, %out: i64):
      %15 = math.absi %in : i64
      linalg.yield %15 : i64
    } -> tensor<8xi64>
    %5 = linalg.generic {indexing_maps = [#map1, #map, #map], iterator_types = ["parallel"]} ins(%cst, %4 : tensor<i64>, tensor<8xi64>) outs(%0 : tensor<8xi64>) {
    ^bb0(%in: i64, %in_2: i64, %out: i64):
      %15 = arith.subi %in, %in_2 : i64
      linalg.yield %15 : i64
    } -> tensor<8xi64>
    %6 = tensor.empty() : tensor<4xi64>
    %7 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%6 : tensor<4xi64>) {
    ^bb0(%out: i64):
      %15 = linalg.index 0 : index
      %16 = arith.index_cast %15 : index to i64
      linalg.yield %16 : i64
    } -> tensor<4xi64>
    %expanded = tensor.expand_shape %5 [[0, 1]] output_shape [8, 1] : tensor<8xi64> into tensor<8x1xi64>
    %8 = tensor.empty() : tensor<1xi64>
    %9 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%8 : tensor<1xi64>) {
    ^bb0(%out: i64):
      linalg.yield %c0_i64 : i64
    } -> tensor<1xi64>
    %expanded_0 = tensor.expand_shape %9 [[0, 1, 2]] output_shape [1, 1, 1] : tensor<1xi64> into tensor<1x1x1xi64>
    %10 = tensor.empty() : tensor<1x8x4xf32>
    %11 = linalg.generic {indexing_maps = [#map2, #map3, #map4, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_0, %expanded, %7 : tensor<1x1x1xi64>, tensor<8x1xi64>, tensor<4xi64>) outs(%10 : tensor<1x8x4xf32>) {
    ^bb0(%in: i64, %in_2: i64, %in_3: i64, %out: f32):
      %15 = arith.cmpi slt, %in, %c0_i64 : i64
      %16 = arith.addi %in, %c1_i64 : i64
      %17 = arith.select %15, %16, %in : i64
      %18 = arith.index_cast %17 : i64 to index
      %19 = arith.cmpi slt, %in_2, %c0_i64 : i64
      %20 = arith.addi %in_2, %c4_i64 : i64
      %21 = arith.select %19, %20, %in_2 : i64
      %22 = arith.index_cast %21 : i64 to index
      %23 = arith.cmpi slt, %in_3, %c0_i64 : i64
      %24 = arith.addi %in_3, %c4_i64 : i64
      %25 = arith.select %23, %24, %in_3 : i64
      %26 = arith.index_cast %25 : i64 to index
      %extracted = tensor.extract %arg0[%18, %22, %26] : tensor<1x4x4xf32>
      linalg.yield %extracted : f32
    } -> tensor<1x8x4xf32>
    %12 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%0 : tensor<8xi64>) {
    ^bb0(%out: i64):
      %15 = linalg.index 0 : index
      %16 = arith.index_cast %15 : index to i64
      linalg.yield %16 : i64
    } -> tensor<8xi64>
    %expanded_1 = tensor.expand_shape %12 [[0, 1]] output_shape [8, 1] : tensor<8xi64> into tensor<8x1xi64>
    %13 = tensor.empty() : tensor<1x8x8xf32>
    %14 = linalg.generic {indexing_maps = [#map2, #map3, #map4, #map5], iterator_types = ["parallel", "parallel", "parallel"]} ins(%expanded_0, %expanded_1, %5 : tensor<1x1x1xi64>, tensor<8x1xi64>, tensor<8xi64>) outs(%13 : tensor<1x8x8xf32>) {
    ^bb0(%in: i64, %in_2: i64, %in_3: i64, %out: f32):
      %15 = arith.cmpi slt, %in, %c0_i64 : i64
      %16 = arith.addi %in, %c1_i64 : i64
      %17 = arith.select %15, %16, %in : i64
      %18 = arith.index_cast %17 : i64 to index
      %19 = arith.cmpi slt, %in_2, %c0_i64 : i64
      %20 = arith.addi %in_2, %c8_i64 : i64
      %21 = arith.select %19, %20, %in_2 : i64
      %22 = arith.index_cast %21 : i64 to index
      %23 = arith.cmpi slt, %in_3, %c0_i64 : i64
      %24 = arith.addi %in_3, %c4_i64 : i64
      %25 = arith.select %23, %24, %in_3 : i64
      %26 = arith.index_cast %25 : i64 to index
      %extracted = tensor.extract %11[%18, %22, %26] : tensor<1x8x4xf32>
      linalg.yield %extracted : f32
    } -> tensor<1x8x8xf32>
    return %14 : tensor<1x8x8xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x4x4xf32>, %ct0: tensor<1x8x8xf32>) -> (tensor<1x8x8xf32>, tensor<1x4x4xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<1x4x4xf32>, tensor<1x8x8xf32>) -> (tensor<1x8x8xf32>, tensor<1x4x4xf32>)
  return %r#0, %r#1 : tensor<1x8x8xf32>, tensor<1x4x4xf32>
}
