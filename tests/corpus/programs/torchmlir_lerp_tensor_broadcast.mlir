// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `ElementwiseTernaryStaticShapeModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py
// What: `torch.lerp(a, b, c)` of 2x4x3, 4x3 and 3 (broadcast): the two-branch formula (weight < 0.5 ? a + w * (b - a) : b - (b - a) * (1 - w)) via math.absf, cmpf and select across broadcast generics.
// Adaptations: a 5x4x3 -> 2x4x3; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs a 2x4x3, b 4x3, c 3; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1,2 reference=tm_lerp_tensor_broadcast inputs=signed

#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1, d2) -> (d2)>
#map2 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
  func.func @main(%arg0: tensor<2x4x3xf32>, %arg1: tensor<4x3xf32>, %arg2: tensor<3xf32>) -> tensor<2x4x3xf32> {
    %cst = arith.constant 5.000000e-01 : f64
    %cst_0 = arith.constant 1.000000e+00 : f32
    %0 = tensor.empty() : tensor<3xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%arg2 : tensor<3xf32>) outs(%0 : tensor<3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %11 = math.absf %in : f32
      linalg.yield %11 : f32
    } -> tensor<3xf32>
    %2 = tensor.empty() : tensor<3xi1>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%1 : tensor<3xf32>) outs(%2 : tensor<3xi1>) {
    ^bb0(%in: f32, %out: i1):
      %11 = arith.extf %in : f32 to f64
      %12 = arith.cmpf oge, %11, %cst : f64
      linalg.yield %12 : i1
    } -> tensor<3xi1>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%arg2 : tensor<3xf32>) outs(%0 : tensor<3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %11 = arith.subf %in, %cst_0 : f32
      linalg.yield %11 : f32
    } -> tensor<3xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel"]} ins(%3, %4, %arg2 : tensor<3xi1>, tensor<3xf32>, tensor<3xf32>) outs(%0 : tensor<3xf32>) {
    ^bb0(%in: i1, %in_1: f32, %in_2: f32, %out: f32):
      %11 = arith.select %in, %in_1, %in_2 : f32
      linalg.yield %11 : f32
    } -> tensor<3xf32>
    %6 = tensor.empty() : tensor<2x4x3xf32>
    %7 = linalg.generic {indexing_maps = [#map1, #map2, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%3, %arg1, %arg0 : tensor<3xi1>, tensor<4x3xf32>, tensor<2x4x3xf32>) outs(%6 : tensor<2x4x3xf32>) {
    ^bb0(%in: i1, %in_1: f32, %in_2: f32, %out: f32):
      %11 = arith.select %in, %in_1, %in_2 : f32
      linalg.yield %11 : f32
    } -> tensor<2x4x3xf32>
    %8 = linalg.generic {indexing_maps = [#map2, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1, %arg0 : tensor<4x3xf32>, tensor<2x4x3xf32>) outs(%6 : tensor<2x4x3xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %11 = arith.subf %in, %in_1 : f32
      linalg.yield %11 : f32
    } -> tensor<2x4x3xf32>
    %9 = linalg.generic {indexing_maps = [#map1, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5, %8 : tensor<3xf32>, tensor<2x4x3xf32>) outs(%6 : tensor<2x4x3xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %11 = arith.mulf %in, %in_1 : f32
      linalg.yield %11 : f32
    } -> tensor<2x4x3xf32>
    %10 = linalg.generic {indexing_maps = [#map3, #map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%9, %7 : tensor<2x4x3xf32>, tensor<2x4x3xf32>) outs(%6 : tensor<2x4x3xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %11 = arith.addf %in, %in_1 : f32
      linalg.yield %11 : f32
    } -> tensor<2x4x3xf32>
    return %10 : tensor<2x4x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x4x3xf32>, %a1: tensor<4x3xf32>, %a2: tensor<3xf32>, %ct0: tensor<2x4x3xf32>) -> (tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<4x3xf32>, tensor<3xf32>) {
  %r:4 = autodiff.vjp @main(%a0, %a1, %a2, %ct0) {wrt = array<i64: 0, 1, 2>} : (tensor<2x4x3xf32>, tensor<4x3xf32>, tensor<3xf32>, tensor<2x4x3xf32>) -> (tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<4x3xf32>, tensor<3xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<2x4x3xf32>, tensor<2x4x3xf32>, tensor<4x3xf32>, tensor<3xf32>
}
