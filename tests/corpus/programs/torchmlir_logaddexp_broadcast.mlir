// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `ElementwiseLogAddExpBroadcastModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py
// What: `aten.logaddexp` of 3x2x4 and 3x1x4: broadcast generics with a `(d0, 0, d2)` map computing max(x, y) + log1p(exp(-|x - y|)) (cmpf ogt + select, math.absf, negf, math.exp, math.log1p), and the equal-infinities case (extf, cmpf oeq against +inf, select).
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 3x2x4 and 3x1x4 (the upstream shapes; static here); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=tm_logaddexp_broadcast inputs=signed

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
  func.func @main(%arg0: tensor<3x2x4xf32>, %arg1: tensor<3x1x4xf32>) -> tensor<3x2x4xf32> {
    %cst = arith.constant 0x7FF0000000000000 : f64
    %0 = tensor.empty() : tensor<3x2x4xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %arg1 : tensor<3x2x4xf32>, tensor<3x1x4xf32>) outs(%0 : tensor<3x2x4xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %12 = arith.subf %in, %in_0 : f32
      linalg.yield %12 : f32
    } -> tensor<3x2x4xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1 : tensor<3x2x4xf32>) outs(%0 : tensor<3x2x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = math.absf %in : f32
      linalg.yield %12 : f32
    } -> tensor<3x2x4xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%2 : tensor<3x2x4xf32>) outs(%0 : tensor<3x2x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = arith.negf %in : f32
      linalg.yield %12 : f32
    } -> tensor<3x2x4xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %arg1 : tensor<3x2x4xf32>, tensor<3x1x4xf32>) outs(%0 : tensor<3x2x4xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %12 = arith.cmpf ogt, %in, %in_0 : f32
      %13 = arith.select %12, %in, %in_0 : f32
      linalg.yield %13 : f32
    } -> tensor<3x2x4xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%3 : tensor<3x2x4xf32>) outs(%0 : tensor<3x2x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = math.exp %in : f32
      linalg.yield %12 : f32
    } -> tensor<3x2x4xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5 : tensor<3x2x4xf32>) outs(%0 : tensor<3x2x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = math.log1p %in : f32
      linalg.yield %12 : f32
    } -> tensor<3x2x4xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4, %6 : tensor<3x2x4xf32>, tensor<3x2x4xf32>) outs(%0 : tensor<3x2x4xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %12 = arith.addf %in, %in_0 : f32
      linalg.yield %12 : f32
    } -> tensor<3x2x4xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4 : tensor<3x2x4xf32>) outs(%0 : tensor<3x2x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = math.absf %in : f32
      linalg.yield %12 : f32
    } -> tensor<3x2x4xf32>
    %9 = tensor.empty() : tensor<3x2x4xi1>
    %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%8 : tensor<3x2x4xf32>) outs(%9 : tensor<3x2x4xi1>) {
    ^bb0(%in: f32, %out: i1):
      %12 = arith.extf %in : f32 to f64
      %13 = arith.cmpf oeq, %12, %cst : f64
      linalg.yield %13 : i1
    } -> tensor<3x2x4xi1>
    %11 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%10, %4, %7 : tensor<3x2x4xi1>, tensor<3x2x4xf32>, tensor<3x2x4xf32>) outs(%0 : tensor<3x2x4xf32>) {
    ^bb0(%in: i1, %in_0: f32, %in_1: f32, %out: f32):
      %12 = arith.select %in, %in_0, %in_1 : f32
      linalg.yield %12 : f32
    } -> tensor<3x2x4xf32>
    return %11 : tensor<3x2x4xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<3x2x4xf32>, %a1: tensor<3x1x4xf32>, %ct0: tensor<3x2x4xf32>) -> (tensor<3x2x4xf32>, tensor<3x2x4xf32>, tensor<3x1x4xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 0, 1>} : (tensor<3x2x4xf32>, tensor<3x1x4xf32>, tensor<3x2x4xf32>) -> (tensor<3x2x4xf32>, tensor<3x2x4xf32>, tensor<3x1x4xf32>)
  return %r#0, %r#1, %r#2 : tensor<3x2x4xf32>, tensor<3x2x4xf32>, tensor<3x1x4xf32>
}
