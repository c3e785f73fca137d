// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/reduction.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `BinaryCrossEntropyWithLogitsStaticModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/reduction.py
// What: `aten.binary_cross_entropy_with_logits(reduction=none)`: the stable form with math.absf, math.exp, math.log1p, a cmpf/select max(-x, 0) and sitofp constants across elementwise generics.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs input and target 8x2 (the upstream shapes); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=tm_bce_logits inputs=tm_bce_logits

#map = affine_map<(d0, d1) -> ()>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
  func.func @main(%arg0: tensor<8x2xf32>, %arg1: tensor<8x2xf32>) -> tensor<8x2xf32> {
    %cst = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = arith.constant dense<1> : tensor<i64>
    %0 = tensor.empty() : tensor<8x2xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%cst_0, %arg1 : tensor<i64>, tensor<8x2xf32>) outs(%0 : tensor<8x2xf32>) {
    ^bb0(%in: i64, %in_1: f32, %out: f32):
      %10 = arith.sitofp %in : i64 to f32
      %11 = arith.subf %10, %in_1 : f32
      linalg.yield %11 : f32
    } -> tensor<8x2xf32>
    %2 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%1, %arg0 : tensor<8x2xf32>, tensor<8x2xf32>) outs(%0 : tensor<8x2xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %10 = arith.mulf %in, %in_1 : f32
      linalg.yield %10 : f32
    } -> tensor<8x2xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%cst, %arg0 : tensor<f32>, tensor<8x2xf32>) outs(%0 : tensor<8x2xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %10 = arith.cmpf olt, %in, %in_1 : f32
      %11 = arith.select %10, %in, %in_1 : f32
      linalg.yield %11 : f32
    } -> tensor<8x2xf32>
    %4 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<8x2xf32>) outs(%0 : tensor<8x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = math.absf %in : f32
      linalg.yield %10 : f32
    } -> tensor<8x2xf32>
    %5 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<8x2xf32>) outs(%0 : tensor<8x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = arith.negf %in : f32
      linalg.yield %10 : f32
    } -> tensor<8x2xf32>
    %6 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<8x2xf32>) outs(%0 : tensor<8x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = math.exp %in : f32
      linalg.yield %10 : f32
    } -> tensor<8x2xf32>
    %7 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<8x2xf32>) outs(%0 : tensor<8x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = math.log1p %in : f32
      linalg.yield %10 : f32
    } -> tensor<8x2xf32>
    %8 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%3, %7 : tensor<8x2xf32>, tensor<8x2xf32>) outs(%0 : tensor<8x2xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %10 = arith.subf %in, %in_1 : f32
      linalg.yield %10 : f32
    } -> tensor<8x2xf32>
    %9 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%2, %8 : tensor<8x2xf32>, tensor<8x2xf32>) outs(%0 : tensor<8x2xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %10 = arith.subf %in, %in_1 : f32
      linalg.yield %10 : f32
    } -> tensor<8x2xf32>
    return %9 : tensor<8x2xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<8x2xf32>, %a1: tensor<8x2xf32>, %ct0: tensor<8x2xf32>) -> (tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 0, 1>} : (tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>) -> (tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>)
  return %r#0, %r#1, %r#2 : tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>
}
