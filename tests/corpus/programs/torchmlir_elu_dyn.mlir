// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `ElementwiseEluModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py
// What: `aten.elu` on a `tensor<?x?xf32>`: cmpf + select between x and (exp(x) - 1) scaled, with dynamic tensor.empty sizes from tensor.dim.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors", dynamic_shapes=({0: a, 1: b},))` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 5x3 with both dims dynamic (as upstream); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_elu inputs=tm_dyn_5x3

#map = affine_map<(d0, d1) -> ()>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
  func.func @main(%arg0: tensor<?x?xf32>) -> tensor<?x?xf32> {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %cst = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = arith.constant 1.000000e+00 : f32
    %dim = tensor.dim %arg0, %c0 : tensor<?x?xf32>
    %dim_1 = tensor.dim %arg0, %c1 : tensor<?x?xf32>
    %0 = tensor.empty(%dim, %dim_1) : tensor<?x?xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%cst, %arg0 : tensor<f32>, tensor<?x?xf32>) outs(%0 : tensor<?x?xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %6 = arith.cmpf ogt, %in, %in_2 : f32
      %7 = arith.select %6, %in, %in_2 : f32
      linalg.yield %7 : f32
    } -> tensor<?x?xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%cst, %arg0 : tensor<f32>, tensor<?x?xf32>) outs(%0 : tensor<?x?xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %6 = arith.cmpf olt, %in, %in_2 : f32
      %7 = arith.select %6, %in, %in_2 : f32
      linalg.yield %7 : f32
    } -> tensor<?x?xf32>
    %3 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<?x?xf32>) outs(%0 : tensor<?x?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %6 = math.exp %in : f32
      linalg.yield %6 : f32
    } -> tensor<?x?xf32>
    %4 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%3 : tensor<?x?xf32>) outs(%0 : tensor<?x?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %6 = arith.subf %in, %cst_0 : f32
      linalg.yield %6 : f32
    } -> tensor<?x?xf32>
    %5 = linalg.generic {indexing_maps = [#map1, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%1, %4 : tensor<?x?xf32>, tensor<?x?xf32>) outs(%0 : tensor<?x?xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %6 = arith.addf %in, %in_2 : f32
      linalg.yield %6 : f32
    } -> tensor<?x?xf32>
    return %5 : tensor<?x?xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<?x?xf32>, %ct0: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<?x?xf32>, tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>)
  return %r#0, %r#1 : tensor<?x?xf32>, tensor<?x?xf32>
}
