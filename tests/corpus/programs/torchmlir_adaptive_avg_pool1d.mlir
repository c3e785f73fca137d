// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/pooling.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `AdaptiveAvgPool1dStaticLargerOutput`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/pooling.py
// What: `nn.AdaptiveAvgPool1d` to an output longer than the input (7 -> 9): window start/end index tensors from i64 generics (linalg.index, muli, divsi, addi, subi, minsi), a generic gathering x with tensor.extract under a select mask, a sum reduction and a divide by the window sizes (sitofp), with many expand/collapse_shape and extract_slice ops.
// Adaptations: output size 13 -> 9 (still longer than the input) and input 5x512x7 -> 1x2x7 (the module instantiated with output_size 9); the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 1x2x7; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_adaptive_avg_pool1d inputs=signed

#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> ()>
#map2 = affine_map<(d0, d1) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d1)>
#map4 = affine_map<(d0, d1) -> (d0, 0)>
#map5 = affine_map<(d0, d1) -> ()>
#map6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (0, 0, 0, 0, 0, 0)>
#map7 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, 0, 0, 0, 0)>
#map8 = affine_map<(d0, d1, d2, d3, d4, d5) -> (0, 0, 0, 0)>
#map9 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
#map10 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#map11 = affine_map<(d0, d1, d2, d3, d4, d5) -> ()>
#map12 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map13 = affine_map<(d0, d1, d2, d3) -> (d3)>
  func.func @main(%arg0: tensor<1x2x7xf32>) -> tensor<1x2x9xf32> {
    %c2_i64 = arith.constant 2 : i64
    %c7_i64 = arith.constant 7 : i64
    %c9_i64 = arith.constant 9 : i64
    %c1_i64 = arith.constant 1 : i64
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = arith.constant dense<6> : tensor<i64>
    %cst_1 = arith.constant dense<9> : tensor<i64>
    %cst_2 = arith.constant dense<1> : tensor<i64>
    %expanded = tensor.expand_shape %arg0 [[0], [1], [2, 3]] output_shape [1, 2, 1, 7] : tensor<1x2x7xf32> into tensor<1x2x1x7xf32>
    %0 = tensor.empty() : tensor<1xi64>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%0 : tensor<1xi64>) {
    ^bb0(%out: i64):
      linalg.yield %c0_i64 : i64
    } -> tensor<1xi64>
    %2 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel"]} ins(%1, %cst_2 : tensor<1xi64>, tensor<i64>) outs(%0 : tensor<1xi64>) {
    ^bb0(%in: i64, %in_13: i64, %out: i64):
      %28 = arith.divsi %in, %in_13 : i64
      linalg.yield %28 : i64
    } -> tensor<1xi64>
    %expanded_3 = tensor.expand_shape %2 [[0, 1]] output_shape [1, 1] : tensor<1xi64> into tensor<1x1xi64>
    %3 = tensor.empty() : tensor<1x1xi64>
    %4 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel"]} ins(%expanded_3, %1 : tensor<1x1xi64>, tensor<1xi64>) outs(%3 : tensor<1x1xi64>) {
    ^bb0(%in: i64, %in_13: i64, %out: i64):
      %28 = arith.addi %in, %in_13 : i64
      linalg.yield %28 : i64
    } -> tensor<1x1xi64>
    %5 = tensor.empty() : tensor<9xi64>
    %6 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%5 : tensor<9xi64>) {
    ^bb0(%out: i64):
      %28 = linalg.index 0 : index
      %29 = arith.index_cast %28 : index to i64
      linalg.yield %29 : i64
    } -> tensor<9xi64>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%6 : tensor<9xi64>) outs(%5 : tensor<9xi64>) {
    ^bb0(%in: i64, %out: i64):
      %28 = arith.muli %in, %c7_i64 : i64
      linalg.yield %28 : i64
    } -> tensor<9xi64>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel"]} ins(%7, %cst_1 : tensor<9xi64>, tensor<i64>) outs(%5 : tensor<9xi64>) {
    ^bb0(%in: i64, %in_13: i64, %out: i64):
      %28 = arith.divsi %in, %in_13 : i64
      linalg.yield %28 : i64
    } -> tensor<9xi64>
    %9 = tensor.empty() : tensor<2xi64>
    %10 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%9 : tensor<2xi64>) {
    ^bb0(%out: i64):
      %28 = linalg.index 0 : index
      %29 = arith.index_cast %28 : index to i64
      linalg.yield %29 : i64
    } -> tensor<2xi64>
    %expanded_4 = tensor.expand_shape %8 [[0, 1]] output_shape [9, 1] : tensor<9xi64> into tensor<9x1xi64>
    %11 = tensor.empty() : tensor<9x2xi64>
    %12 = linalg.generic {indexing_maps = [#map4, #map3, #map2], iterator_types = ["parallel", "parallel"]} ins(%expanded_4, %10 : tensor<9x1xi64>, tensor<2xi64>) outs(%11 : tensor<9x2xi64>) {
    ^bb0(%in: i64, %in_13: i64, %out: i64):
      %28 = arith.addi %in, %in_13 : i64
      linalg.yield %28 : i64
    } -> tensor<9x2xi64>
    %13 = linalg.generic {indexing_maps = [#map2, #map5, #map2], iterator_types = ["parallel", "parallel"]} ins(%12, %cst_0 : tensor<9x2xi64>, tensor<i64>) outs(%11 : tensor<9x2xi64>) {
    ^bb0(%in: i64, %in_13: i64, %out: i64):
      %28 = arith.minsi %in, %in_13 : i64
      linalg.yield %28 : i64
    } -> tensor<9x2xi64>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%6 : tensor<9xi64>) outs(%5 : tensor<9xi64>) {
    ^bb0(%in: i64, %out: i64):
      %28 = arith.addi %in, %c1_i64 : i64
      linalg.yield %28 : i64
    } -> tensor<9xi64>
    %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%14 : tensor<9xi64>) outs(%5 : tensor<9xi64>) {
    ^bb0(%in: i64, %out: i64):
      %28 = arith.muli %in, %c7_i64 : i64
      linalg.yield %28 : i64
    } -> tensor<9xi64>
    %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%15 : tensor<9xi64>) outs(%5 : tensor<9xi64>) {
    ^bb0(%in: i64, %out: i64):
      %28 = arith.addi %in, %c9_i64 : i64
      linalg.yield %28 : i64
    } -> tensor<9xi64>
    %17 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%16 : tensor<9xi64>) outs(%5 : tensor<9xi64>) {
    ^bb0(%in: i64, %out: i64):
      %28 = arith.subi %in, %c1_i64 : i64
      linalg.yield %28 : i64
    } -> tensor<9xi64>
    %18 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel"]} ins(%17, %cst_1 : tensor<9xi64>, tensor<i64>) outs(%5 : tensor<9xi64>) {
    ^bb0(%in: i64, %in_13: i64, %out: i64):
      %28 = arith.divsi %in, %in_13 : i64
      linalg.yield %28 : i64
    } -> tensor<9xi64>
    %19 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%18, %8 : tensor<9xi64>, tensor<9xi64>) outs(%5 : tensor<9xi64>) {
    ^bb0(%in: i64, %in_13: i64, %out: i64):
      %28 = arith.subi %in, %in_13 : i64
      linalg.yield %28 : i64
    } -> tensor<9xi64>
    %expanded_5 = tensor.expand_shape %4 [[0], [1, 2, 3]] output_shape [1, 1, 1, 1] : tensor<1x1xi64> into tensor<1x1x1x1xi64>
    %expanded_6 = tensor.expand_shape %10 [[0, 1, 2, 3, 4]] output_shape [2, 1, 1, 1, 1] : tensor<2xi64> into tensor<2x1x1x1x1xi64>
    %expanded_7 = tensor.expand_shape %1 [[0, 1, 2, 3, 4, 5]] output_shape [1, 1, 1, 1, 1, 1] : tensor<1xi64> into tensor<1x1x1x1x1x1xi64>
    %20 = tensor.empty() : tensor<1x2x1x1x9x2xf32>
    %21 = linalg.generic {indexing_maps = [#map6, #map7, #map8, #map9, #map10], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%expanded_7, %expanded_6, %expanded_5, %13 : tensor<1x1x1x1x1x1xi64>, tensor<2x1x1x1x1xi64>, tensor<1x1x1x1xi64>, tensor<9x2xi64>) outs(%20 : tensor<1x2x1x1x9x2xf32>) {
    ^bb0(%in: i64, %in_13: i64, %in_14: i64, %in_15: i64, %out: f32):
      %28 = arith.cmpi slt, %in, %c0_i64 : i64
      %29 = arith.addi %in, %c1_i64 : i64
      %30 = arith.select %28, %29, %in : i64
      %31 = arith.index_cast %30 : i64 to index
      %32 = arith.cmpi slt, %in_13, %c0_i64 : i64
      %33 = arith.addi %in_13, %c2_i64 : i64
      %34 = arith.select %32, %33, %in_13 : i64
      %35 = arith.index_cast %34 : i64 to index
      %36 = arith.cmpi slt, %in_14, %c0_i64 : i64
      %37 = arith.addi %in_14, %c1_i64 : i64
      %38 = arith.select %36, %37, %in_14 : i64
      %39 = arith.index_cast %38 : i64 to index
      %40 = arith.cmpi slt, %in_15, %c0_i64 : i64
      %41 = arith.addi %in_15, %c7_i64 : i64
      %42 = arith.select %40, %41, %in_15 : i64
      %43 = arith.index_cast %42 : i64 to index
      %extracted = tensor.extract %expanded[%31, %35, %39, %43] : tensor<1x2x1x7xf32>
      linalg.yield %extracted : f32
    } -> tensor<1x2x1x1x9x2xf32>
    %expanded_8 = tensor.expand_shape %19 [[0, 1]] output_shape [9, 1] : tensor<9xi64> into tensor<9x1xi64>
    %22 = tensor.empty() : tensor<9x2xi1>
    %23 = linalg.generic {indexing_maps = [#map3, #map4, #map2], iterator_types = ["parallel", "parallel"]} ins(%10, %expanded_8 : tensor<2xi64>, tensor<9x1xi64>) outs(%22 : tensor<9x2xi1>) {
    ^bb0(%in: i64, %in_13: i64, %out: i1):
      %28 = arith.cmpi sge, %in, %in_13 : i64
      linalg.yield %28 : i1
    } -> tensor<9x2xi1>
    %24 = linalg.generic {indexing_maps = [#map9, #map11, #map10, #map10], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%23, %cst, %21 : tensor<9x2xi1>, tensor<f32>, tensor<1x2x1x1x9x2xf32>) outs(%20 : tensor<1x2x1x1x9x2xf32>) {
    ^bb0(%in: i1, %in_13: f32, %in_14: f32, %out: f32):
      %28 = arith.select %in, %in_13, %in_14 : f32
      linalg.yield %28 : f32
    } -> tensor<1x2x1x1x9x2xf32>
    %collapsed = tensor.collapse_shape %24 [[0], [1], [2, 3], [4], [5]] : tensor<1x2x1x1x9x2xf32> into tensor<1x2x1x9x2xf32>
    %extracted_slice = tensor.extract_slice %collapsed[0, 0, 0, 0, 0] [1, 2, 1, 9, 1] [1, 1, 1, 1, 1] : tensor<1x2x1x9x2xf32> to tensor<1x2x1x9x1xf32>
    %collapsed_9 = tensor.collapse_shape %extracted_slice [[0], [1], [2], [3, 4]] : tensor<1x2x1x9x1xf32> into tensor<1x2x1x9xf32>
    %extracted_slice_10 = tensor.extract_slice %collapsed[0, 0, 0, 0, 1] [1, 2, 1, 9, 1] [1, 1, 1, 1, 1] : tensor<1x2x1x9x2xf32> to tensor<1x2x1x9x1xf32>
    %collapsed_11 = tensor.collapse_shape %extracted_slice_10 [[0], [1], [2], [3, 4]] : tensor<1x2x1x9x1xf32> into tensor<1x2x1x9xf32>
    %25 = tensor.empty() : tensor<1x2x1x9xf32>
    %26 = linalg.generic {indexing_maps = [#map12, #map12, #map12], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed_9, %collapsed_11 : tensor<1x2x1x9xf32>, tensor<1x2x1x9xf32>) outs(%25 : tensor<1x2x1x9xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %28 = arith.addf %in, %in_13 : f32
      linalg.yield %28 : f32
    } -> tensor<1x2x1x9xf32>
    %27 = linalg.generic {indexing_maps = [#map12, #map13, #map12], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%26, %19 : tensor<1x2x1x9xf32>, tensor<9xi64>) outs(%25 : tensor<1x2x1x9xf32>) {
    ^bb0(%in: f32, %in_13: i64, %out: f32):
      %28 = arith.sitofp %in_13 : i64 to f32
      %29 = arith.divf %in, %28 : f32
      linalg.yield %29 : f32
    } -> tensor<1x2x1x9xf32>
    %collapsed_12 = tensor.collapse_shape %27 [[0], [1, 2], [3]] : tensor<1x2x1x9xf32> into tensor<1x2x9xf32>
    return %collapsed_12 : tensor<1x2x9xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x2x7xf32>, %ct0: tensor<1x2x9xf32>) -> (tensor<1x2x9xf32>, tensor<1x2x7xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<1x2x7xf32>, tensor<1x2x9xf32>) -> (tensor<1x2x9xf32>, tensor<1x2x7xf32>)
  return %r#0, %r#1 : tensor<1x2x9xf32>, tensor<1x2x7xf32>
}
