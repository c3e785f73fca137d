// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/nll_loss.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `NllLossModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/nll_loss.py
// What: `aten.nll_loss_forward(reduction=none, ignore_index=2)`: an i1 mask generic (cmpi ne), select of the target, a gather generic (linalg.index, index_cast, cf.assert bounds checks, tensor.extract), negf, a masked select; it returns a constant `tensor<f32>` (total_weight) as its second result.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 2x3, target 2 i64 (static; upstream annotates the dims as dynamic); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_nll_loss inputs=tm_nll_loss

#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> ()>
#map2 = affine_map<(d0, d1) -> (d0, d1)>
  func.func @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2xi64>) -> (tensor<2xf32>, tensor<f32>) {
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %c3 = arith.constant 3 : index
    %c0_i64 = arith.constant 0 : i64
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_1 = arith.constant dense<0> : tensor<i64>
    %0 = tensor.empty() : tensor<2xi1>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%arg1 : tensor<2xi64>) outs(%0 : tensor<2xi1>) {
    ^bb0(%in: i64, %out: i1):
      %10 = arith.cmpi ne, %in, %c2_i64 : i64
      linalg.yield %10 : i1
    } -> tensor<2xi1>
    %2 = tensor.empty() : tensor<2xi64>
    %3 = linalg.generic {indexing_maps = [#map, #map, #map1, #map], iterator_types = ["parallel"]} ins(%1, %arg1, %cst_1 : tensor<2xi1>, tensor<2xi64>, tensor<i64>) outs(%2 : tensor<2xi64>) {
    ^bb0(%in: i1, %in_2: i64, %in_3: i64, %out: i64):
      %10 = arith.select %in, %in_2, %in_3 : i64
      linalg.yield %10 : i64
    } -> tensor<2xi64>
    %expanded = tensor.expand_shape %3 [[0, 1]] output_shape [2, 1] : tensor<2xi64> into tensor<2x1xi64>
    %4 = tensor.empty() : tensor<2x1xf32>
    %5 = linalg.fill ins(%cst : f32) outs(%4 : tensor<2x1xf32>) -> tensor<2x1xf32>
    %6 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel", "parallel"]} ins(%expanded : tensor<2x1xi64>) outs(%5 : tensor<2x1xf32>) {
    ^bb0(%in: i64, %out: f32):
      %10 = linalg.index 0 : index
      %11 = arith.index_cast %in : i64 to index
      %12 = arith.cmpi slt, %11, %c3 : index
      cf.assert %12, "index must be smaller than dim size"
      %13 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %13, "index must be larger or equal to 0"
      %extracted = tensor.extract %arg0[%10, %11] : tensor<2x3xf32>
      linalg.yield %extracted : f32
    } -> tensor<2x1xf32>
    %collapsed = tensor.collapse_shape %6 [[0, 1]] : tensor<2x1xf32> into tensor<2xf32>
    %7 = tensor.empty() : tensor<2xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%collapsed : tensor<2xf32>) outs(%7 : tensor<2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = arith.negf %in : f32
      linalg.yield %10 : f32
    } -> tensor<2xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map, #map1, #map], iterator_types = ["parallel"]} ins(%1, %8, %cst_0 : tensor<2xi1>, tensor<2xf32>, tensor<f32>) outs(%7 : tensor<2xf32>) {
    ^bb0(%in: i1, %in_2: f32, %in_3: f32, %out: f32):
      %10 = arith.select %in, %in_2, %in_3 : f32
      linalg.yield %10 : f32
    } -> tensor<2xf32>
    return %9, %cst_0 : tensor<2xf32>, tensor<f32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x3xf32>, %a1: tensor<2xi64>, %ct0: tensor<2xf32>, %ct1: tensor<f32>) -> (tensor<2xf32>, tensor<f32>, tensor<2x3xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %a1, %ct0, %ct1) {wrt = array<i64: 0>} : (tensor<2x3xf32>, tensor<2xi64>, tensor<2xf32>, tensor<f32>) -> (tensor<2xf32>, tensor<f32>, tensor<2x3xf32>)
  return %r#0, %r#1, %r#2 : tensor<2xf32>, tensor<f32>, tensor<2x3xf32>
}
