// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/reduction.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `MseLossSumReductionWithDifferentElemTypeModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/reduction.py
// What: `aten.mse_loss(reduction=sum)` of an f32 and an f64 tensor: arith.extf of the f32 operand inside the subtract generic, math.fpowi squaring and an f64 sum reduction to a 0-d result.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 2x4 f32, y 2x4 f64 (the upstream shapes; static here); removed the `module { ... }` around @main; added the gradir entry @grad_main (autodiff.grad) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=tm_mse_loss_sum inputs=signed

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> ()>
  func.func @main(%arg0: tensor<2x4xf32>, %arg1: tensor<2x4xf64>) -> tensor<f64> {
    %c2_i64 = arith.constant 2 : i64
    %cst = arith.constant 0.000000e+00 : f64
    %0 = tensor.empty() : tensor<2x4xf64>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<2x4xf32>) outs(%0 : tensor<2x4xf64>) {
    ^bb0(%in: f32, %out: f64):
      %7 = arith.extf %in : f32 to f64
      linalg.yield %7 : f64
    } -> tensor<2x4xf64>
    %2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%1, %arg1 : tensor<2x4xf64>, tensor<2x4xf64>) outs(%0 : tensor<2x4xf64>) {
    ^bb0(%in: f64, %in_0: f64, %out: f64):
      %7 = arith.subf %in, %in_0 : f64
      linalg.yield %7 : f64
    } -> tensor<2x4xf64>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<2x4xf64>) outs(%0 : tensor<2x4xf64>) {
    ^bb0(%in: f64, %out: f64):
      %7 = math.fpowi %in, %c2_i64 : f64, i64
      linalg.yield %7 : f64
    } -> tensor<2x4xf64>
    %4 = tensor.empty() : tensor<f64>
    %5 = linalg.fill ins(%cst : f64) outs(%4 : tensor<f64>) -> tensor<f64>
    %6 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["reduction", "reduction"]} ins(%3 : tensor<2x4xf64>) outs(%5 : tensor<f64>) {
    ^bb0(%in: f64, %out: f64):
      %7 = arith.addf %in, %out : f64
      linalg.yield %7 : f64
    } -> tensor<f64>
    return %6 : tensor<f64>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_main(%a0: tensor<2x4xf32>, %a1: tensor<2x4xf64>) -> (tensor<2x4xf32>, tensor<2x4xf64>) {
  %g:2 = autodiff.grad @main(%a0, %a1) {wrt = array<i64: 0, 1>} : (tensor<2x4xf32>, tensor<2x4xf64>) -> (tensor<2x4xf32>, tensor<2x4xf64>)
  return %g#0, %g#1 : tensor<2x4xf32>, tensor<2x4xf64>
}
