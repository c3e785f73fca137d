// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/norm_like.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `BatchNorm2DModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/norm_like.py
// What: training-mode batch norm (`F.batch_norm(training=True)` without running stats): the batch mean and biased variance over (N, H, W) as f64 reductions with extf/truncf into `(0, d1, 0, 0)` outputs, rsqrt, broadcast affine; the normalised output only.
// Adaptations: the module's `nn.BatchNorm2d(2)` is called as `F.batch_norm(x, None, None, weight, bias, training=True)` with weight and bias as forward arguments (training mode instead of the upstream eval); batch 10 -> 2; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 2x2x3x3, weight and bias 2; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1,2 reference=tm_batch_norm_train inputs=signed

#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
  func.func @main(%arg0: tensor<2x2x3x3xf32>, %arg1: tensor<2xf32>, %arg2: tensor<2xf32>) -> tensor<2x2x3x3xf32> {
    %cst = arith.constant 0.000000e+00 : f64
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant 1.000000e-05 : f64
    %cst_2 = arith.constant 1.800000e+01 : f64
    %cst_3 = arith.constant 1.800000e+01 : f32
    %0 = tensor.empty() : tensor<2x2x3x3xf64>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x2x3x3xf32>) outs(%0 : tensor<2x2x3x3xf64>) {
    ^bb0(%in: f32, %out: f64):
      %22 = arith.extf %in : f32 to f64
      linalg.yield %22 : f64
    } -> tensor<2x2x3x3xf64>
    %2 = tensor.empty() : tensor<1x2x1x1xf64>
    %3 = linalg.fill ins(%cst : f64) outs(%2 : tensor<1x2x1x1xf64>) -> tensor<1x2x1x1xf64>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%1 : tensor<2x2x3x3xf64>) outs(%3 : tensor<1x2x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %22 = arith.addf %in, %out : f64
      linalg.yield %22 : f64
    } -> tensor<1x2x1x1xf64>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%4 : tensor<1x2x1x1xf64>) outs(%2 : tensor<1x2x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %22 = arith.divf %in, %cst_2 : f64
      linalg.yield %22 : f64
    } -> tensor<1x2x1x1xf64>
    %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1, %5 : tensor<2x2x3x3xf64>, tensor<1x2x1x1xf64>) outs(%0 : tensor<2x2x3x3xf64>) {
    ^bb0(%in: f64, %in_5: f64, %out: f64):
      %22 = arith.subf %in, %in_5 : f64
      linalg.yield %22 : f64
    } -> tensor<2x2x3x3xf64>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6, %6 : tensor<2x2x3x3xf64>, tensor<2x2x3x3xf64>) outs(%0 : tensor<2x2x3x3xf64>) {
    ^bb0(%in: f64, %in_5: f64, %out: f64):
      %22 = arith.mulf %in, %in_5 : f64
      linalg.yield %22 : f64
    } -> tensor<2x2x3x3xf64>
    %8 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%7 : tensor<2x2x3x3xf64>) outs(%3 : tensor<1x2x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %22 = arith.addf %in, %out : f64
      linalg.yield %22 : f64
    } -> tensor<1x2x1x1xf64>
    %9 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8 : tensor<1x2x1x1xf64>) outs(%2 : tensor<1x2x1x1xf64>) {
    ^bb0(%in: f64, %out: f64):
      %22 = arith.divf %in, %cst_2 : f64
      linalg.yield %22 : f64
    } -> tensor<1x2x1x1xf64>
    %10 = tensor.empty() : tensor<1x2x1x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%9 : tensor<1x2x1x1xf64>) outs(%10 : tensor<1x2x1x1xf32>) {
    ^bb0(%in: f64, %out: f32):
      %22 = arith.truncf %in : f64 to f32
      linalg.yield %22 : f32
    } -> tensor<1x2x1x1xf32>
    %12 = linalg.fill ins(%cst_0 : f32) outs(%10 : tensor<1x2x1x1xf32>) -> tensor<1x2x1x1xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "parallel", "reduction", "reduction"]} ins(%arg0 : tensor<2x2x3x3xf32>) outs(%12 : tensor<1x2x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.addf %in, %out : f32
      linalg.yield %22 : f32
    } -> tensor<1x2x1x1xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%13 : tensor<1x2x1x1xf32>) outs(%10 : tensor<1x2x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.divf %in, %cst_3 : f32
      linalg.yield %22 : f32
    } -> tensor<1x2x1x1xf32>
    %15 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%11 : tensor<1x2x1x1xf32>) outs(%10 : tensor<1x2x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = arith.truncf %cst_1 : f64 to f32
      %23 = arith.addf %in, %22 : f32
      linalg.yield %23 : f32
    } -> tensor<1x2x1x1xf32>
    %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%15 : tensor<1x2x1x1xf32>) outs(%10 : tensor<1x2x1x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %22 = math.rsqrt %in : f32
      linalg.yield %22 : f32
    } -> tensor<1x2x1x1xf32>
    %17 = tensor.empty() : tensor<2x2x3x3xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0, %14 : tensor<2x2x3x3xf32>, tensor<1x2x1x1xf32>) outs(%17 : tensor<2x2x3x3xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %22 = arith.subf %in, %in_5 : f32
      linalg.yield %22 : f32
    } -> tensor<2x2x3x3xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%18, %16 : tensor<2x2x3x3xf32>, tensor<1x2x1x1xf32>) outs(%17 : tensor<2x2x3x3xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %22 = arith.mulf %in, %in_5 : f32
      linalg.yield %22 : f32
    } -> tensor<2x2x3x3xf32>
    %expanded = tensor.expand_shape %arg1 [[0, 1, 2]] output_shape [2, 1, 1] : tensor<2xf32> into tensor<2x1x1xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%19, %expanded : tensor<2x2x3x3xf32>, tensor<2x1x1xf32>) outs(%17 : tensor<2x2x3x3xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %22 = arith.mulf %in, %in_5 : f32
      linalg.yield %22 : f32
    } -> tensor<2x2x3x3xf32>
    %expanded_4 = tensor.expand_shape %arg2 [[0, 1, 2]] output_shape [2, 1, 1] : tensor<2xf32> into tensor<2x1x1xf32>
    %21 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%20, %expanded_4 : tensor<2x2x3x3xf32>, tensor<2x1x1xf32>) outs(%17 : tensor<2x2x3x3xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %22 = arith.addf %in, %in_5 : f32
      linalg.yield %22 : f32
    } -> tensor<2x2x3x3xf32>
    return %21 : tensor<2x2x3x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x2x3x3xf32>, %a1: tensor<2xf32>, %a2: tensor<2xf32>, %ct0: tensor<2x2x3x3xf32>) -> (tensor<2x2x3x3xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>) {
  %r:4 = autodiff.vjp @main(%a0, %a1, %a2, %ct0) {wrt = array<i64: 0, 1, 2>} : (tensor<2x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2x3x3xf32>) -> (tensor<2x2x3x3xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<2x2x3x3xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>
}
