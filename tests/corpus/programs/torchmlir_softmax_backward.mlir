// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/backprop.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `SoftmaxBackwardModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/backprop.py
// What: `aten._softmax_backward_data(grad_output, output, dim=1)`: product generic, sum reduction over dim 1, broadcast subtract and multiply.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 3x2x4 and 3x2x4 (the upstream shapes; static here); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=tm_softmax_backward inputs=signed

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
  func.func @main(%arg0: tensor<3x2x4xf32>, %arg1: tensor<3x2x4xf32>) -> tensor<3x2x4xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<3x2x4xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %arg1 : tensor<3x2x4xf32>, tensor<3x2x4xf32>) outs(%0 : tensor<3x2x4xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %7 = arith.mulf %in, %in_0 : f32
      linalg.yield %7 : f32
    } -> tensor<3x2x4xf32>
    %2 = tensor.empty() : tensor<3x1x4xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<3x1x4xf32>) -> tensor<3x1x4xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "reduction", "parallel"]} ins(%1 : tensor<3x2x4xf32>) outs(%3 : tensor<3x1x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = arith.addf %in, %out : f32
      linalg.yield %7 : f32
    } -> tensor<3x1x4xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1, %4 : tensor<3x2x4xf32>, tensor<3x1x4xf32>) outs(%0 : tensor<3x2x4xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %7 = arith.mulf %in, %in_0 : f32
      linalg.yield %7 : f32
    } -> tensor<3x2x4xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%1, %5 : tensor<3x2x4xf32>, tensor<3x2x4xf32>) outs(%0 : tensor<3x2x4xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %7 = arith.subf %in, %in_0 : f32
      linalg.yield %7 : f32
    } -> tensor<3x2x4xf32>
    return %6 : tensor<3x2x4xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<3x2x4xf32>, %a1: tensor<3x2x4xf32>, %ct0: tensor<3x2x4xf32>) -> (tensor<3x2x4xf32>, tensor<3x2x4xf32>, tensor<3x2x4xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 0, 1>} : (tensor<3x2x4xf32>, tensor<3x2x4xf32>, tensor<3x2x4xf32>) -> (tensor<3x2x4xf32>, tensor<3x2x4xf32>, tensor<3x2x4xf32>)
  return %r#0, %r#1, %r#2 : tensor<3x2x4xf32>, tensor<3x2x4xf32>, tensor<3x2x4xf32>
}
