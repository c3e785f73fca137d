// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `SoftmaxIntModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py
// What: `torch.nn.Softmax(2)` on a fully dynamic 3-d tensor: a two-result max/argmax reduction generic (linalg.index, arith.index_cast, cmpf ogt + select into an i64 output), tensor.expand_shape to a size-1 dim, broadcast subtract with a `(d0, d1, 0)` map, exp, sum reduction into `?x?x1` and divide, all on `tensor<?x?x?xf32>` with tensor.dim sizes.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors", dynamic_shapes=({0: a, 1: b, 2: c},))` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 3x2x4 with all three dims dynamic; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_softmax_last inputs=tm_dyn_3x2x4

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
  func.func @main(%arg0: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0xFF800000 : f32
    %c2 = arith.constant 2 : index
    %cst_0 = arith.constant 0.000000e+00 : f32
    %dim = tensor.dim %arg0, %c0 : tensor<?x?x?xf32>
    %dim_1 = tensor.dim %arg0, %c1 : tensor<?x?x?xf32>
    %0 = tensor.empty(%dim, %dim_1) : tensor<?x?xi64>
    %1 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<?x?xi64>) -> tensor<?x?xi64>
    %2 = tensor.empty(%dim, %dim_1) : tensor<?x?xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<?x?xf32>) -> tensor<?x?xf32>
    %4:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 : tensor<?x?x?xf32>) outs(%3, %1 : tensor<?x?xf32>, tensor<?x?xi64>) {
    ^bb0(%in: f32, %out: f32, %out_3: i64):
      %12 = linalg.index 2 : index
      %13 = arith.index_cast %12 : index to i64
      %14 = arith.maximumf %in, %out : f32
      %15 = arith.cmpf ogt, %in, %out : f32
      %16 = arith.select %15, %13, %out_3 : i64
      linalg.yield %14, %16 : f32, i64
    } -> (tensor<?x?xf32>, tensor<?x?xi64>)
    %expanded = tensor.expand_shape %4#0 [[0], [1, 2]] output_shape [%dim, %dim_1, 1] : tensor<?x?xf32> into tensor<?x?x1xf32>
    %dim_2 = tensor.dim %arg0, %c2 : tensor<?x?x?xf32>
    %5 = tensor.empty(%dim, %dim_1, %dim_2) : tensor<?x?x?xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0, %expanded : tensor<?x?x?xf32>, tensor<?x?x1xf32>) outs(%5 : tensor<?x?x?xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %12 = arith.subf %in, %in_3 : f32
      linalg.yield %12 : f32
    } -> tensor<?x?x?xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%6 : tensor<?x?x?xf32>) outs(%5 : tensor<?x?x?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = math.exp %in : f32
      linalg.yield %12 : f32
    } -> tensor<?x?x?xf32>
    %8 = tensor.empty(%dim, %dim_1) : tensor<?x?x1xf32>
    %9 = linalg.fill ins(%cst_0 : f32) outs(%8 : tensor<?x?x1xf32>) -> tensor<?x?x1xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%7 : tensor<?x?x?xf32>) outs(%9 : tensor<?x?x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %12 = arith.addf %in, %out : f32
      linalg.yield %12 : f32
    } -> tensor<?x?x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%7, %10 : tensor<?x?x?xf32>, tensor<?x?x1xf32>) outs(%5 : tensor<?x?x?xf32>) {
    ^bb0(%in: f32, %in_3: f32, %out: f32):
      %12 = arith.divf %in, %in_3 : f32
      linalg.yield %12 : f32
    } -> tensor<?x?x?xf32>
    return %11 : tensor<?x?x?xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<?x?x?xf32>, %ct0: tensor<?x?x?xf32>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>)
  return %r#0, %r#1 : tensor<?x?x?xf32>, tensor<?x?x?xf32>
}
