// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/reduction.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `CrossEntropyLossNoReductionModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/reduction.py
// What: `aten.cross_entropy_loss(reduction=none)`: log-softmax (max/argmax reduction, exp, sum, log), a gather at the targets (linalg.index, index_cast, cf.assert bounds checks, tensor.extract), negf and the ignore_index mask (cmpi + select).
// Adaptations: input 8x2 -> 4x3; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 4x3, target 4 i64 (static; upstream annotates the dims as dynamic); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_cross_entropy_none inputs=tm_cross_entropy_none

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
#map3 = affine_map<(d0) -> (d0)>
#map4 = affine_map<(d0) -> ()>
  func.func @main(%arg0: tensor<4x3xf32>, %arg1: tensor<4xi64>) -> tensor<4xf32> {
    %c-100_i64 = arith.constant -100 : i64
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0xFF800000 : f32
    %c3 = arith.constant 3 : index
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_2 = arith.constant dense<0> : tensor<i64>
    %0 = tensor.empty() : tensor<4xi64>
    %1 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<4xi64>) -> tensor<4xi64>
    %2 = tensor.empty() : tensor<4xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<4xf32>) -> tensor<4xf32>
    %4:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<4x3xf32>) outs(%3, %1 : tensor<4xf32>, tensor<4xi64>) {
    ^bb0(%in: f32, %out: f32, %out_4: i64):
      %19 = linalg.index 1 : index
      %20 = arith.index_cast %19 : index to i64
      %21 = arith.maximumf %in, %out : f32
      %22 = arith.cmpf ogt, %in, %out : f32
      %23 = arith.select %22, %20, %out_4 : i64
      linalg.yield %21, %23 : f32, i64
    } -> (tensor<4xf32>, tensor<4xi64>)
    %expanded = tensor.expand_shape %4#0 [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
    %5 = tensor.empty() : tensor<4x3xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %expanded : tensor<4x3xf32>, tensor<4x1xf32>) outs(%5 : tensor<4x3xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %19 = arith.subf %in, %in_4 : f32
      linalg.yield %19 : f32
    } -> tensor<4x3xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<4x3xf32>) outs(%5 : tensor<4x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %19 = math.exp %in : f32
      linalg.yield %19 : f32
    } -> tensor<4x3xf32>
    %8 = tensor.empty() : tensor<4x1xf32>
    %9 = linalg.fill ins(%cst_0 : f32) outs(%8 : tensor<4x1xf32>) -> tensor<4x1xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%7 : tensor<4x3xf32>) outs(%9 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %19 = arith.addf %in, %out : f32
      linalg.yield %19 : f32
    } -> tensor<4x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<4x1xf32>) outs(%8 : tensor<4x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %19 = math.log %in : f32
      linalg.yield %19 : f32
    } -> tensor<4x1xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %11 : tensor<4x3xf32>, tensor<4x1xf32>) outs(%5 : tensor<4x3xf32>) {
    ^bb0(%in: f32, %in_4: f32, %out: f32):
      %19 = arith.subf %in, %in_4 : f32
      linalg.yield %19 : f32
    } -> tensor<4x3xf32>
    %13 = tensor.empty() : tensor<4xi1>
    %14 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%arg1 : tensor<4xi64>) outs(%13 : tensor<4xi1>) {
    ^bb0(%in: i64, %out: i1):
      %19 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %19 : i1
    } -> tensor<4xi1>
    %15 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel"]} ins(%14, %arg1, %cst_2 : tensor<4xi1>, tensor<4xi64>, tensor<i64>) outs(%0 : tensor<4xi64>) {
    ^bb0(%in: i1, %in_4: i64, %in_5: i64, %out: i64):
      %19 = arith.select %in, %in_4, %in_5 : i64
      linalg.yield %19 : i64
    } -> tensor<4xi64>
    %expanded_3 = tensor.expand_shape %15 [[0, 1]] output_shape [4, 1] : tensor<4xi64> into tensor<4x1xi64>
    %16 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded_3 : tensor<4x1xi64>) outs(%9 : tensor<4x1xf32>) {
    ^bb0(%in: i64, %out: f32):
      %19 = linalg.index 0 : index
      %20 = arith.index_cast %in : i64 to index
      %21 = arith.cmpi slt, %20, %c3 : index
      cf.assert %21, "index must be smaller than dim size"
      %22 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %22, "index must be larger or equal to 0"
      %extracted = tensor.extract %12[%19, %20] : tensor<4x3xf32>
      linalg.yield %extracted : f32
    } -> tensor<4x1xf32>
    %collapsed = tensor.collapse_shape %16 [[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
    %17 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%collapsed : tensor<4xf32>) outs(%2 : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %19 = arith.negf %in : f32
      linalg.yield %19 : f32
    } -> tensor<4xf32>
    %18 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel"]} ins(%14, %17, %cst_1 : tensor<4xi1>, tensor<4xf32>, tensor<f32>) outs(%2 : tensor<4xf32>) {
    ^bb0(%in: i1, %in_4: f32, %in_5: f32, %out: f32):
      %19 = arith.select %in, %in_4, %in_5 : f32
      linalg.yield %19 : f32
    } -> tensor<4xf32>
    return %18 : tensor<4xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<4x3xf32>, %a1: tensor<4xi64>, %ct0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4x3xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 0>} : (tensor<4x3xf32>, tensor<4xi64>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4x3xf32>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4x3xf32>
}
