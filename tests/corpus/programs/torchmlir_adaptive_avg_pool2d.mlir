// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/pooling.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `AdaptiveAvgPool2dNonUnitOutputSizeStaticModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/pooling.py
// What: `nn.AdaptiveAvgPool2d` 5x5 -> 3x3 (overlapping windows): window start/end index tensors computed by i64 generics (muli, divsi, minsi), a 6-d generic gathering x with tensor.extract at computed indices and a select masking out-of-window positions, sum reductions and a division by the window sizes (sitofp).
// Adaptations: output size (7, 7) -> (3, 3) and input 1x512x7x7 -> 1x2x5x5 (so that windows overlap); the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 1x2x5x5; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_adaptive_avg_pool2d inputs=signed

#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> ()>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
#map3 = affine_map<(d0, d1) -> (d1)>
#map4 = affine_map<(d0, d1) -> (d0, d1)>
#map5 = affine_map<(d0, d1) -> ()>
#map6 = affine_map<(d0, d1, d2, d3, d4, d5) -> (0, 0, 0, 0, 0, 0)>
#map7 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, 0, 0, 0, 0)>
#map8 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d2, d3, 0, 0)>
#map9 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
#map10 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
#map11 = affine_map<(d0, d1, d2, d3, d4, d5) -> ()>
#map12 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map13 = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
  func.func @main(%arg0: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
    %c2_i64 = arith.constant 2 : i64
    %c5_i64 = arith.constant 5 : i64
    %c0_i64 = arith.constant 0 : i64
    %c3_i64 = arith.constant 3 : i64
    %c1_i64 = arith.constant 1 : i64
    %cst = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = arith.constant dense<4> : tensor<i64>
    %cst_1 = arith.constant dense<3> : tensor<i64>
    %0 = tensor.empty() : tensor<3xi64>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%0 : tensor<3xi64>) {
    ^bb0(%out: i64):
      %34 = linalg.index 0 : index
      %35 = arith.index_cast %34 : index to i64
      linalg.yield %35 : i64
    } -> tensor<3xi64>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%1 : tensor<3xi64>) outs(%0 : tensor<3xi64>) {
    ^bb0(%in: i64, %out: i64):
      %34 = arith.muli %in, %c5_i64 : i64
      linalg.yield %34 : i64
    } -> tensor<3xi64>
    %3 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel"]} ins(%2, %cst_1 : tensor<3xi64>, tensor<i64>) outs(%0 : tensor<3xi64>) {
    ^bb0(%in: i64, %in_29: i64, %out: i64):
      %34 = arith.divsi %in, %in_29 : i64
      linalg.yield %34 : i64
    } -> tensor<3xi64>
    %expanded = tensor.expand_shape %3 [[0, 1]] output_shape [3, 1] : tensor<3xi64> into tensor<3x1xi64>
    %4 = tensor.empty() : tensor<3x3xi64>
    %5 = linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel"]} ins(%expanded, %1 : tensor<3x1xi64>, tensor<3xi64>) outs(%4 : tensor<3x3xi64>) {
    ^bb0(%in: i64, %in_29: i64, %out: i64):
      %34 = arith.addi %in, %in_29 : i64
      linalg.yield %34 : i64
    } -> tensor<3x3xi64>
    %6 = linalg.generic {indexing_maps = [#map4, #map5, #map4], iterator_types = ["parallel", "parallel"]} ins(%5, %cst_0 : tensor<3x3xi64>, tensor<i64>) outs(%4 : tensor<3x3xi64>) {
    ^bb0(%in: i64, %in_29: i64, %out: i64):
      %34 = arith.minsi %in, %in_29 : i64
      linalg.yield %34 : i64
    } -> tensor<3x3xi64>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%1 : tensor<3xi64>) outs(%0 : tensor<3xi64>) {
    ^bb0(%in: i64, %out: i64):
      %34 = arith.addi %in, %c1_i64 : i64
      linalg.yield %34 : i64
    } -> tensor<3xi64>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%7 : tensor<3xi64>) outs(%0 : tensor<3xi64>) {
    ^bb0(%in: i64, %out: i64):
      %34 = arith.muli %in, %c5_i64 : i64
      linalg.yield %34 : i64
    } -> tensor<3xi64>
    %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%8 : tensor<3xi64>) outs(%0 : tensor<3xi64>) {
    ^bb0(%in: i64, %out: i64):
      %34 = arith.addi %in, %c3_i64 : i64
      linalg.yield %34 : i64
    } -> tensor<3xi64>
    %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%9 : tensor<3xi64>) outs(%0 : tensor<3xi64>) {
    ^bb0(%in: i64, %out: i64):
      %34 = arith.subi %in, %c1_i64 : i64
      linalg.yield %34 : i64
    } -> tensor<3xi64>
    %11 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel"]} ins(%10, %cst_1 : tensor<3xi64>, tensor<i64>) outs(%0 : tensor<3xi64>) {
    ^bb0(%in: i64, %in_29: i64, %out: i64):
      %34 = arith.divsi %in, %in_29 : i64
      linalg.yield %34 : i64
    } -> tensor<3xi64>
    %12 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%11, %3 : tensor<3xi64>, tensor<3xi64>) outs(%0 : tensor<3xi64>) {
    ^bb0(%in: i64, %in_29: i64, %out: i64):
      %34 = arith.subi %in, %in_29 : i64
      linalg.yield %34 : i64
    } -> tensor<3xi64>
    %expanded_2 = tensor.expand_shape %6 [[0], [1, 2, 3]] output_shape [3, 3, 1, 1] : tensor<3x3xi64> into tensor<3x3x1x1xi64>
    %13 = tensor.empty() : tensor<2xi64>
    %14 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%13 : tensor<2xi64>) {
    ^bb0(%out: i64):
      %34 = linalg.index 0 : index
      %35 = arith.index_cast %34 : index to i64
      linalg.yield %35 : i64
    } -> tensor<2xi64>
    %expanded_3 = tensor.expand_shape %14 [[0, 1, 2, 3, 4]] output_shape [2, 1, 1, 1, 1] : tensor<2xi64> into tensor<2x1x1x1x1xi64>
    %15 = tensor.empty() : tensor<1xi64>
    %16 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%15 : tensor<1xi64>) {
    ^bb0(%out: i64):
      linalg.yield %c0_i64 : i64
    } -> tensor<1xi64>
    %expanded_4 = tensor.expand_shape %16 [[0, 1, 2, 3, 4, 5]] output_shape [1, 1, 1, 1, 1, 1] : tensor<1xi64> into tensor<1x1x1x1x1x1xi64>
    %17 = tensor.empty() : tensor<1x2x3x3x3x3xf32>
    %18 = linalg.generic {indexing_maps = [#map6, #map7, #map8, #map9, #map10], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%expanded_4, %expanded_3, %expanded_2, %6 : tensor<1x1x1x1x1x1xi64>, tensor<2x1x1x1x1xi64>, tensor<3x3x1x1xi64>, tensor<3x3xi64>) outs(%17 : tensor<1x2x3x3x3x3xf32>) {
    ^bb0(%in: i64, %in_29: i64, %in_30: i64, %in_31: i64, %out: f32):
      %34 = arith.cmpi slt, %in, %c0_i64 : i64
      %35 = arith.addi %in, %c1_i64 : i64
      %36 = arith.select %34, %35, %in : i64
      %37 = arith.index_cast %36 : i64 to index
      %38 = arith.cmpi slt, %in_29, %c0_i64 : i64
      %39 = arith.addi %in_29, %c2_i64 : i64
      %40 = arith.select %38, %39, %in_29 : i64
      %41 = arith.index_cast %40 : i64 to index
      %42 = arith.cmpi slt, %in_30, %c0_i64 : i64
      %43 = arith.addi %in_30, %c5_i64 : i64
      %44 = arith.select %42, %43, %in_30 : i64
      %45 = arith.index_cast %44 : i64 to index
      %46 = arith.cmpi slt, %in_31, %c0_i64 : i64
      %47 = arith.addi %in_31, %c5_i64 : i64
      %48 = arith.select %46, %47, %in_31 : i64
      %49 = arith.index_cast %48 : i64 to index
      %extracted = tensor.extract %arg0[%37, %41, %45, %49] : tensor<1x2x5x5xf32>
      linalg.yield %extracted : f32
    } -> tensor<1x2x3x3x3x3xf32>
    %expanded_5 = tensor.expand_shape %12 [[0, 1]] output_shape [3, 1] : tensor<3xi64> into tensor<3x1xi64>
    %19 = tensor.empty() : tensor<3x3xi1>
    %20 = linalg.generic {indexing_maps = [#map3, #map2, #map4], iterator_types = ["parallel", "parallel"]} ins(%1, %expanded_5 : tensor<3xi64>, tensor<3x1xi64>) outs(%19 : tensor<3x3xi1>) {
    ^bb0(%in: i64, %in_29: i64, %out: i1):
      %34 = arith.cmpi sge, %in, %in_29 : i64
      linalg.yield %34 : i1
    } -> tensor<3x3xi1>
    %expanded_6 = tensor.expand_shape %20 [[0], [1, 2, 3]] output_shape [3, 3, 1, 1] : tensor<3x3xi1> into tensor<3x3x1x1xi1>
    %21 = linalg.generic {indexing_maps = [#map8, #map11, #map10, #map10], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%expanded_6, %cst, %18 : tensor<3x3x1x1xi1>, tensor<f32>, tensor<1x2x3x3x3x3xf32>) outs(%17 : tensor<1x2x3x3x3x3xf32>) {
    ^bb0(%in: i1, %in_29: f32, %in_30: f32, %out: f32):
      %34 = arith.select %in, %in_29, %in_30 : f32
      linalg.yield %34 : f32
    } -> tensor<1x2x3x3x3x3xf32>
    %22 = linalg.generic {indexing_maps = [#map9, #map11, #map10, #map10], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%20, %cst, %21 : tensor<3x3xi1>, tensor<f32>, tensor<1x2x3x3x3x3xf32>) outs(%17 : tensor<1x2x3x3x3x3xf32>) {
    ^bb0(%in: i1, %in_29: f32, %in_30: f32, %out: f32):
      %34 = arith.select %in, %in_29, %in_30 : f32
      linalg.yield %34 : f32
    } -> tensor<1x2x3x3x3x3xf32>
    %extracted_slice = tensor.extract_slice %22[0, 0, 0, 0, 0, 0] [1, 2, 3, 1, 3, 3] [1, 1, 1, 1, 1, 1] : tensor<1x2x3x3x3x3xf32> to tensor<1x2x3x1x3x3xf32>
    %collapsed = tensor.collapse_shape %extracted_slice [[0], [1], [2, 3], [4], [5]] : tensor<1x2x3x1x3x3xf32> into tensor<1x2x3x3x3xf32>
    %extracted_slice_7 = tensor.extract_slice %collapsed[0, 0, 0, 0, 0] [1, 2, 3, 3, 1] [1, 1, 1, 1, 1] : tensor<1x2x3x3x3xf32> to tensor<1x2x3x3x1xf32>
    %collapsed_8 = tensor.collapse_shape %extracted_slice_7 [[0], [1], [2], [3, 4]] : tensor<1x2x3x3x1xf32> into tensor<1x2x3x3xf32>
    %extracted_slice_9 = tensor.extract_slice %collapsed[0, 0, 0, 0, 1] [1, 2, 3, 3, 1] [1, 1, 1, 1, 1] : tensor<1x2x3x3x3xf32> to tensor<1x2x3x3x1xf32>
    %collapsed_10 = tensor.collapse_shape %extracted_slice_9 [[0], [1], [2], [3, 4]] : tensor<1x2x3x3x1xf32> into tensor<1x2x3x3xf32>
    %23 = tensor.empty() : tensor<1x2x3x3xf32>
    %24 = linalg.generic {indexing_maps = [#map12, #map12, #map12], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed_8, %collapsed_10 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) outs(%23 : tensor<1x2x3x3xf32>) {
    ^bb0(%in: f32, %in_29: f32, %out: f32):
      %34 = arith.addf %in, %in_29 : f32
      linalg.yield %34 : f32
    } -> tensor<1x2x3x3xf32>
    %extracted_slice_11 = tensor.extract_slice %collapsed[0, 0, 0, 0, 2] [1, 2, 3, 3, 1] [1, 1, 1, 1, 1] : tensor<1x2x3x3x3xf32> to tensor<1x2x3x3x1xf32>
    %collapsed_12 = tensor.collapse_shape %extracted_slice_11 [[0], [1], [2], [3, 4]] : tensor<1x2x3x3x1xf32> into tensor<1x2x3x3xf32>
    %25 = linalg.generic {indexing_maps = [#map12, #map12, #map12], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%24, %collapsed_12 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) outs(%23 : tensor<1x2x3x3xf32>) {
    ^bb0(%in: f32, %in_29: f32, %out: f32):
      %34 = arith.addf %in, %in_29 : f32
      linalg.yield %34 : f32
    } -> tensor<1x2x3x3xf32>
    %extracted_slice_13 = tensor.extract_slice %22[0, 0, 0, 1, 0, 0] [1, 2, 3, 1, 3, 3] [1, 1, 1, 1, 1, 1] : tensor<1x2x3x3x3x3xf32> to tensor<1x2x3x1x3x3xf32>
    %collapsed_14 = tensor.collapse_shape %extracted_slice_13 [[0], [1], [2, 3], [4], [5]] : tensor<1x2x3x1x3x3xf32> into tensor<1x2x3x3x3xf32>
    %extracted_slice_15 = tensor.extract_slice %collapsed_14[0, 0, 0, 0, 0] [1, 2, 3, 3, 1] [1, 1, 1, 1, 1] : tensor<1x2x3x3x3xf32> to tensor<1x2x3x3x1xf32>
    %collapsed_16 = tensor.collapse_shape %extracted_slice_15 [[0], [1], [2], [3, 4]] : tensor<1x2x3x3x1xf32> into tensor<1x2x3x3xf32>
    %26 = linalg.generic {indexing_maps = [#map12, #map12, #map12], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%25, %collapsed_16 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) outs(%23 : tensor<1x2x3x3xf32>) {
    ^bb0(%in: f32, %in_29: f32, %out: f32):
      %34 = arith.addf %in, %in_29 : f32
      linalg.yield %34 : f32
    } -> tensor<1x2x3x3xf32>
    %extracted_slice_17 = tensor.extract_slice %collapsed_14[0, 0, 0, 0, 1] [1, 2, 3, 3, 1] [1, 1, 1, 1, 1] : tensor<1x2x3x3x3xf32> to tensor<1x2x3x3x1xf32>
    %collapsed_18 = tensor.collapse_shape %extracted_slice_17 [[0], [1], [2], [3, 4]] : tensor<1x2x3x3x1xf32> into tensor<1x2x3x3xf32>
    %27 = linalg.generic {indexing_maps = [#map12, #map12, #map12], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%26, %collapsed_18 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) outs(%23 : tensor<1x2x3x3xf32>) {
    ^bb0(%in: f32, %in_29: f32, %out: f32):
      %34 = arith.addf %in, %in_29 : f32
      linalg.yield %34 : f32
    } -> tensor<1x2x3x3xf32>
    %extracted_slice_19 = tensor.extract_slice %collapsed_14[0, 0, 0, 0, 2] [1, 2, 3, 3, 1] [1, 1, 1, 1, 1] : tensor<1x2x3x3x3xf32> to tensor<1x2x3x3x1xf32>
    %collapsed_20 = tensor.collapse_shape %extracted_slice_19 [[0], [1], [2], [3, 4]] : tensor<1x2x3x3x1xf32> into tensor<1x2x3x3xf32>
    %28 = linalg.generic {indexing_maps = [#map12, #map12, #map12], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%27, %collapsed_20 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) outs(%23 : tensor<1x2x3x3xf32>) {
    ^bb0(%in: f32, %in_29: f32, %out: f32):
      %34 = arith.addf %in, %in_29 : f32
      linalg.yield %34 : f32
    } -> tensor<1x2x3x3xf32>
    %extracted_slice_21 = tensor.extract_slice %22[0, 0, 0, 2, 0, 0] [1, 2, 3, 1, 3, 3] [1, 1, 1, 1, 1, 1] : tensor<1x2x3x3x3x3xf32> to tensor<1x2x3x1x3x3xf32>
    %collapsed_22 = tensor.collapse_shape %extracted_slice_21 [[0], [1], [2, 3], [4], [5]] : tensor<1x2x3x1x3x3xf32> into tensor<1x2x3x3x3xf32>
    %extracted_slice_23 = tensor.extract_slice %collapsed_22[0, 0, 0, 0, 0] [1, 2, 3, 3, 1] [1, 1, 1, 1, 1] : tensor<1x2x3x3x3xf32> to tensor<1x2x3x3x1xf32>
    %collapsed_24 = tensor.collapse_shape %extracted_slice_23 [[0], [1], [2], [3, 4]] : tensor<1x2x3x3x1xf32> into tensor<1x2x3x3xf32>
    %29 = linalg.generic {indexing_maps = [#map12, #map12, #map12], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%28, %collapsed_24 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) outs(%23 : tensor<1x2x3x3xf32>) {
    ^bb0(%in: f32, %in_29: f32, %out: f32):
      %34 = arith.addf %in, %in_29 : f32
      linalg.yield %34 : f32
    } -> tensor<1x2x3x3xf32>
    %extracted_slice_25 = tensor.extract_slice %collapsed_22[0, 0, 0, 0, 1] [1, 2, 3, 3, 1] [1, 1, 1, 1, 1] : tensor<1x2x3x3x3xf32> to tensor<1x2x3x3x1xf32>
    %collapsed_26 = tensor.collapse_shape %extracted_slice_25 [[0], [1], [2], [3, 4]] : tensor<1x2x3x3x1xf32> into tensor<1x2x3x3xf32>
    %30 = linalg.generic {indexing_maps = [#map12, #map12, #map12], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%29, %collapsed_26 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) outs(%23 : tensor<1x2x3x3xf32>) {
    ^bb0(%in: f32, %in_29: f32, %out: f32):
      %34 = arith.addf %in, %in_29 : f32
      linalg.yield %34 : f32
    } -> tensor<1x2x3x3xf32>
    %extracted_slice_27 = tensor.extract_slice %collapsed_22[0, 0, 0, 0, 2] [1, 2, 3, 3, 1] [1, 1, 1, 1, 1] : tensor<1x2x3x3x3xf32> to tensor<1x2x3x3x1xf32>
    %collapsed_28 = tensor.collapse_shape %extracted_slice_27 [[0], [1], [2], [3, 4]] : tensor<1x2x3x3x1xf32> into tensor<1x2x3x3xf32>
    %31 = linalg.generic {indexing_maps = [#map12, #map12, #map12], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%30, %collapsed_28 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>) outs(%23 : tensor<1x2x3x3xf32>) {
    ^bb0(%in: f32, %in_29: f32, %out: f32):
      %34 = arith.addf %in, %in_29 : f32
      linalg.yield %34 : f32
    } -> tensor<1x2x3x3xf32>
    %32 = linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel"]} ins(%expanded_5, %12 : tensor<3x1xi64>, tensor<3xi64>) outs(%4 : tensor<3x3xi64>) {
    ^bb0(%in: i64, %in_29: i64, %out: i64):
      %34 = arith.muli %in, %in_29 : i64
      linalg.yield %34 : i64
    } -> tensor<3x3xi64>
    %33 = linalg.generic {indexing_maps = [#map12, #map13, #map12], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%31, %32 : tensor<1x2x3x3xf32>, tensor<3x3xi64>) outs(%23 : tensor<1x2x3x3xf32>) {
    ^bb0(%in: f32, %in_29: i64, %out: f32):
      %34 = arith.sitofp %in_29 : i64 to f32
      %35 = arith.divf %in, %34 : f32
      linalg.yield %35 : f32
    } -> tensor<1x2x3x3xf32>
    return %33 : tensor<1x2x3x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x2x5x5xf32>, %ct0: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x5x5xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<1x2x5x5xf32>, tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x5x5xf32>)
  return %r#0, %r#1 : tensor<1x2x3x3xf32>, tensor<1x2x5x5xf32>
}
