// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `ElementwiseSeluModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py
// What: `aten.selu`: math.exp, scale and alpha constants (f64 through arith.truncf), cmpf + select across elementwise generics.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 5x3 (the upstream shape; static here); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_selu inputs=signed

#map = affine_map<(d0, d1) -> ()>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
  func.func @main(%arg0: tensor<5x3xf32>) -> tensor<5x3xf32> {
    %cst = arith.constant 1.6732632423543772 : f64
    %cst_0 = arith.constant 1.0507009873554805 : f64
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_2 = arith.constant 1.000000e+00 : f32
    %0 = tensor.empty() : tensor<5x3xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%cst_1, %arg0 : tensor<f32>, tensor<5x3xf32>) outs(%0 : tensor<5x3xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %9 = arith.cmpf ogt, %in, %in_3 : f32
      %10 = arith.select %9, %in, %in_3 : f32
      linalg.yield %10 : f32
    } -> tensor<5x3xf32>
    %2 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%1 : tensor<5x3xf32>) outs(%0 : tensor<5x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = arith.truncf %cst_0 : f64 to f32
      %10 = arith.mulf %in, %9 : f32
      linalg.yield %10 : f32
    } -> tensor<5x3xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%cst_1, %arg0 : tensor<f32>, tensor<5x3xf32>) outs(%0 : tensor<5x3xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %9 = arith.cmpf olt, %in, %in_3 : f32
      %10 = arith.select %9, %in, %in_3 : f32
      linalg.yield %10 : f32
    } -> tensor<5x3xf32>
    %4 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<5x3xf32>) outs(%0 : tensor<5x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = math.exp %in : f32
      linalg.yield %9 : f32
    } -> tensor<5x3xf32>
    %5 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<5x3xf32>) outs(%0 : tensor<5x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = arith.subf %in, %cst_2 : f32
      linalg.yield %9 : f32
    } -> tensor<5x3xf32>
    %6 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<5x3xf32>) outs(%0 : tensor<5x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = arith.truncf %cst_0 : f64 to f32
      %10 = arith.mulf %in, %9 : f32
      linalg.yield %10 : f32
    } -> tensor<5x3xf32>
    %7 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<5x3xf32>) outs(%0 : tensor<5x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = arith.truncf %cst : f64 to f32
      %10 = arith.mulf %in, %9 : f32
      linalg.yield %10 : f32
    } -> tensor<5x3xf32>
    %8 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%2, %7 : tensor<5x3xf32>, tensor<5x3xf32>) outs(%0 : tensor<5x3xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %9 = arith.addf %in, %in_3 : f32
      linalg.yield %9 : f32
    } -> tensor<5x3xf32>
    return %8 : tensor<5x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<5x3xf32>, %ct0: tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<5x3xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<5x3xf32>, tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<5x3xf32>)
  return %r#0, %r#1 : tensor<5x3xf32>, tensor<5x3xf32>
}
