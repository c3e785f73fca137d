// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `ElementwiseSoftshrinkStaticModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py
// What: `aten.softshrink(a, 2.0)`: math.absf and an i1 mask (extf to f64, cmpf ogt against lambda), sign(x) from cmpf ogt/olt masks and select generics with 0-d constant tensors, x - lambda * sign(x), and a final select against 0 * x.
// Adaptations: input 4x5x6 -> 3x4x5; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 3x4x5; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_softshrink inputs=tm_softshrink

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> ()>
  func.func @main(%arg0: tensor<3x4x5xf32>) -> tensor<3x4x5xf32> {
    %cst = arith.constant dense<-1.000000e+00> : tensor<f32>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_1 = arith.constant dense<1.000000e+00> : tensor<f32>
    %cst_2 = arith.constant 2.000000e+00 : f64
    %cst_3 = arith.constant 0.000000e+00 : f32
    %cst_4 = arith.constant 2.000000e+00 : f32
    %0 = tensor.empty() : tensor<3x4x5xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<3x4x5xf32>) outs(%0 : tensor<3x4x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = math.absf %in : f32
      linalg.yield %12 : f32
    } -> tensor<3x4x5xf32>
    %2 = tensor.empty() : tensor<3x4x5xi1>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1 : tensor<3x4x5xf32>) outs(%2 : tensor<3x4x5xi1>) {
    ^bb0(%in: f32, %out: i1):
      %12 = arith.extf %in : f32 to f64
      %13 = arith.cmpf ogt, %12, %cst_2 : f64
      linalg.yield %13 : i1
    } -> tensor<3x4x5xi1>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<3x4x5xf32>) outs(%2 : tensor<3x4x5xi1>) {
    ^bb0(%in: f32, %out: i1):
      %12 = arith.cmpf ogt, %in, %cst_3 : f32
      linalg.yield %12 : i1
    } -> tensor<3x4x5xi1>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<3x4x5xf32>) outs(%2 : tensor<3x4x5xi1>) {
    ^bb0(%in: f32, %out: i1):
      %12 = arith.cmpf olt, %in, %cst_3 : f32
      linalg.yield %12 : i1
    } -> tensor<3x4x5xi1>
    %6 = linalg.generic {indexing_maps = [#map, #map1, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%4, %cst_1, %cst_0 : tensor<3x4x5xi1>, tensor<f32>, tensor<f32>) outs(%0 : tensor<3x4x5xf32>) {
    ^bb0(%in: i1, %in_5: f32, %in_6: f32, %out: f32):
      %12 = arith.select %in, %in_5, %in_6 : f32
      linalg.yield %12 : f32
    } -> tensor<3x4x5xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map1, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%5, %cst, %6 : tensor<3x4x5xi1>, tensor<f32>, tensor<3x4x5xf32>) outs(%0 : tensor<3x4x5xf32>) {
    ^bb0(%in: i1, %in_5: f32, %in_6: f32, %out: f32):
      %12 = arith.select %in, %in_5, %in_6 : f32
      linalg.yield %12 : f32
    } -> tensor<3x4x5xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%7 : tensor<3x4x5xf32>) outs(%0 : tensor<3x4x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = arith.mulf %in, %cst_4 : f32
      linalg.yield %12 : f32
    } -> tensor<3x4x5xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %8 : tensor<3x4x5xf32>, tensor<3x4x5xf32>) outs(%0 : tensor<3x4x5xf32>) {
    ^bb0(%in: f32, %in_5: f32, %out: f32):
      %12 = arith.subf %in, %in_5 : f32
      linalg.yield %12 : f32
    } -> tensor<3x4x5xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<3x4x5xf32>) outs(%0 : tensor<3x4x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = arith.mulf %in, %cst_3 : f32
      linalg.yield %12 : f32
    } -> tensor<3x4x5xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%3, %9, %10 : tensor<3x4x5xi1>, tensor<3x4x5xf32>, tensor<3x4x5xf32>) outs(%0 : tensor<3x4x5xf32>) {
    ^bb0(%in: i1, %in_5: f32, %in_6: f32, %out: f32):
      %12 = arith.select %in, %in_5, %in_6 : f32
      linalg.yield %12 : f32
    } -> tensor<3x4x5xf32>
    return %11 : tensor<3x4x5xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<3x4x5xf32>, %ct0: tensor<3x4x5xf32>) -> (tensor<3x4x5xf32>, tensor<3x4x5xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<3x4x5xf32>, tensor<3x4x5xf32>) -> (tensor<3x4x5xf32>, tensor<3x4x5xf32>)
  return %r#0, %r#1 : tensor<3x4x5xf32>, tensor<3x4x5xf32>
}
