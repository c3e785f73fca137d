// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `ElementwiseLogitModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py
// What: `torch.logit(a, eps=1e-7)`: the clamp to [eps, 1 - eps] as i1 mask generics (extf to f64, cmpf olt/ogt) and select generics against 0-d constant tensors, then log(x / (1 - x)) with the 1 an i64 0-d tensor through arith.sitofp.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 3x4 (the upstream shape; static here); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_logit inputs=tm_unit_interval

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> ()>
  func.func @main(%arg0: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %cst = arith.constant dense<1.000000e-07> : tensor<f32>
    %cst_0 = arith.constant dense<0.99999988> : tensor<f32>
    %cst_1 = arith.constant 0.99999990000000005 : f64
    %cst_2 = arith.constant 9.9999999999999995E-8 : f64
    %cst_3 = arith.constant dense<1> : tensor<i64>
    %0 = tensor.empty() : tensor<3x4xi1>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<3x4xf32>) outs(%0 : tensor<3x4xi1>) {
    ^bb0(%in: f32, %out: i1):
      %9 = arith.extf %in : f32 to f64
      %10 = arith.cmpf olt, %9, %cst_2 : f64
      linalg.yield %10 : i1
    } -> tensor<3x4xi1>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<3x4xf32>) outs(%0 : tensor<3x4xi1>) {
    ^bb0(%in: f32, %out: i1):
      %9 = arith.extf %in : f32 to f64
      %10 = arith.cmpf ogt, %9, %cst_1 : f64
      linalg.yield %10 : i1
    } -> tensor<3x4xi1>
    %3 = tensor.empty() : tensor<3x4xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %cst_0, %arg0 : tensor<3x4xi1>, tensor<f32>, tensor<3x4xf32>) outs(%3 : tensor<3x4xf32>) {
    ^bb0(%in: i1, %in_4: f32, %in_5: f32, %out: f32):
      %9 = arith.select %in, %in_4, %in_5 : f32
      linalg.yield %9 : f32
    } -> tensor<3x4xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %cst, %4 : tensor<3x4xi1>, tensor<f32>, tensor<3x4xf32>) outs(%3 : tensor<3x4xf32>) {
    ^bb0(%in: i1, %in_4: f32, %in_5: f32, %out: f32):
      %9 = arith.select %in, %in_4, %in_5 : f32
      linalg.yield %9 : f32
    } -> tensor<3x4xf32>
    %6 = linalg.generic {indexing_maps = [#map1, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%cst_3, %5 : tensor<i64>, tensor<3x4xf32>) outs(%3 : tensor<3x4xf32>) {
    ^bb0(%in: i64, %in_4: f32, %out: f32):
      %9 = arith.sitofp %in : i64 to f32
      %10 = arith.subf %9, %in_4 : f32
      linalg.yield %10 : f32
    } -> tensor<3x4xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %6 : tensor<3x4xf32>, tensor<3x4xf32>) outs(%3 : tensor<3x4xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %9 = arith.divf %in, %in_4 : f32
      linalg.yield %9 : f32
    } -> tensor<3x4xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<3x4xf32>) outs(%3 : tensor<3x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %9 = math.log %in : f32
      linalg.yield %9 : f32
    } -> tensor<3x4xf32>
    return %8 : tensor<3x4xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<3x4xf32>, %ct0: tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<3x4xf32>, tensor<3x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>)
  return %r#0, %r#1 : tensor<3x4xf32>, tensor<3x4xf32>
}
