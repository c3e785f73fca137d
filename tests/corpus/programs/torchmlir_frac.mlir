// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `ElementwiseFracModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py
// What: `torch.frac`: sign(x) from cmpf ogt/olt masks and select generics with 0-d constant tensors, trunc(x) = sign(x) * floor(|x|) (math.absf, math.floor, mulf), then x - trunc(x).
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 1x6 (the upstream shape; its test uses fixed values); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_frac inputs=tm_frac

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> ()>
  func.func @main(%arg0: tensor<1x6xf32>) -> tensor<1x6xf32> {
    %cst = arith.constant dense<-1.000000e+00> : tensor<f32>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_1 = arith.constant dense<1.000000e+00> : tensor<f32>
    %cst_2 = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<1x6xi1>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<1x6xf32>) outs(%0 : tensor<1x6xi1>) {
    ^bb0(%in: f32, %out: i1):
      %10 = arith.cmpf ogt, %in, %cst_2 : f32
      linalg.yield %10 : i1
    } -> tensor<1x6xi1>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<1x6xf32>) outs(%0 : tensor<1x6xi1>) {
    ^bb0(%in: f32, %out: i1):
      %10 = arith.cmpf olt, %in, %cst_2 : f32
      linalg.yield %10 : i1
    } -> tensor<1x6xi1>
    %3 = tensor.empty() : tensor<1x6xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %cst_1, %cst_0 : tensor<1x6xi1>, tensor<f32>, tensor<f32>) outs(%3 : tensor<1x6xf32>) {
    ^bb0(%in: i1, %in_3: f32, %in_4: f32, %out: f32):
      %10 = arith.select %in, %in_3, %in_4 : f32
      linalg.yield %10 : f32
    } -> tensor<1x6xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %cst, %4 : tensor<1x6xi1>, tensor<f32>, tensor<1x6xf32>) outs(%3 : tensor<1x6xf32>) {
    ^bb0(%in: i1, %in_3: f32, %in_4: f32, %out: f32):
      %10 = arith.select %in, %in_3, %in_4 : f32
      linalg.yield %10 : f32
    } -> tensor<1x6xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<1x6xf32>) outs(%3 : tensor<1x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = math.absf %in : f32
      linalg.yield %10 : f32
    } -> tensor<1x6xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<1x6xf32>) outs(%3 : tensor<1x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = math.floor %in : f32
      linalg.yield %10 : f32
    } -> tensor<1x6xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %7 : tensor<1x6xf32>, tensor<1x6xf32>) outs(%3 : tensor<1x6xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %10 = arith.mulf %in, %in_3 : f32
      linalg.yield %10 : f32
    } -> tensor<1x6xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %8 : tensor<1x6xf32>, tensor<1x6xf32>) outs(%3 : tensor<1x6xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %10 = arith.subf %in, %in_3 : f32
      linalg.yield %10 : f32
    } -> tensor<1x6xf32>
    return %9 : tensor<1x6xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x6xf32>, %ct0: tensor<1x6xf32>) -> (tensor<1x6xf32>, tensor<1x6xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<1x6xf32>, tensor<1x6xf32>) -> (tensor<1x6xf32>, tensor<1x6xf32>)
  return %r#0, %r#1 : tensor<1x6xf32>, tensor<1x6xf32>
}
