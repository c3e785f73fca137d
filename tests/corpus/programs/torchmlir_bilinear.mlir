// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/matmul.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `AtenBilinear2DBiasModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/matmul.py
// What: `aten.bilinear` with bias: expand_shape of the inputs and weight, multiply generics and two sum reductions (`_trilinear` decomposition), then the bias add.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs input1 2x4, input2 2x5, weight 3x4x5, bias 3 (the upstream shapes); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1,2,3 reference=tm_bilinear inputs=signed

#map = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, 0)>
#map1 = affine_map<(d0, d1, d2, d3) -> (0, d1, d2, d3)>
#map2 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#map3 = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#map5 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map6 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map7 = affine_map<(d0, d1) -> (d0, d1)>
#map8 = affine_map<(d0, d1) -> (d1)>
  func.func @main(%arg0: tensor<2x4xf32>, %arg1: tensor<2x5xf32>, %arg2: tensor<3x4x5xf32>, %arg3: tensor<3xf32>) -> tensor<2x3xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %expanded = tensor.expand_shape %arg0 [[0], [1, 2, 3]] output_shape [2, 1, 4, 1] : tensor<2x4xf32> into tensor<2x1x4x1xf32>
    %expanded_0 = tensor.expand_shape %arg2 [[0, 1], [2], [3]] output_shape [1, 3, 4, 5] : tensor<3x4x5xf32> into tensor<1x3x4x5xf32>
    %expanded_1 = tensor.expand_shape %arg1 [[0], [1, 2, 3]] output_shape [2, 1, 1, 5] : tensor<2x5xf32> into tensor<2x1x1x5xf32>
    %0 = tensor.empty() : tensor<2x3x4x5xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded, %expanded_0 : tensor<2x1x4x1xf32>, tensor<1x3x4x5xf32>) outs(%0 : tensor<2x3x4x5xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %10 = arith.mulf %in, %in_2 : f32
      linalg.yield %10 : f32
    } -> tensor<2x3x4x5xf32>
    %2 = linalg.generic {indexing_maps = [#map2, #map3, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%1, %expanded_1 : tensor<2x3x4x5xf32>, tensor<2x1x1x5xf32>) outs(%0 : tensor<2x3x4x5xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %10 = arith.mulf %in, %in_2 : f32
      linalg.yield %10 : f32
    } -> tensor<2x3x4x5xf32>
    %3 = tensor.empty() : tensor<2x3x4xf32>
    %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
    %5 = linalg.generic {indexing_maps = [#map2, #map4], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%2 : tensor<2x3x4x5xf32>) outs(%4 : tensor<2x3x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = arith.addf %in, %out : f32
      linalg.yield %10 : f32
    } -> tensor<2x3x4xf32>
    %6 = tensor.empty() : tensor<2x3xf32>
    %7 = linalg.fill ins(%cst : f32) outs(%6 : tensor<2x3xf32>) -> tensor<2x3xf32>
    %8 = linalg.generic {indexing_maps = [#map5, #map6], iterator_types = ["parallel", "parallel", "reduction"]} ins(%5 : tensor<2x3x4xf32>) outs(%7 : tensor<2x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %10 = arith.addf %in, %out : f32
      linalg.yield %10 : f32
    } -> tensor<2x3xf32>
    %9 = linalg.generic {indexing_maps = [#map7, #map8, #map7], iterator_types = ["parallel", "parallel"]} ins(%8, %arg3 : tensor<2x3xf32>, tensor<3xf32>) outs(%6 : tensor<2x3xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %10 = arith.addf %in, %in_2 : f32
      linalg.yield %10 : f32
    } -> tensor<2x3xf32>
    return %9 : tensor<2x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x4xf32>, %a1: tensor<2x5xf32>, %a2: tensor<3x4x5xf32>, %a3: tensor<3xf32>, %ct0: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x5xf32>, tensor<3x4x5xf32>, tensor<3xf32>) {
  %r:5 = autodiff.vjp @main(%a0, %a1, %a2, %a3, %ct0) {wrt = array<i64: 0, 1, 2, 3>} : (tensor<2x4xf32>, tensor<2x5xf32>, tensor<3x4x5xf32>, tensor<3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x5xf32>, tensor<3x4x5xf32>, tensor<3xf32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4 : tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x5xf32>, tensor<3x4x5xf32>, tensor<3xf32>
}
