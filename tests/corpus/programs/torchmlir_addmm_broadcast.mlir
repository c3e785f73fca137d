// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `AddmmModuleBroadcastable`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py
// What: `torch.addmm(M, mat1, mat2, beta=2, alpha=7)` with a 1x2 M: linalg.matmul into a zero fill and a generic broadcasting M with a `(d0, d1) -> (0, d1)` map and the two scalings.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs M 1x2, mat1 3x2, mat2 2x2 (the upstream shapes; static here); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1,2 reference=tm_addmm inputs=signed

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (0, d1)>
  func.func @main(%arg0: tensor<1x2xf32>, %arg1: tensor<3x2xf32>, %arg2: tensor<2x2xf32>) -> tensor<3x2xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 7.000000e+00 : f32
    %cst_1 = arith.constant 2.000000e+00 : f32
    %0 = tensor.empty() : tensor<3x2xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<3x2xf32>) -> tensor<3x2xf32>
    %2 = linalg.matmul ins(%arg1, %arg2 : tensor<3x2xf32>, tensor<2x2xf32>) outs(%1 : tensor<3x2xf32>) -> tensor<3x2xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%2 : tensor<3x2xf32>) outs(%0 : tensor<3x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = arith.mulf %in, %cst_0 : f32
      linalg.yield %7 : f32
    } -> tensor<3x2xf32>
    %4 = tensor.empty() : tensor<1x2xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<1x2xf32>) outs(%4 : tensor<1x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %7 = arith.mulf %in, %cst_1 : f32
      linalg.yield %7 : f32
    } -> tensor<1x2xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %5 : tensor<3x2xf32>, tensor<1x2xf32>) outs(%0 : tensor<3x2xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %7 = arith.addf %in, %in_2 : f32
      linalg.yield %7 : f32
    } -> tensor<3x2xf32>
    return %6 : tensor<3x2xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x2xf32>, %a1: tensor<3x2xf32>, %a2: tensor<2x2xf32>, %ct0: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<1x2xf32>, tensor<3x2xf32>, tensor<2x2xf32>) {
  %r:4 = autodiff.vjp @main(%a0, %a1, %a2, %ct0) {wrt = array<i64: 0, 1, 2>} : (tensor<1x2xf32>, tensor<3x2xf32>, tensor<2x2xf32>, tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<1x2xf32>, tensor<3x2xf32>, tensor<2x2xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<3x2xf32>, tensor<1x2xf32>, tensor<3x2xf32>, tensor<2x2xf32>
}
