// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/norm_like.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `RenormModuleFloat32`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/norm_like.py
// What: `aten.renorm(x, p=2, dim=1, maxnorm=10)`: per-column norms (math.absf and math.powf 2 in a reduction generic, math.powf 1/2), an i1 mask (cmpf ogt maxnorm), maxnorm / (norm + 1e-7) (truncf constant, a divf behind a cf.assert that the divisor is nonzero), a select against 1 and a broadcast multiply.
// Adaptations: one column of the input scaled up so that its norm exceeds maxnorm; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 3x3 (the upstream shape); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_renorm inputs=tm_renorm

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (0, d1)>
#map2 = affine_map<(d0, d1) -> ()>
  func.func @main(%arg0: tensor<3x3xf32>) -> tensor<3x3xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant dense<1.000000e+00> : tensor<f32>
    %cst_2 = arith.constant 9.9999999999999995E-8 : f64
    %cst_3 = arith.constant 5.000000e-01 : f32
    %cst_4 = arith.constant 1.000000e+01 : f32
    %cst_5 = arith.constant 2.000000e+00 : f32
    %0 = tensor.empty() : tensor<1x3xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x3xf32>) -> tensor<1x3xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "parallel"]} ins(%arg0 : tensor<3x3xf32>) outs(%1 : tensor<1x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = math.absf %in : f32
      %13 = math.powf %12, %cst_5 : f32
      %14 = arith.addf %13, %out : f32
      linalg.yield %14 : f32
    } -> tensor<1x3xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<1x3xf32>) outs(%0 : tensor<1x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = math.powf %in, %cst_3 : f32
      linalg.yield %12 : f32
    } -> tensor<1x3xf32>
    %4 = tensor.empty() : tensor<1x3xi1>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<1x3xf32>) outs(%4 : tensor<1x3xi1>) {
    ^bb0(%in: f32, %out: i1):
      %12 = arith.cmpf ogt, %in, %cst_4 : f32
      linalg.yield %12 : i1
    } -> tensor<1x3xi1>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<1x3xf32>) outs(%0 : tensor<1x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = arith.truncf %cst_2 : f64 to f32
      %13 = arith.addf %in, %12 : f32
      linalg.yield %13 : f32
    } -> tensor<1x3xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<1x3xf32>) outs(%0 : tensor<1x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = arith.cmpf one, %in, %cst : f32
      cf.assert %12, "unimplemented: tensor with zero element"
      %13 = arith.divf %cst_0, %in : f32
      linalg.yield %13 : f32
    } -> tensor<1x3xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%7 : tensor<1x3xf32>) outs(%0 : tensor<1x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = arith.mulf %in, %cst_4 : f32
      linalg.yield %12 : f32
    } -> tensor<1x3xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %8, %cst_1 : tensor<1x3xi1>, tensor<1x3xf32>, tensor<f32>) outs(%0 : tensor<1x3xf32>) {
    ^bb0(%in: i1, %in_6: f32, %in_7: f32, %out: f32):
      %12 = arith.select %in, %in_6, %in_7 : f32
      linalg.yield %12 : f32
    } -> tensor<1x3xf32>
    %10 = tensor.empty() : tensor<3x3xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %9 : tensor<3x3xf32>, tensor<1x3xf32>) outs(%10 : tensor<3x3xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %12 = arith.mulf %in, %in_6 : f32
      linalg.yield %12 : f32
    } -> tensor<3x3xf32>
    return %11 : tensor<3x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<3x3xf32>, %ct0: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<3x3xf32>, tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>)
  return %r#0, %r#1 : tensor<3x3xf32>, tensor<3x3xf32>
}
