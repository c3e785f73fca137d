// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/gridsampler.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `GridSamplerBasic1`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/gridsampler.py
// What: `aten.grid_sampler` (bilinear, zero padding, align_corners): grid coordinates unnormalised, math.floor, arith.fptosi to indices, bounds masks with cmpf/select, four tensor.extract gathers at computed indices (extract_slice of the grid's two channels) and the bilinear weights.
// Adaptations: x 7x8x12x4 -> 1x2x3x4 and grid 7x11x13x2 -> 1x2x3x2; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 1x2x3x4, grid 1x2x3x2; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=tm_grid_sampler inputs=tm_grid_sampler

#map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d3, d4)>
#map1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> ()>
#map5 = affine_map<(d0, d1, d2, d3) -> (0, 0, 0, 0)>
#map6 = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>
#map7 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
  func.func @main(%arg0: tensor<1x2x3x4xf32>, %arg1: tensor<1x2x3x2xf32>) -> tensor<1x2x2x3xf32> {
    %c4_i64 = arith.constant 4 : i64
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c2_i64 = arith.constant 2 : i64
    %c3_i64 = arith.constant 3 : i64
    %cst = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = arith.constant 1.500000e+00 : f32
    %cst_1 = arith.constant 1.000000e+00 : f32
    %cst_2 = arith.constant 0.000000e+00 : f32
    %cst_3 = arith.constant 4.000000e+00 : f32
    %cst_4 = arith.constant 3.000000e+00 : f32
    %cst_5 = arith.constant dense<0> : tensor<i64>
    %0 = tensor.empty() : tensor<1x2x2x3x2xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%arg1 : tensor<1x2x3x2xf32>) outs(%0 : tensor<1x2x2x3x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<1x2x2x3x2xf32>
    %2 = tensor.empty() : tensor<1xi64>
    %3 = linalg.generic {indexing_maps = [#map2], iterator_types = ["parallel"]} outs(%2 : tensor<1xi64>) {
    ^bb0(%out: i64):
      linalg.yield %c0_i64 : i64
    } -> tensor<1xi64>
    %expanded = tensor.expand_shape %3 [[0, 1, 2, 3]] output_shape [1, 1, 1, 1] : tensor<1xi64> into tensor<1x1x1x1xi64>
    %4 = tensor.empty() : tensor<2xi64>
    %5 = linalg.generic {indexing_maps = [#map2], iterator_types = ["parallel"]} outs(%4 : tensor<2xi64>) {
    ^bb0(%out: i64):
      %69 = linalg.index 0 : index
      %70 = arith.index_cast %69 : index to i64
      linalg.yield %70 : i64
    } -> tensor<2xi64>
    %expanded_6 = tensor.expand_shape %5 [[0, 1, 2, 3]] output_shape [1, 2, 1, 1] : tensor<2xi64> into tensor<1x2x1x1xi64>
    %extracted_slice = tensor.extract_slice %1[0, 0, 0, 0, 0] [1, 2, 2, 3, 1] [1, 1, 1, 1, 1] : tensor<1x2x2x3x2xf32> to tensor<1x2x2x3x1xf32>
    %collapsed = tensor.collapse_shape %extracted_slice [[0], [1], [2], [3, 4]] : tensor<1x2x2x3x1xf32> into tensor<1x2x2x3xf32>
    %extracted_slice_7 = tensor.extract_slice %1[0, 0, 0, 0, 1] [1, 2, 2, 3, 1] [1, 1, 1, 1, 1] : tensor<1x2x2x3x2xf32> to tensor<1x2x2x3x1xf32>
    %collapsed_8 = tensor.collapse_shape %extracted_slice_7 [[0], [1], [2], [3, 4]] : tensor<1x2x2x3x1xf32> into tensor<1x2x2x3xf32>
    %6 = tensor.empty() : tensor<1x2x2x3xf32>
    %7 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed : tensor<1x2x2x3xf32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = arith.mulf %in, %cst_0 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %8 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7 : tensor<1x2x2x3xf32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = arith.addf %in, %cst_0 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %9 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed_8 : tensor<1x2x2x3xf32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = arith.addf %in, %cst_1 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %10 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8 : tensor<1x2x2x3xf32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = math.floor %in : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %11 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9 : tensor<1x2x2x3xf32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = math.floor %in : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %12 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%10 : tensor<1x2x2x3xf32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = arith.addf %in, %cst_1 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %13 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11 : tensor<1x2x2x3xf32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %69 = arith.addf %in, %cst_1 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %14 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%12, %8 : tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %69 = arith.subf %in, %in_9 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %15 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13, %9 : tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %69 = arith.subf %in, %in_9 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %16 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%14, %15 : tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %69 = arith.mulf %in, %in_9 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %17 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8, %10 : tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %69 = arith.subf %in, %in_9 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %18 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%17, %15 : tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %69 = arith.mulf %in, %in_9 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %19 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9, %11 : tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %69 = arith.subf %in, %in_9 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %20 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%14, %19 : tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %69 = arith.mulf %in, %in_9 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %21 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%17, %19 : tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %69 = arith.mulf %in, %in_9 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %22 = tensor.empty() : tensor<1x2x2x3xi1>
    %23 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%10 : tensor<1x2x2x3xf32>) outs(%22 : tensor<1x2x2x3xi1>) {
    ^bb0(%in: f32, %out: i1):
      %69 = arith.cmpf oge, %in, %cst_2 : f32
      linalg.yield %69 : i1
    } -> tensor<1x2x2x3xi1>
    %24 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%10 : tensor<1x2x2x3xf32>) outs(%22 : tensor<1x2x2x3xi1>) {
    ^bb0(%in: f32, %out: i1):
      %69 = arith.cmpf olt, %in, %cst_3 : f32
      linalg.yield %69 : i1
    } -> tensor<1x2x2x3xi1>
    %25 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11 : tensor<1x2x2x3xf32>) outs(%22 : tensor<1x2x2x3xi1>) {
    ^bb0(%in: f32, %out: i1):
      %69 = arith.cmpf oge, %in, %cst_2 : f32
      linalg.yield %69 : i1
    } -> tensor<1x2x2x3xi1>
    %26 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11 : tensor<1x2x2x3xf32>) outs(%22 : tensor<1x2x2x3xi1>) {
    ^bb0(%in: f32, %out: i1):
      %69 = arith.cmpf olt, %in, %cst_4 : f32
      linalg.yield %69 : i1
    } -> tensor<1x2x2x3xi1>
    %27 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%25, %26 : tensor<1x2x2x3xi1>, tensor<1x2x2x3xi1>) outs(%22 : tensor<1x2x2x3xi1>) {
    ^bb0(%in: i1, %in_9: i1, %out: i1):
      %69 = arith.andi %in, %in_9 : i1
      linalg.yield %69 : i1
    } -> tensor<1x2x2x3xi1>
    %28 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%24, %27 : tensor<1x2x2x3xi1>, tensor<1x2x2x3xi1>) outs(%22 : tensor<1x2x2x3xi1>) {
    ^bb0(%in: i1, %in_9: i1, %out: i1):
      %69 = arith.andi %in, %in_9 : i1
      linalg.yield %69 : i1
    } -> tensor<1x2x2x3xi1>
    %29 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%23, %28 : tensor<1x2x2x3xi1>, tensor<1x2x2x3xi1>) outs(%22 : tensor<1x2x2x3xi1>) {
    ^bb0(%in: i1, %in_9: i1, %out: i1):
      %69 = arith.andi %in, %in_9 : i1
      linalg.yield %69 : i1
    } -> tensor<1x2x2x3xi1>
    %30 = tensor.empty() : tensor<1x2x2x3xi64>
    %31 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%10 : tensor<1x2x2x3xf32>) outs(%30 : tensor<1x2x2x3xi64>) {
    ^bb0(%in: f32, %out: i64):
      %69 = arith.fptosi %in : f32 to i64
      linalg.yield %69 : i64
    } -> tensor<1x2x2x3xi64>
    %32 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11 : tensor<1x2x2x3xf32>) outs(%30 : tensor<1x2x2x3xi64>) {
    ^bb0(%in: f32, %out: i64):
      %69 = arith.fptosi %in : f32 to i64
      linalg.yield %69 : i64
    } -> tensor<1x2x2x3xi64>
    %33 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%29, %31, %cst_5 : tensor<1x2x2x3xi1>, tensor<1x2x2x3xi64>, tensor<i64>) outs(%30 : tensor<1x2x2x3xi64>) {
    ^bb0(%in: i1, %in_9: i64, %in_10: i64, %out: i64):
      %69 = arith.select %in, %in_9, %in_10 : i64
      linalg.yield %69 : i64
    } -> tensor<1x2x2x3xi64>
    %34 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%29, %32, %cst_5 : tensor<1x2x2x3xi1>, tensor<1x2x2x3xi64>, tensor<i64>) outs(%30 : tensor<1x2x2x3xi64>) {
    ^bb0(%in: i1, %in_9: i64, %in_10: i64, %out: i64):
      %69 = arith.select %in, %in_9, %in_10 : i64
      linalg.yield %69 : i64
    } -> tensor<1x2x2x3xi64>
    %35 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%29, %16, %cst : tensor<1x2x2x3xi1>, tensor<1x2x2x3xf32>, tensor<f32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: i1, %in_9: f32, %in_10: f32, %out: f32):
      %69 = arith.select %in, %in_9, %in_10 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %36 = linalg.generic {indexing_maps = [#map5, #map6, #map7, #map7, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded, %expanded_6, %34, %33 : tensor<1x1x1x1xi64>, tensor<1x2x1x1xi64>, tensor<1x2x2x3xi64>, tensor<1x2x2x3xi64>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: i64, %in_9: i64, %in_10: i64, %in_11: i64, %out: f32):
      %69 = arith.cmpi slt, %in, %c0_i64 : i64
      %70 = arith.addi %in, %c1_i64 : i64
      %71 = arith.select %69, %70, %in : i64
      %72 = arith.index_cast %71 : i64 to index
      %73 = arith.cmpi slt, %in_9, %c0_i64 : i64
      %74 = arith.addi %in_9, %c2_i64 : i64
      %75 = arith.select %73, %74, %in_9 : i64
      %76 = arith.index_cast %75 : i64 to index
      %77 = arith.cmpi slt, %in_10, %c0_i64 : i64
      %78 = arith.addi %in_10, %c3_i64 : i64
      %79 = arith.select %77, %78, %in_10 : i64
      %80 = arith.index_cast %79 : i64 to index
      %81 = arith.cmpi slt, %in_11, %c0_i64 : i64
      %82 = arith.addi %in_11, %c4_i64 : i64
      %83 = arith.select %81, %82, %in_11 : i64
      %84 = arith.index_cast %83 : i64 to index
      %extracted = tensor.extract %arg0[%72, %76, %80, %84] : tensor<1x2x3x4xf32>
      linalg.yield %extracted : f32
    } -> tensor<1x2x2x3xf32>
    %37 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%36, %35 : tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %69 = arith.mulf %in, %in_9 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %38 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%12 : tensor<1x2x2x3xf32>) outs(%22 : tensor<1x2x2x3xi1>) {
    ^bb0(%in: f32, %out: i1):
      %69 = arith.cmpf oge, %in, %cst_2 : f32
      linalg.yield %69 : i1
    } -> tensor<1x2x2x3xi1>
    %39 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%12 : tensor<1x2x2x3xf32>) outs(%22 : tensor<1x2x2x3xi1>) {
    ^bb0(%in: f32, %out: i1):
      %69 = arith.cmpf olt, %in, %cst_3 : f32
      linalg.yield %69 : i1
    } -> tensor<1x2x2x3xi1>
    %40 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%39, %27 : tensor<1x2x2x3xi1>, tensor<1x2x2x3xi1>) outs(%22 : tensor<1x2x2x3xi1>) {
    ^bb0(%in: i1, %in_9: i1, %out: i1):
      %69 = arith.andi %in, %in_9 : i1
      linalg.yield %69 : i1
    } -> tensor<1x2x2x3xi1>
    %41 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%38, %40 : tensor<1x2x2x3xi1>, tensor<1x2x2x3xi1>) outs(%22 : tensor<1x2x2x3xi1>) {
    ^bb0(%in: i1, %in_9: i1, %out: i1):
      %69 = arith.andi %in, %in_9 : i1
      linalg.yield %69 : i1
    } -> tensor<1x2x2x3xi1>
    %42 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%12 : tensor<1x2x2x3xf32>) outs(%30 : tensor<1x2x2x3xi64>) {
    ^bb0(%in: f32, %out: i64):
      %69 = arith.fptosi %in : f32 to i64
      linalg.yield %69 : i64
    } -> tensor<1x2x2x3xi64>
    %43 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%41, %42, %cst_5 : tensor<1x2x2x3xi1>, tensor<1x2x2x3xi64>, tensor<i64>) outs(%30 : tensor<1x2x2x3xi64>) {
    ^bb0(%in: i1, %in_9: i64, %in_10: i64, %out: i64):
      %69 = arith.select %in, %in_9, %in_10 : i64
      linalg.yield %69 : i64
    } -> tensor<1x2x2x3xi64>
    %44 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%41, %32, %cst_5 : tensor<1x2x2x3xi1>, tensor<1x2x2x3xi64>, tensor<i64>) outs(%30 : tensor<1x2x2x3xi64>) {
    ^bb0(%in: i1, %in_9: i64, %in_10: i64, %out: i64):
      %69 = arith.select %in, %in_9, %in_10 : i64
      linalg.yield %69 : i64
    } -> tensor<1x2x2x3xi64>
    %45 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%41, %18, %cst : tensor<1x2x2x3xi1>, tensor<1x2x2x3xf32>, tensor<f32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: i1, %in_9: f32, %in_10: f32, %out: f32):
      %69 = arith.select %in, %in_9, %in_10 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %46 = linalg.generic {indexing_maps = [#map5, #map6, #map7, #map7, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded, %expanded_6, %44, %43 : tensor<1x1x1x1xi64>, tensor<1x2x1x1xi64>, tensor<1x2x2x3xi64>, tensor<1x2x2x3xi64>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: i64, %in_9: i64, %in_10: i64, %in_11: i64, %out: f32):
      %69 = arith.cmpi slt, %in, %c0_i64 : i64
      %70 = arith.addi %in, %c1_i64 : i64
      %71 = arith.select %69, %70, %in : i64
      %72 = arith.index_cast %71 : i64 to index
      %73 = arith.cmpi slt, %in_9, %c0_i64 : i64
      %74 = arith.addi %in_9, %c2_i64 : i64
      %75 = arith.select %73, %74, %in_9 : i64
      %76 = arith.index_cast %75 : i64 to index
      %77 = arith.cmpi slt, %in_10, %c0_i64 : i64
      %78 = arith.addi %in_10, %c3_i64 : i64
      %79 = arith.select %77, %78, %in_10 : i64
      %80 = arith.index_cast %79 : i64 to index
      %81 = arith.cmpi slt, %in_11, %c0_i64 : i64
      %82 = arith.addi %in_11, %c4_i64 : i64
      %83 = arith.select %81, %82, %in_11 : i64
      %84 = arith.index_cast %83 : i64 to index
      %extracted = tensor.extract %arg0[%72, %76, %80, %84] : tensor<1x2x3x4xf32>
      linalg.yield %extracted : f32
    } -> tensor<1x2x2x3xf32>
    %47 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%46, %45 : tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %69 = arith.mulf %in, %in_9 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %48 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%37, %47 : tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %69 = arith.addf %in, %in_9 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %49 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13 : tensor<1x2x2x3xf32>) outs(%22 : tensor<1x2x2x3xi1>) {
    ^bb0(%in: f32, %out: i1):
      %69 = arith.cmpf oge, %in, %cst_2 : f32
      linalg.yield %69 : i1
    } -> tensor<1x2x2x3xi1>
    %50 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13 : tensor<1x2x2x3xf32>) outs(%22 : tensor<1x2x2x3xi1>) {
    ^bb0(%in: f32, %out: i1):
      %69 = arith.cmpf olt, %in, %cst_4 : f32
      linalg.yield %69 : i1
    } -> tensor<1x2x2x3xi1>
    %51 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%49, %50 : tensor<1x2x2x3xi1>, tensor<1x2x2x3xi1>) outs(%22 : tensor<1x2x2x3xi1>) {
    ^bb0(%in: i1, %in_9: i1, %out: i1):
      %69 = arith.andi %in, %in_9 : i1
      linalg.yield %69 : i1
    } -> tensor<1x2x2x3xi1>
    %52 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%24, %51 : tensor<1x2x2x3xi1>, tensor<1x2x2x3xi1>) outs(%22 : tensor<1x2x2x3xi1>) {
    ^bb0(%in: i1, %in_9: i1, %out: i1):
      %69 = arith.andi %in, %in_9 : i1
      linalg.yield %69 : i1
    } -> tensor<1x2x2x3xi1>
    %53 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%23, %52 : tensor<1x2x2x3xi1>, tensor<1x2x2x3xi1>) outs(%22 : tensor<1x2x2x3xi1>) {
    ^bb0(%in: i1, %in_9: i1, %out: i1):
      %69 = arith.andi %in, %in_9 : i1
      linalg.yield %69 : i1
    } -> tensor<1x2x2x3xi1>
    %54 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13 : tensor<1x2x2x3xf32>) outs(%30 : tensor<1x2x2x3xi64>) {
    ^bb0(%in: f32, %out: i64):
      %69 = arith.fptosi %in : f32 to i64
      linalg.yield %69 : i64
    } -> tensor<1x2x2x3xi64>
    %55 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%53, %31, %cst_5 : tensor<1x2x2x3xi1>, tensor<1x2x2x3xi64>, tensor<i64>) outs(%30 : tensor<1x2x2x3xi64>) {
    ^bb0(%in: i1, %in_9: i64, %in_10: i64, %out: i64):
      %69 = arith.select %in, %in_9, %in_10 : i64
      linalg.yield %69 : i64
    } -> tensor<1x2x2x3xi64>
    %56 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%53, %54, %cst_5 : tensor<1x2x2x3xi1>, tensor<1x2x2x3xi64>, tensor<i64>) outs(%30 : tensor<1x2x2x3xi64>) {
    ^bb0(%in: i1, %in_9: i64, %in_10: i64, %out: i64):
      %69 = arith.select %in, %in_9, %in_10 : i64
      linalg.yield %69 : i64
    } -> tensor<1x2x2x3xi64>
    %57 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%53, %20, %cst : tensor<1x2x2x3xi1>, tensor<1x2x2x3xf32>, tensor<f32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: i1, %in_9: f32, %in_10: f32, %out: f32):
      %69 = arith.select %in, %in_9, %in_10 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %58 = linalg.generic {indexing_maps = [#map5, #map6, #map7, #map7, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded, %expanded_6, %56, %55 : tensor<1x1x1x1xi64>, tensor<1x2x1x1xi64>, tensor<1x2x2x3xi64>, tensor<1x2x2x3xi64>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: i64, %in_9: i64, %in_10: i64, %in_11: i64, %out: f32):
      %69 = arith.cmpi slt, %in, %c0_i64 : i64
      %70 = arith.addi %in, %c1_i64 : i64
      %71 = arith.select %69, %70, %in : i64
      %72 = arith.index_cast %71 : i64 to index
      %73 = arith.cmpi slt, %in_9, %c0_i64 : i64
      %74 = arith.addi %in_9, %c2_i64 : i64
      %75 = arith.select %73, %74, %in_9 : i64
      %76 = arith.index_cast %75 : i64 to index
      %77 = arith.cmpi slt, %in_10, %c0_i64 : i64
      %78 = arith.addi %in_10, %c3_i64 : i64
      %79 = arith.select %77, %78, %in_10 : i64
      %80 = arith.index_cast %79 : i64 to index
      %81 = arith.cmpi slt, %in_11, %c0_i64 : i64
      %82 = arith.addi %in_11, %c4_i64 : i64
      %83 = arith.select %81, %82, %in_11 : i64
      %84 = arith.index_cast %83 : i64 to index
      %extracted = tensor.extract %arg0[%72, %76, %80, %84] : tensor<1x2x3x4xf32>
      linalg.yield %extracted : f32
    } -> tensor<1x2x2x3xf32>
    %59 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%58, %57 : tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %69 = arith.mulf %in, %in_9 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %60 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%48, %59 : tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %69 = arith.addf %in, %in_9 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %61 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%39, %51 : tensor<1x2x2x3xi1>, tensor<1x2x2x3xi1>) outs(%22 : tensor<1x2x2x3xi1>) {
    ^bb0(%in: i1, %in_9: i1, %out: i1):
      %69 = arith.andi %in, %in_9 : i1
      linalg.yield %69 : i1
    } -> tensor<1x2x2x3xi1>
    %62 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%38, %61 : tensor<1x2x2x3xi1>, tensor<1x2x2x3xi1>) outs(%22 : tensor<1x2x2x3xi1>) {
    ^bb0(%in: i1, %in_9: i1, %out: i1):
      %69 = arith.andi %in, %in_9 : i1
      linalg.yield %69 : i1
    } -> tensor<1x2x2x3xi1>
    %63 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%62, %42, %cst_5 : tensor<1x2x2x3xi1>, tensor<1x2x2x3xi64>, tensor<i64>) outs(%30 : tensor<1x2x2x3xi64>) {
    ^bb0(%in: i1, %in_9: i64, %in_10: i64, %out: i64):
      %69 = arith.select %in, %in_9, %in_10 : i64
      linalg.yield %69 : i64
    } -> tensor<1x2x2x3xi64>
    %64 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%62, %54, %cst_5 : tensor<1x2x2x3xi1>, tensor<1x2x2x3xi64>, tensor<i64>) outs(%30 : tensor<1x2x2x3xi64>) {
    ^bb0(%in: i1, %in_9: i64, %in_10: i64, %out: i64):
      %69 = arith.select %in, %in_9, %in_10 : i64
      linalg.yield %69 : i64
    } -> tensor<1x2x2x3xi64>
    %65 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%62, %21, %cst : tensor<1x2x2x3xi1>, tensor<1x2x2x3xf32>, tensor<f32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: i1, %in_9: f32, %in_10: f32, %out: f32):
      %69 = arith.select %in, %in_9, %in_10 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %66 = linalg.generic {indexing_maps = [#map5, #map6, #map7, #map7, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded, %expanded_6, %64, %63 : tensor<1x1x1x1xi64>, tensor<1x2x1x1xi64>, tensor<1x2x2x3xi64>, tensor<1x2x2x3xi64>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: i64, %in_9: i64, %in_10: i64, %in_11: i64, %out: f32):
      %69 = arith.cmpi slt, %in, %c0_i64 : i64
      %70 = arith.addi %in, %c1_i64 : i64
      %71 = arith.select %69, %70, %in : i64
      %72 = arith.index_cast %71 : i64 to index
      %73 = arith.cmpi slt, %in_9, %c0_i64 : i64
      %74 = arith.addi %in_9, %c2_i64 : i64
      %75 = arith.select %73, %74, %in_9 : i64
      %76 = arith.index_cast %75 : i64 to index
      %77 = arith.cmpi slt, %in_10, %c0_i64 : i64
      %78 = arith.addi %in_10, %c3_i64 : i64
      %79 = arith.select %77, %78, %in_10 : i64
      %80 = arith.index_cast %79 : i64 to index
      %81 = arith.cmpi slt, %in_11, %c0_i64 : i64
      %82 = arith.addi %in_11, %c4_i64 : i64
      %83 = arith.select %81, %82, %in_11 : i64
      %84 = arith.index_cast %83 : i64 to index
      %extracted = tensor.extract %arg0[%72, %76, %80, %84] : tensor<1x2x3x4xf32>
      linalg.yield %extracted : f32
    } -> tensor<1x2x2x3xf32>
    %67 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%66, %65 : tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %69 = arith.mulf %in, %in_9 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    %68 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%60, %67 : tensor<1x2x2x3xf32>, tensor<1x2x2x3xf32>) outs(%6 : tensor<1x2x2x3xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %69 = arith.addf %in, %in_9 : f32
      linalg.yield %69 : f32
    } -> tensor<1x2x2x3xf32>
    return %68 : tensor<1x2x2x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x2x3x4xf32>, %a1: tensor<1x2x3x2xf32>, %ct0: tensor<1x2x2x3xf32>) -> (tensor<1x2x2x3xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x2xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 0, 1>} : (tensor<1x2x3x4xf32>, tensor<1x2x3x2xf32>, tensor<1x2x2x3xf32>) -> (tensor<1x2x2x3xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x2xf32>)
  return %r#0, %r#1, %r#2 : tensor<1x2x2x3xf32>, tensor<1x2x3x4xf32>, tensor<1x2x3x2xf32>
}
