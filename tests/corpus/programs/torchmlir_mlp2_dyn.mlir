// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/mlp.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `Mlp2LayerModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/mlp.py
// What: two `nn.Linear` layers with tanh on a dynamic batch (`tensor<?x3xf32>`): linalg.transpose of the weights, linalg.matmul into dynamic fills, bias broadcast generics and math.tanh.
// Adaptations: the module's two `nn.Linear` layers are called as `torch.tanh(F.linear(x, w, b))` with the weights and biases as forward arguments; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors", dynamic_shapes=({0: a}, None, None, None, None))` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 5x3 with the batch dynamic (as upstream), weights 5x3 and 2x5, biases 5 and 2; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1,2,3,4 reference=tm_mlp2 inputs=tm_mlp2_dyn

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
  func.func @main(%arg0: tensor<?x3xf32>, %arg1: tensor<5x3xf32>, %arg2: tensor<5xf32>, %arg3: tensor<2x5xf32>, %arg4: tensor<2xf32>) -> tensor<?x2xf32> {
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f32
    %0 = tensor.empty() : tensor<3x5xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<5x3xf32>) outs(%0 : tensor<3x5xf32>) permutation = [1, 0] 
    %dim = tensor.dim %arg0, %c0 : tensor<?x3xf32>
    %1 = tensor.empty(%dim) : tensor<?x5xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<?x5xf32>) -> tensor<?x5xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<?x3xf32>, tensor<3x5xf32>) outs(%2 : tensor<?x5xf32>) -> tensor<?x5xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %arg2 : tensor<?x5xf32>, tensor<5xf32>) outs(%1 : tensor<?x5xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %12 = arith.addf %in, %in_1 : f32
      linalg.yield %12 : f32
    } -> tensor<?x5xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%4 : tensor<?x5xf32>) outs(%1 : tensor<?x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = math.tanh %in : f32
      linalg.yield %12 : f32
    } -> tensor<?x5xf32>
    %6 = tensor.empty() : tensor<5x2xf32>
    %transposed_0 = linalg.transpose ins(%arg3 : tensor<2x5xf32>) outs(%6 : tensor<5x2xf32>) permutation = [1, 0] 
    %7 = tensor.empty(%dim) : tensor<?x2xf32>
    %8 = linalg.fill ins(%cst : f32) outs(%7 : tensor<?x2xf32>) -> tensor<?x2xf32>
    %9 = linalg.matmul ins(%5, %transposed_0 : tensor<?x5xf32>, tensor<5x2xf32>) outs(%8 : tensor<?x2xf32>) -> tensor<?x2xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %arg4 : tensor<?x2xf32>, tensor<2xf32>) outs(%7 : tensor<?x2xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %12 = arith.addf %in, %in_1 : f32
      linalg.yield %12 : f32
    } -> tensor<?x2xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<?x2xf32>) outs(%7 : tensor<?x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = math.tanh %in : f32
      linalg.yield %12 : f32
    } -> tensor<?x2xf32>
    return %11 : tensor<?x2xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<?x3xf32>, %a1: tensor<5x3xf32>, %a2: tensor<5xf32>, %a3: tensor<2x5xf32>, %a4: tensor<2xf32>, %ct0: tensor<?x2xf32>) -> (tensor<?x2xf32>, tensor<?x3xf32>, tensor<5x3xf32>, tensor<5xf32>, tensor<2x5xf32>, tensor<2xf32>) {
  %r:6 = autodiff.vjp @main(%a0, %a1, %a2, %a3, %a4, %ct0) {wrt = array<i64: 0, 1, 2, 3, 4>} : (tensor<?x3xf32>, tensor<5x3xf32>, tensor<5xf32>, tensor<2x5xf32>, tensor<2xf32>, tensor<?x2xf32>) -> (tensor<?x2xf32>, tensor<?x3xf32>, tensor<5x3xf32>, tensor<5xf32>, tensor<2x5xf32>, tensor<2xf32>)
  return %r#0, %r#1, %r#2, %r#3, %r#4, %r#5 : tensor<?x2xf32>, tensor<?x3xf32>, tensor<5x3xf32>, tensor<5xf32>, tensor<2x5xf32>, tensor<2xf32>
}
