// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `CosineSimilarityStaticBroadcastModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py
// What: `aten.cosine_similarity` of 5x2x3 and 4x5x1x1 along dim 1: collapse_shape of the size-1 dims and broadcast generics to 4x5x2x3, norms as math.absf + math.powf(2) reductions into `4x1x2x3` outputs then math.powf(1/2), clamps at eps (cmpf ult + select), divides and a sum reduction of the products to 4x2x3.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x1 5x2x3, x2 4x5x1x1 (the upstream shapes); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=tm_cosine_similarity inputs=signed

#map = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> ()>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
  func.func @main(%arg0: tensor<5x2x3xf32>, %arg1: tensor<4x5x1x1xf32>) -> tensor<4x2x3xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant dense<9.99999993E-9> : tensor<f32>
    %cst_1 = arith.constant 5.000000e-01 : f32
    %cst_2 = arith.constant 2.000000e+00 : f32
    %0 = tensor.empty() : tensor<4x5x2x3xf32>
    %collapsed = tensor.collapse_shape %arg1 [[0], [1, 2, 3]] : tensor<4x5x1x1xf32> into tensor<4x5xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed : tensor<4x5xf32>) outs(%0 : tensor<4x5x2x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4x5x2x3xf32>
    %2 = linalg.generic {indexing_maps = [#map2, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<5x2x3xf32>) outs(%0 : tensor<4x5x2x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4x5x2x3xf32>
    %3 = tensor.empty() : tensor<4x1x2x3xf32>
    %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<4x1x2x3xf32>) -> tensor<4x1x2x3xf32>
    %5 = linalg.generic {indexing_maps = [#map1, #map3], iterator_types = ["parallel", "reduction", "parallel", "parallel"]} ins(%2 : tensor<4x5x2x3xf32>) outs(%4 : tensor<4x1x2x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %17 = math.absf %in : f32
      %18 = math.powf %17, %cst_2 : f32
      %19 = arith.addf %18, %out : f32
      linalg.yield %19 : f32
    } -> tensor<4x1x2x3xf32>
    %6 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%5 : tensor<4x1x2x3xf32>) outs(%3 : tensor<4x1x2x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %17 = math.powf %in, %cst_1 : f32
      linalg.yield %17 : f32
    } -> tensor<4x1x2x3xf32>
    %7 = linalg.generic {indexing_maps = [#map1, #map3], iterator_types = ["parallel", "reduction", "parallel", "parallel"]} ins(%1 : tensor<4x5x2x3xf32>) outs(%4 : tensor<4x1x2x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %17 = math.absf %in : f32
      %18 = math.powf %17, %cst_2 : f32
      %19 = arith.addf %18, %out : f32
      linalg.yield %19 : f32
    } -> tensor<4x1x2x3xf32>
    %8 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%7 : tensor<4x1x2x3xf32>) outs(%3 : tensor<4x1x2x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %17 = math.powf %in, %cst_1 : f32
      linalg.yield %17 : f32
    } -> tensor<4x1x2x3xf32>
    %9 = linalg.generic {indexing_maps = [#map1, #map4, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%6, %cst_0 : tensor<4x1x2x3xf32>, tensor<f32>) outs(%3 : tensor<4x1x2x3xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %17 = arith.cmpf ult, %in, %in_3 : f32
      %18 = arith.select %17, %in_3, %in : f32
      linalg.yield %18 : f32
    } -> tensor<4x1x2x3xf32>
    %10 = linalg.generic {indexing_maps = [#map1, #map4, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%8, %cst_0 : tensor<4x1x2x3xf32>, tensor<f32>) outs(%3 : tensor<4x1x2x3xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %17 = arith.cmpf ult, %in, %in_3 : f32
      %18 = arith.select %17, %in_3, %in : f32
      linalg.yield %18 : f32
    } -> tensor<4x1x2x3xf32>
    %11 = linalg.generic {indexing_maps = [#map1, #map3, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1, %10 : tensor<4x5x2x3xf32>, tensor<4x1x2x3xf32>) outs(%0 : tensor<4x5x2x3xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %17 = arith.divf %in, %in_3 : f32
      linalg.yield %17 : f32
    } -> tensor<4x5x2x3xf32>
    %12 = linalg.generic {indexing_maps = [#map1, #map3, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2, %9 : tensor<4x5x2x3xf32>, tensor<4x1x2x3xf32>) outs(%0 : tensor<4x5x2x3xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %17 = arith.divf %in, %in_3 : f32
      linalg.yield %17 : f32
    } -> tensor<4x5x2x3xf32>
    %13 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%12, %11 : tensor<4x5x2x3xf32>, tensor<4x5x2x3xf32>) outs(%0 : tensor<4x5x2x3xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %17 = arith.mulf %in, %in_3 : f32
      linalg.yield %17 : f32
    } -> tensor<4x5x2x3xf32>
    %14 = tensor.empty() : tensor<4x2x3xf32>
    %15 = linalg.fill ins(%cst : f32) outs(%14 : tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
    %16 = linalg.generic {indexing_maps = [#map1, #map5], iterator_types = ["parallel", "reduction", "parallel", "parallel"]} ins(%13 : tensor<4x5x2x3xf32>) outs(%15 : tensor<4x2x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %17 = arith.addf %in, %out : f32
      linalg.yield %17 : f32
    } -> tensor<4x2x3xf32>
    return %16 : tensor<4x2x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<5x2x3xf32>, %a1: tensor<4x5x1x1xf32>, %ct0: tensor<4x2x3xf32>) -> (tensor<4x2x3xf32>, tensor<5x2x3xf32>, tensor<4x5x1x1xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 0, 1>} : (tensor<5x2x3xf32>, tensor<4x5x1x1xf32>, tensor<4x2x3xf32>) -> (tensor<4x2x3xf32>, tensor<5x2x3xf32>, tensor<4x5x1x1xf32>)
  return %r#0, %r#1, %r#2 : tensor<4x2x3xf32>, tensor<5x2x3xf32>, tensor<4x5x1x1xf32>
}
