// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/matmul.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `AtenLinalgCrossBroadcast`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/matmul.py
// What: `aten.linalg_cross` of 1x2x3 and 3x2x3 along the last dim: broadcast generics with `(0, d1, d2)` maps, index tensors built from linalg.index with remsi arithmetic for the cyclic (i+1, i+2) components, gathers with tensor.extract, multiply and subtract.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 1x2x3 and 3x2x3 (upstream 1x4x3 and 5x4x3); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=tm_linalg_cross inputs=signed

#map = affine_map<(d0, d1, d2) -> (d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0, d1, d2) -> (d2)>
  func.func @main(%arg0: tensor<1x2x3xf32>, %arg1: tensor<3x2x3xf32>) -> tensor<3x2x3xf32> {
    %c1_i64 = arith.constant 1 : i64
    %c0_i64 = arith.constant 0 : i64
    %c3_i64 = arith.constant 3 : i64
    %c2_i64 = arith.constant 2 : i64
    %0 = tensor.empty() : tensor<3x2x3xf32>
    %collapsed = tensor.collapse_shape %arg0 [[0, 1], [2]] : tensor<1x2x3xf32> into tensor<2x3xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%collapsed : tensor<2x3xf32>) outs(%0 : tensor<3x2x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<3x2x3xf32>
    %2 = tensor.empty() : tensor<3xi64>
    %3 = linalg.generic {indexing_maps = [#map2], iterator_types = ["parallel"]} outs(%2 : tensor<3xi64>) {
    ^bb0(%out: i64):
      %15 = linalg.index 0 : index
      %16 = arith.index_cast %15 : index to i64
      linalg.yield %16 : i64
    } -> tensor<3xi64>
    %4 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%3 : tensor<3xi64>) outs(%2 : tensor<3xi64>) {
    ^bb0(%in: i64, %out: i64):
      %15 = arith.addi %in, %c1_i64 : i64
      linalg.yield %15 : i64
    } -> tensor<3xi64>
    %5 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%4 : tensor<3xi64>) outs(%2 : tensor<3xi64>) {
    ^bb0(%in: i64, %out: i64):
      %15 = arith.remsi %in, %c3_i64 : i64
      %16 = arith.cmpi ne, %15, %c0_i64 : i64
      %17 = arith.cmpi slt, %15, %c0_i64 : i64
      %18 = arith.andi %16, %17 : i1
      %19 = arith.addi %15, %c3_i64 : i64
      %20 = arith.select %18, %19, %15 : i64
      linalg.yield %20 : i64
    } -> tensor<3xi64>
    %6 = linalg.generic {indexing_maps = [#map3, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5 : tensor<3xi64>) outs(%0 : tensor<3x2x3xf32>) {
    ^bb0(%in: i64, %out: f32):
      %15 = arith.index_cast %in : i64 to index
      %16 = linalg.index 0 : index
      %17 = linalg.index 1 : index
      %extracted = tensor.extract %1[%16, %17, %15] : tensor<3x2x3xf32>
      linalg.yield %extracted : f32
    } -> tensor<3x2x3xf32>
    %7 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%3 : tensor<3xi64>) outs(%2 : tensor<3xi64>) {
    ^bb0(%in: i64, %out: i64):
      %15 = arith.addi %in, %c2_i64 : i64
      linalg.yield %15 : i64
    } -> tensor<3xi64>
    %8 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%7 : tensor<3xi64>) outs(%2 : tensor<3xi64>) {
    ^bb0(%in: i64, %out: i64):
      %15 = arith.remsi %in, %c3_i64 : i64
      %16 = arith.cmpi ne, %15, %c0_i64 : i64
      %17 = arith.cmpi slt, %15, %c0_i64 : i64
      %18 = arith.andi %16, %17 : i1
      %19 = arith.addi %15, %c3_i64 : i64
      %20 = arith.select %18, %19, %15 : i64
      linalg.yield %20 : i64
    } -> tensor<3xi64>
    %9 = linalg.generic {indexing_maps = [#map3, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8 : tensor<3xi64>) outs(%0 : tensor<3x2x3xf32>) {
    ^bb0(%in: i64, %out: f32):
      %15 = arith.index_cast %in : i64 to index
      %16 = linalg.index 0 : index
      %17 = linalg.index 1 : index
      %extracted = tensor.extract %arg1[%16, %17, %15] : tensor<3x2x3xf32>
      linalg.yield %extracted : f32
    } -> tensor<3x2x3xf32>
    %10 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6, %9 : tensor<3x2x3xf32>, tensor<3x2x3xf32>) outs(%0 : tensor<3x2x3xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %15 = arith.mulf %in, %in_0 : f32
      linalg.yield %15 : f32
    } -> tensor<3x2x3xf32>
    %11 = linalg.generic {indexing_maps = [#map3, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8 : tensor<3xi64>) outs(%0 : tensor<3x2x3xf32>) {
    ^bb0(%in: i64, %out: f32):
      %15 = arith.index_cast %in : i64 to index
      %16 = linalg.index 0 : index
      %17 = linalg.index 1 : index
      %extracted = tensor.extract %1[%16, %17, %15] : tensor<3x2x3xf32>
      linalg.yield %extracted : f32
    } -> tensor<3x2x3xf32>
    %12 = linalg.generic {indexing_maps = [#map3, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5 : tensor<3xi64>) outs(%0 : tensor<3x2x3xf32>) {
    ^bb0(%in: i64, %out: f32):
      %15 = arith.index_cast %in : i64 to index
      %16 = linalg.index 0 : index
      %17 = linalg.index 1 : index
      %extracted = tensor.extract %arg1[%16, %17, %15] : tensor<3x2x3xf32>
      linalg.yield %extracted : f32
    } -> tensor<3x2x3xf32>
    %13 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%11, %12 : tensor<3x2x3xf32>, tensor<3x2x3xf32>) outs(%0 : tensor<3x2x3xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %15 = arith.mulf %in, %in_0 : f32
      linalg.yield %15 : f32
    } -> tensor<3x2x3xf32>
    %14 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%10, %13 : tensor<3x2x3xf32>, tensor<3x2x3xf32>) outs(%0 : tensor<3x2x3xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %15 = arith.subf %in, %in_0 : f32
      linalg.yield %15 : f32
    } -> tensor<3x2x3xf32>
    return %14 : tensor<3x2x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x2x3xf32>, %a1: tensor<3x2x3xf32>, %ct0: tensor<3x2x3xf32>) -> (tensor<3x2x3xf32>, tensor<1x2x3xf32>, tensor<3x2x3xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 0, 1>} : (tensor<1x2x3xf32>, tensor<3x2x3xf32>, tensor<3x2x3xf32>) -> (tensor<3x2x3xf32>, tensor<1x2x3xf32>, tensor<3x2x3xf32>)
  return %r#0, %r#1, %r#2 : tensor<3x2x3xf32>, tensor<1x2x3xf32>, tensor<3x2x3xf32>
}
