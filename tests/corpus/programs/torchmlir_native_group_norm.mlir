// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/norm_like.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `NativeGroupNormModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/norm_like.py
// What: `aten.native_group_norm` (2 groups of 3 channels, eps 1e-6): collapse/expand_shape into groups, f64 mean and variance reductions with extf/truncf, rsqrt, then the per-channel affine through gathers (tensor.extract at indices read from constant i64 index tensors, linalg.index, arith.select); three results (output, mean, rstd).
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 2x6x2x2, weight and bias 6 (the upstream sizes); the i64 `dense_resource` index constants (and the `dialect_resources` blob they point to) written out as `dense<...>` literals of the same values; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1,2 reference=tm_native_group_norm inputs=signed

#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
#map4 = affine_map<(d0, d1) -> (d0, d1)>
  func.func @main(%arg0: tensor<2x6x2x2xf32>, %arg1: tensor<6xf32>, %arg2: tensor<6xf32>) -> (tensor<2x6x2x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
    %c1_i64 = arith.constant 1 : i64
    %c2_i64 = arith.constant 2 : i64
    %c3_i64 = arith.constant 3 : i64
    %cst = arith.constant 0.000000e+00 : f64
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c0_i64 = arith.constant 0 : i64
    %cst_1 = arith.constant 9.9999999999999995E-7 : f64
    %cst_2 = arith.constant 8.000000e+00 : f64
    %cst_3 = arith.constant 8.000000e+00 : f32
    %cst_4 = arith.constant dense<[[0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1]]> : tensor<2x6xi64>
    %cst_5 = arith.constant dense<[[0, 0, 1, 1, 2, 2], [0, 0, 1, 1, 2, 2]]> : tensor<2x6xi64>
    %cst_6 = arith.constant dense<[[0, 1, 0, 1, 0, 1], [0, 1, 0, 1, 0, 1]]> : tensor<2x6xi64>
    %cst_7 = arith.constant dense<[[0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]]> : tensor<2x6xi64>
    %cst_8 = arith.constant dense<[[0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1]]> : tensor<2x6xi64>
    %cst_9 = arith.constant dense<[[0, 0, 1, 1, 2, 2], [0, 0, 1, 1, 2, 2]]> : tensor<2x6xi64>
    %cst_10 = arith.constant dense<[[0, 1, 0, 1, 0, 1], [0, 1, 0, 1, 0, 1]]> : tensor<2x6xi64>
    %cst_11 = arith.constant dense<[[0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]]> : tensor<2x6xi64>
    %collapsed = tensor.collapse_shape %arg0 [[0], [1], [2, 3]] : tensor<2x6x2x2xf32> into tensor<2x6x4xf32>
    %expanded = tensor.expand_shape %collapsed [[0], [1, 2], [3]] output_shape [2, 3, 2, 4] : tensor<2x6x4xf32> into tensor<2x3x2x4xf32>
    %0 = tensor.empty() : tensor<2x3x2x4xf64>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded : tensor<2x3x2x4xf32>) outs(%0 : tensor<2x3x2x4xf64>) {
    ^bb0(%in: f32, %out: f64):
      %28 = arith.extf %in : f32 to f64
      linalg.yield %28 : f64
    } -> tensor<2x3x2x4xf64>
    %2 = tensor.empty() : tensor<2x3x1x1xf64>
    %3 = linalg.fill ins(%cst : f64) outs(%2 : tensor<2x3x1x1xf64>) -> tensor<2x3x1x1xf64>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%1 : tensor<2x3x2x4xf64>) outs(%3 : tensor<2x3x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %28 = arith.addf %in, %out : f64
      linalg.yield %28 : f64
    } -> tensor<2x3x1x1xf64>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%4 : tensor<2x3x1x1xf64>) outs(%2 : tensor<2x3x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %28 = arith.divf %in, %cst_2 : f64
      linalg.yield %28 : f64
    } -> tensor<2x3x1x1xf64>
    %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1, %5 : tensor<2x3x2x4xf64>, tensor<2x3x1x1xf64>) outs(%0 : tensor<2x3x2x4xf64>) {
    ^bb0(%in: f64, %in_18: f64, %out: f64):
      %28 = arith.subf %in, %in_18 : f64
      linalg.yield %28 : f64
    } -> tensor<2x3x2x4xf64>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6, %6 : tensor<2x3x2x4xf64>, tensor<2x3x2x4xf64>) outs(%0 : tensor<2x3x2x4xf64>) {
    ^bb0(%in: f64, %in_18: f64, %out: f64):
      %28 = arith.mulf %in, %in_18 : f64
      linalg.yield %28 : f64
    } -> tensor<2x3x2x4xf64>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%7 : tensor<2x3x2x4xf64>) outs(%3 : tensor<2x3x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %28 = arith.addf %in, %out : f64
      linalg.yield %28 : f64
    } -> tensor<2x3x1x1xf64>
    %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8 : tensor<2x3x1x1xf64>) outs(%2 : tensor<2x3x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %28 = arith.divf %in, %cst_2 : f64
      linalg.yield %28 : f64
    } -> tensor<2x3x1x1xf64>
    %10 = tensor.empty() : tensor<2x3x1x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9 : tensor<2x3x1x1xf64>) outs(%10 : tensor<2x3x1x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %28 = arith.truncf %in : f64 to f32
      linalg.yield %28 : f32
    } -> tensor<2x3x1x1xf32>
    %12 = linalg.fill ins(%cst_0 : f32) outs(%10 : tensor<2x3x1x1xf32>) -> tensor<2x3x1x1xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%expanded : tensor<2x3x2x4xf32>) outs(%12 : tensor<2x3x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %28 = arith.addf %in, %out : f32
      linalg.yield %28 : f32
    } -> tensor<2x3x1x1xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13 : tensor<2x3x1x1xf32>) outs(%10 : tensor<2x3x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %28 = arith.divf %in, %cst_3 : f32
      linalg.yield %28 : f32
    } -> tensor<2x3x1x1xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11 : tensor<2x3x1x1xf32>) outs(%10 : tensor<2x3x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %28 = arith.truncf %cst_1 : f64 to f32
      %29 = arith.addf %in, %28 : f32
      linalg.yield %29 : f32
    } -> tensor<2x3x1x1xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%15 : tensor<2x3x1x1xf32>) outs(%10 : tensor<2x3x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %28 = math.rsqrt %in : f32
      linalg.yield %28 : f32
    } -> tensor<2x3x1x1xf32>
    %expanded_12 = tensor.expand_shape %arg1 [[0, 1, 2, 3]] output_shape [1, 3, 2, 1] : tensor<6xf32> into tensor<1x3x2x1xf32>
    %17 = tensor.empty() : tensor<2x3x2x1xf32>
    %18 = linalg.generic {indexing_maps = [#map2, #map3, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%16, %expanded_12 : tensor<2x3x1x1xf32>, tensor<1x3x2x1xf32>) outs(%17 : tensor<2x3x2x1xf32>) {
    ^bb0(%in: f32, %in_18: f32, %out: f32):
      %28 = arith.mulf %in, %in_18 : f32
      linalg.yield %28 : f32
    } -> tensor<2x3x2x1xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%14 : tensor<2x3x1x1xf32>) outs(%10 : tensor<2x3x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %28 = arith.negf %in : f32
      linalg.yield %28 : f32
    } -> tensor<2x3x1x1xf32>
    %20 = linalg.generic {indexing_maps = [#map2, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%19, %18 : tensor<2x3x1x1xf32>, tensor<2x3x2x1xf32>) outs(%17 : tensor<2x3x2x1xf32>) {
    ^bb0(%in: f32, %in_18: f32, %out: f32):
      %28 = arith.mulf %in, %in_18 : f32
      linalg.yield %28 : f32
    } -> tensor<2x3x2x1xf32>
    %expanded_13 = tensor.expand_shape %arg2 [[0, 1, 2, 3]] output_shape [1, 3, 2, 1] : tensor<6xf32> into tensor<1x3x2x1xf32>
    %21 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%20, %expanded_13 : tensor<2x3x2x1xf32>, tensor<1x3x2x1xf32>) outs(%17 : tensor<2x3x2x1xf32>) {
    ^bb0(%in: f32, %in_18: f32, %out: f32):
      %28 = arith.addf %in, %in_18 : f32
      linalg.yield %28 : f32
    } -> tensor<2x3x2x1xf32>
    %22 = tensor.empty() : tensor<2x6xf32>
    %23 = linalg.generic {indexing_maps = [#map4, #map4, #map4, #map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%cst_4, %cst_5, %cst_6, %cst_7 : tensor<2x6xi64>, tensor<2x6xi64>, tensor<2x6xi64>, tensor<2x6xi64>) outs(%22 : tensor<2x6xf32>) {
    ^bb0(%in: i64, %in_18: i64, %in_19: i64, %in_20: i64, %out: f32):
      %28 = arith.cmpi slt, %in, %c0_i64 : i64
      %29 = arith.addi %in, %c2_i64 : i64
      %30 = arith.select %28, %29, %in : i64
      %31 = arith.index_cast %30 : i64 to index
      %32 = arith.cmpi slt, %in_18, %c0_i64 : i64
      %33 = arith.addi %in_18, %c3_i64 : i64
      %34 = arith.select %32, %33, %in_18 : i64
      %35 = arith.index_cast %34 : i64 to index
      %36 = arith.cmpi slt, %in_19, %c0_i64 : i64
      %37 = arith.addi %in_19, %c2_i64 : i64
      %38 = arith.select %36, %37, %in_19 : i64
      %39 = arith.index_cast %38 : i64 to index
      %40 = arith.cmpi slt, %in_20, %c0_i64 : i64
      %41 = arith.addi %in_20, %c1_i64 : i64
      %42 = arith.select %40, %41, %in_20 : i64
      %43 = arith.index_cast %42 : i64 to index
      %extracted = tensor.extract %18[%31, %35, %39, %43] : tensor<2x3x2x1xf32>
      linalg.yield %extracted : f32
    } -> tensor<2x6xf32>
    %24 = linalg.generic {indexing_maps = [#map4, #map4, #map4, #map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%cst_8, %cst_9, %cst_10, %cst_11 : tensor<2x6xi64>, tensor<2x6xi64>, tensor<2x6xi64>, tensor<2x6xi64>) outs(%22 : tensor<2x6xf32>) {
    ^bb0(%in: i64, %in_18: i64, %in_19: i64, %in_20: i64, %out: f32):
      %28 = arith.cmpi slt, %in, %c0_i64 : i64
      %29 = arith.addi %in, %c2_i64 : i64
      %30 = arith.select %28, %29, %in : i64
      %31 = arith.index_cast %30 : i64 to index
      %32 = arith.cmpi slt, %in_18, %c0_i64 : i64
      %33 = arith.addi %in_18, %c3_i64 : i64
      %34 = arith.select %32, %33, %in_18 : i64
      %35 = arith.index_cast %34 : i64 to index
      %36 = arith.cmpi slt, %in_19, %c0_i64 : i64
      %37 = arith.addi %in_19, %c2_i64 : i64
      %38 = arith.select %36, %37, %in_19 : i64
      %39 = arith.index_cast %38 : i64 to index
      %40 = arith.cmpi slt, %in_20, %c0_i64 : i64
      %41 = arith.addi %in_20, %c1_i64 : i64
      %42 = arith.select %40, %41, %in_20 : i64
      %43 = arith.index_cast %42 : i64 to index
      %extracted = tensor.extract %21[%31, %35, %39, %43] : tensor<2x3x2x1xf32>
      linalg.yield %extracted : f32
    } -> tensor<2x6xf32>
    %expanded_14 = tensor.expand_shape %23 [[0], [1, 2, 3]] output_shape [2, 6, 1, 1] : tensor<2x6xf32> into tensor<2x6x1x1xf32>
    %expanded_15 = tensor.expand_shape %24 [[0], [1, 2, 3]] output_shape [2, 6, 1, 1] : tensor<2x6xf32> into tensor<2x6x1x1xf32>
    %25 = tensor.empty() : tensor<2x6x2x2xf32>
    %26 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0, %expanded_14 : tensor<2x6x2x2xf32>, tensor<2x6x1x1xf32>) outs(%25 : tensor<2x6x2x2xf32>) {
    ^bb0(%in: f32, %in_18: f32, %out: f32):
      %28 = arith.mulf %in, %in_18 : f32
      linalg.yield %28 : f32
    } -> tensor<2x6x2x2xf32>
    %27 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%26, %expanded_15 : tensor<2x6x2x2xf32>, tensor<2x6x1x1xf32>) outs(%25 : tensor<2x6x2x2xf32>) {
    ^bb0(%in: f32, %in_18: f32, %out: f32):
      %28 = arith.addf %in, %in_18 : f32
      linalg.yield %28 : f32
    } -> tensor<2x6x2x2xf32>
    %collapsed_16 = tensor.collapse_shape %14 [[0], [1, 2, 3]] : tensor<2x3x1x1xf32> into tensor<2x3xf32>
    %collapsed_17 = tensor.collapse_shape %16 [[0], [1, 2, 3]] : tensor<2x3x1x1xf32> into tensor<2x3xf32>
    return %27, %collapsed_16, %collapsed_17 : tensor<2x6x2x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x6x2x2xf32>, %a1: tensor<6xf32>, %a2: tensor<6xf32>, %ct0: tensor<2x6x2x2xf32>, %ct1: tensor<2x3xf32>, %ct2: tensor<2x3xf32>) -> (tensor<2x6x2x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x6x2x2xf32>, tensor<6xf32>, tensor<6xf32>) {
  %r:6 = autodiff.vjp @main(%a0, %a1, %a2, %ct0, %ct1, %ct2) {wrt = array<i64: 0, 1, 2>} : (tensor<2x6x2x2xf32>, tensor<6xf32>, tensor<6xf32>, tensor<2x6x2x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x6x2x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x6x2x2xf32>, tensor<6xf32>, tensor<6xf32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5 : tensor<2x6x2x2xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x6x2x2xf32>, tensor<6xf32>, tensor<6xf32>
}
