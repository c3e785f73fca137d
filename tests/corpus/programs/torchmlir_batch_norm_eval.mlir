// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/norm_like.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `BatchNorm2DModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/norm_like.py
// What: inference batch norm (`F.batch_norm(training=False)`): the running statistics, weight and bias broadcast along channel with tensor.expand_shape to `2x1x1`, sqrt of var + eps (f64 eps through arith.truncf), divide, multiply, add; plus cf.assert ops torch-mlir emits for the shape checks.
// Adaptations: the module's `nn.BatchNorm2d(2)` (its weight, bias and running stats fixed in `__init__`) is called as `F.batch_norm(x, running_mean, running_var, weight, bias, training=False)` with the four tensors as forward arguments; batch 10 -> 2; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 2x2x3x3, the four vectors 2; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1,2,3,4 reference=tm_batch_norm_eval inputs=tm_batch_norm_eval

#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
  func.func @main(%arg0: tensor<2x2x3x3xf32>, %arg1: tensor<2xf32>, %arg2: tensor<2xf32>, %arg3: tensor<2xf32>, %arg4: tensor<2xf32>) -> tensor<2x2x3x3xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 1.000000e-05 : f64
    %0 = tensor.empty() : tensor<2xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%arg4 : tensor<2xf32>) outs(%0 : tensor<2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = arith.truncf %cst_1 : f64 to f32
      %10 = arith.addf %in, %9 : f32
      linalg.yield %10 : f32
    } -> tensor<2xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%1 : tensor<2xf32>) outs(%0 : tensor<2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = math.sqrt %in : f32
      linalg.yield %9 : f32
    } -> tensor<2xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%2 : tensor<2xf32>) outs(%0 : tensor<2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = arith.cmpf one, %in, %cst : f32
      cf.assert %9, "unimplemented: tensor with zero element"
      %10 = arith.divf %cst_0, %in : f32
      linalg.yield %10 : f32
    } -> tensor<2xf32>
    %expanded = tensor.expand_shape %arg3 [[0, 1, 2]] output_shape [2, 1, 1] : tensor<2xf32> into tensor<2x1x1xf32>
    %expanded_2 = tensor.expand_shape %3 [[0, 1, 2]] output_shape [2, 1, 1] : tensor<2xf32> into tensor<2x1x1xf32>
    %4 = tensor.empty() : tensor<2x2x3x3xf32>
    %5 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0, %expanded : tensor<2x2x3x3xf32>, tensor<2x1x1xf32>) outs(%4 : tensor<2x2x3x3xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %9 = arith.subf %in, %in_5 : f32
      linalg.yield %9 : f32
    } -> tensor<2x2x3x3xf32>
    %6 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%5, %expanded_2 : tensor<2x2x3x3xf32>, tensor<2x1x1xf32>) outs(%4 : tensor<2x2x3x3xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %9 = arith.mulf %in, %in_5 : f32
      linalg.yield %9 : f32
    } -> tensor<2x2x3x3xf32>
    %expanded_3 = tensor.expand_shape %arg1 [[0, 1, 2]] output_shape [2, 1, 1] : tensor<2xf32> into tensor<2x1x1xf32>
    %7 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6, %expanded_3 : tensor<2x2x3x3xf32>, tensor<2x1x1xf32>) outs(%4 : tensor<2x2x3x3xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %9 = arith.mulf %in, %in_5 : f32
      linalg.yield %9 : f32
    } -> tensor<2x2x3x3xf32>
    %expanded_4 = tensor.expand_shape %arg2 [[0, 1, 2]] output_shape [2, 1, 1] : tensor<2xf32> into tensor<2x1x1xf32>
    %8 = linalg.generic {indexing_maps = [#map1, #map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7, %expanded_4 : tensor<2x2x3x3xf32>, tensor<2x1x1xf32>) outs(%4 : tensor<2x2x3x3xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %9 = arith.addf %in, %in_5 : f32
      linalg.yield %9 : f32
    } -> tensor<2x2x3x3xf32>
    return %8 : tensor<2x2x3x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x2x3x3xf32>, %a1: tensor<2xf32>, %a2: tensor<2xf32>, %a3: tensor<2xf32>, %a4: tensor<2xf32>, %ct0: tensor<2x2x3x3xf32>) -> (tensor<2x2x3x3xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %r:6 = autodiff.vjp @main(%a0, %a1, %a2, %a3, %a4, %ct0) {wrt = array<i64: 0, 1, 2, 3, 4>} : (tensor<2x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2x3x3xf32>) -> (tensor<2x2x3x3xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5 : tensor<2x2x3x3xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
