// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/norm_like.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `NormalizeModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/norm_like.py
// What: `F.normalize(x)` (p 2, dim 1, eps 1e-12): math.absf, math.powf reductions, the eps clamp (cmpf + select, truncf constant) and a broadcast divide.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 3x3 (the upstream shape); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_normalize inputs=signed

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0, 0)>
#map2 = affine_map<(d0, d1) -> (d0)>
  func.func @main(%arg0: tensor<3x3xf32>) -> tensor<3x3xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 9.9999999999999998E-13 : f64
    %cst_1 = arith.constant 5.000000e-01 : f32
    %cst_2 = arith.constant 2.000000e+00 : f32
    %0 = tensor.empty() : tensor<3x1xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<3x1xf32>) -> tensor<3x1xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<3x3xf32>) outs(%1 : tensor<3x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %8 = math.absf %in : f32
      %9 = math.powf %8, %cst_2 : f32
      %10 = arith.addf %9, %out : f32
      linalg.yield %10 : f32
    } -> tensor<3x1xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<3x1xf32>) outs(%0 : tensor<3x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %8 = math.powf %in, %cst_1 : f32
      linalg.yield %8 : f32
    } -> tensor<3x1xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<3x1xf32>) outs(%0 : tensor<3x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %8 = arith.truncf %cst_0 : f64 to f32
      %9 = arith.cmpf ult, %in, %8 : f32
      %10 = arith.select %9, %8, %in : f32
      linalg.yield %10 : f32
    } -> tensor<3x1xf32>
    %5 = tensor.empty() : tensor<3x3xf32>
    %collapsed = tensor.collapse_shape %4 [[0, 1]] : tensor<3x1xf32> into tensor<3xf32>
    %6 = linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel"]} ins(%collapsed : tensor<3xf32>) outs(%5 : tensor<3x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<3x3xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %6 : tensor<3x3xf32>, tensor<3x3xf32>) outs(%5 : tensor<3x3xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %8 = arith.divf %in, %in_3 : f32
      linalg.yield %8 : f32
    } -> tensor<3x3xf32>
    return %7 : tensor<3x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<3x3xf32>, %ct0: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<3x3xf32>, tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>)
  return %r#0, %r#1 : tensor<3x3xf32>, tensor<3x3xf32>
}
