// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/kl_div_loss.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `KlDivLossModule_default`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/kl_div_loss.py
// What: `aten.kl_div` (mean, log_target=False) on `tensor<?x?x?xf32>`: target * (log(target) - input) with a cmpf/select guarding target > 0 (xlogy), a sum reduction and a divide by the element count from tensor.dim, to a 0-d result.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors", dynamic_shapes=({0: a, 1: b, 2: c}, {0: a, 1: b, 2: c}))` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 3x5x2 with all dims dynamic (as upstream); removed the `module { ... }` around @main; added the gradir entry @grad_main (autodiff.grad) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=tm_kl_div inputs=tm_kl_div_dyn

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> ()>
#map2 = affine_map<() -> ()>
  func.func @main(%arg0: tensor<?x?x?xf32>, %arg1: tensor<?x?x?xf32>) -> tensor<f32> {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant dense<0x7FC00000> : tensor<f32>
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<f32>
    %dim = tensor.dim %arg1, %c0 : tensor<?x?x?xf32>
    %dim_2 = tensor.dim %arg1, %c1 : tensor<?x?x?xf32>
    %dim_3 = tensor.dim %arg1, %c2 : tensor<?x?x?xf32>
    %dim_4 = tensor.dim %arg0, %c0 : tensor<?x?x?xf32>
    %0 = arith.cmpi eq, %dim, %dim_4 : index
    cf.assert %0, "mismatched size for broadcast"
    %dim_5 = tensor.dim %arg0, %c1 : tensor<?x?x?xf32>
    %1 = arith.cmpi eq, %dim_2, %dim_5 : index
    cf.assert %1, "mismatched size for broadcast"
    %dim_6 = tensor.dim %arg0, %c2 : tensor<?x?x?xf32>
    %2 = arith.cmpi eq, %dim_3, %dim_6 : index
    cf.assert %2, "mismatched size for broadcast"
    %3 = tensor.empty(%dim, %dim_2, %dim_3) : tensor<?x?x?xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1, %arg0 : tensor<?x?x?xf32>, tensor<?x?x?xf32>) outs(%3 : tensor<?x?x?xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %20 = arith.mulf %in, %in_7 : f32
      linalg.yield %20 : f32
    } -> tensor<?x?x?xf32>
    %5 = tensor.empty(%dim, %dim_2, %dim_3) : tensor<?x?x?xi1>
    %6 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1 : tensor<?x?x?xf32>) outs(%5 : tensor<?x?x?xi1>) {
    ^bb0(%in: f32, %out: i1):
      %20 = arith.cmpf oeq, %in, %cst : f32
      linalg.yield %20 : i1
    } -> tensor<?x?x?xi1>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1 : tensor<?x?x?xf32>) outs(%3 : tensor<?x?x?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = math.log %in : f32
      linalg.yield %20 : f32
    } -> tensor<?x?x?xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1, %7 : tensor<?x?x?xf32>, tensor<?x?x?xf32>) outs(%3 : tensor<?x?x?xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %20 = arith.mulf %in, %in_7 : f32
      linalg.yield %20 : f32
    } -> tensor<?x?x?xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map1, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6, %cst_1, %8 : tensor<?x?x?xi1>, tensor<f32>, tensor<?x?x?xf32>) outs(%3 : tensor<?x?x?xf32>) {
    ^bb0(%in: i1, %in_7: f32, %in_8: f32, %out: f32):
      %20 = arith.select %in, %in_7, %in_8 : f32
      linalg.yield %20 : f32
    } -> tensor<?x?x?xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1, %arg1 : tensor<?x?x?xf32>, tensor<?x?x?xf32>) outs(%5 : tensor<?x?x?xi1>) {
    ^bb0(%in: f32, %in_7: f32, %out: i1):
      %20 = arith.cmpf une, %in, %in_7 : f32
      linalg.yield %20 : i1
    } -> tensor<?x?x?xi1>
    %11 = linalg.generic {indexing_maps = [#map, #map1, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%10, %cst_0, %9 : tensor<?x?x?xi1>, tensor<f32>, tensor<?x?x?xf32>) outs(%3 : tensor<?x?x?xf32>) {
    ^bb0(%in: i1, %in_7: f32, %in_8: f32, %out: f32):
      %20 = arith.select %in, %in_7, %in_8 : f32
      linalg.yield %20 : f32
    } -> tensor<?x?x?xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%11, %4 : tensor<?x?x?xf32>, tensor<?x?x?xf32>) outs(%3 : tensor<?x?x?xf32>) {
    ^bb0(%in: f32, %in_7: f32, %out: f32):
      %20 = arith.subf %in, %in_7 : f32
      linalg.yield %20 : f32
    } -> tensor<?x?x?xf32>
    %13 = tensor.empty() : tensor<f32>
    %14 = linalg.fill ins(%cst : f32) outs(%13 : tensor<f32>) -> tensor<f32>
    %15 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "reduction", "reduction"]} ins(%12 : tensor<?x?x?xf32>) outs(%14 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = arith.addf %in, %out : f32
      linalg.yield %20 : f32
    } -> tensor<f32>
    %16 = arith.muli %dim, %dim_2 : index
    %17 = arith.muli %16, %dim_3 : index
    %18 = arith.index_cast %17 : index to i64
    %19 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = []} ins(%15 : tensor<f32>) outs(%13 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %20 = arith.sitofp %18 : i64 to f32
      %21 = arith.divf %in, %20 : f32
      linalg.yield %21 : f32
    } -> tensor<f32>
    return %19 : tensor<f32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_main(%a0: tensor<?x?x?xf32>, %a1: tensor<?x?x?xf32>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
  %g:2 = autodiff.grad @main(%a0, %a1) {wrt = array<i64: 0, 1>} : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>)
  return %g#0, %g#1 : tensor<?x?x?xf32>, tensor<?x?x?xf32>
}
