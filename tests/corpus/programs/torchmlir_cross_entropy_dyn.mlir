// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/reduction.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `CrossEntropyLossModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/reduction.py
// What: `aten.cross_entropy_loss` (mean) on `tensor<?x?xf32>` with `tensor<?xi64>` targets: log-softmax (max/argmax reduction, exp, sum, log), a gather generic with tensor.extract at the targets, the ignore_index mask, sum and count reductions (sitofp) and a divide, to a 0-d result.
// Adaptations: batch 8 x 2 classes -> 6 x 3; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors", dynamic_shapes=({0: a, 1: b}, {0: a}))` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 6x3 and targets 6 with both dims dynamic (as upstream); removed the `module { ... }` around @main; added the gradir entry @grad_main (autodiff.grad) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_cross_entropy inputs=tm_cross_entropy_dyn

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
#map3 = affine_map<(d0) -> (d0)>
#map4 = affine_map<(d0) -> ()>
#map5 = affine_map<() -> ()>
  func.func @main(%arg0: tensor<?x?xf32>, %arg1: tensor<?xi64>) -> tensor<f32> {
    %c-100_i64 = arith.constant -100 : i64
    %c0 = arith.constant 0 : index
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0xFF800000 : f32
    %c1 = arith.constant 1 : index
    %cst_0 = arith.constant 0.000000e+00 : f32
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_2 = arith.constant dense<0> : tensor<i64>
    %dim = tensor.dim %arg0, %c0 : tensor<?x?xf32>
    %0 = tensor.empty(%dim) : tensor<?xi64>
    %1 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<?xi64>) -> tensor<?xi64>
    %2 = tensor.empty(%dim) : tensor<?xf32>
    %3 = linalg.fill ins(%cst : f32) outs(%2 : tensor<?xf32>) -> tensor<?xf32>
    %4:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<?x?xf32>) outs(%3, %1 : tensor<?xf32>, tensor<?xi64>) {
    ^bb0(%in: f32, %out: f32, %out_6: i64):
      %31 = linalg.index 1 : index
      %32 = arith.index_cast %31 : index to i64
      %33 = arith.maximumf %in, %out : f32
      %34 = arith.cmpf ogt, %in, %out : f32
      %35 = arith.select %34, %32, %out_6 : i64
      linalg.yield %33, %35 : f32, i64
    } -> (tensor<?xf32>, tensor<?xi64>)
    %expanded = tensor.expand_shape %4#0 [[0, 1]] output_shape [%dim, 1] : tensor<?xf32> into tensor<?x1xf32>
    %dim_3 = tensor.dim %arg0, %c1 : tensor<?x?xf32>
    %5 = tensor.empty(%dim, %dim_3) : tensor<?x?xf32>
    %6 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %expanded : tensor<?x?xf32>, tensor<?x1xf32>) outs(%5 : tensor<?x?xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %31 = arith.subf %in, %in_6 : f32
      linalg.yield %31 : f32
    } -> tensor<?x?xf32>
    %7 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%6 : tensor<?x?xf32>) outs(%5 : tensor<?x?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %31 = math.exp %in : f32
      linalg.yield %31 : f32
    } -> tensor<?x?xf32>
    %8 = tensor.empty(%dim) : tensor<?x1xf32>
    %9 = linalg.fill ins(%cst_0 : f32) outs(%8 : tensor<?x1xf32>) -> tensor<?x1xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%7 : tensor<?x?xf32>) outs(%9 : tensor<?x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %31 = arith.addf %in, %out : f32
      linalg.yield %31 : f32
    } -> tensor<?x1xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%10 : tensor<?x1xf32>) outs(%8 : tensor<?x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %31 = math.log %in : f32
      linalg.yield %31 : f32
    } -> tensor<?x1xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%6, %11 : tensor<?x?xf32>, tensor<?x1xf32>) outs(%5 : tensor<?x?xf32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %31 = arith.subf %in, %in_6 : f32
      linalg.yield %31 : f32
    } -> tensor<?x?xf32>
    %dim_4 = tensor.dim %arg1, %c0 : tensor<?xi64>
    %13 = tensor.empty(%dim_4) : tensor<?xi1>
    %14 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%arg1 : tensor<?xi64>) outs(%13 : tensor<?xi1>) {
    ^bb0(%in: i64, %out: i1):
      %31 = arith.cmpi ne, %in, %c-100_i64 : i64
      linalg.yield %31 : i1
    } -> tensor<?xi1>
    %15 = tensor.empty(%dim_4) : tensor<?xi64>
    %16 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel"]} ins(%14, %arg1, %cst_2 : tensor<?xi1>, tensor<?xi64>, tensor<i64>) outs(%15 : tensor<?xi64>) {
    ^bb0(%in: i1, %in_6: i64, %in_7: i64, %out: i64):
      %31 = arith.select %in, %in_6, %in_7 : i64
      linalg.yield %31 : i64
    } -> tensor<?xi64>
    %expanded_5 = tensor.expand_shape %16 [[0, 1]] output_shape [%dim_4, 1] : tensor<?xi64> into tensor<?x1xi64>
    %17 = tensor.empty(%dim_4) : tensor<?x1xf32>
    %18 = linalg.fill ins(%cst_0 : f32) outs(%17 : tensor<?x1xf32>) -> tensor<?x1xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%expanded_5 : tensor<?x1xi64>) outs(%18 : tensor<?x1xf32>) {
    ^bb0(%in: i64, %out: f32):
      %31 = linalg.index 0 : index
      %32 = arith.index_cast %in : i64 to index
      %33 = arith.cmpi slt, %32, %dim_3 : index
      cf.assert %33, "index must be smaller than dim size"
      %34 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %34, "index must be larger or equal to 0"
      %extracted = tensor.extract %12[%31, %32] : tensor<?x?xf32>
      linalg.yield %extracted : f32
    } -> tensor<?x1xf32>
    %collapsed = tensor.collapse_shape %19 [[0, 1]] : tensor<?x1xf32> into tensor<?xf32>
    %20 = tensor.empty(%dim_4) : tensor<?xf32>
    %21 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%collapsed : tensor<?xf32>) outs(%20 : tensor<?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %31 = arith.negf %in : f32
      linalg.yield %31 : f32
    } -> tensor<?xf32>
    %22 = linalg.generic {indexing_maps = [#map3, #map3, #map4, #map3], iterator_types = ["parallel"]} ins(%14, %21, %cst_1 : tensor<?xi1>, tensor<?xf32>, tensor<f32>) outs(%20 : tensor<?xf32>) {
    ^bb0(%in: i1, %in_6: f32, %in_7: f32, %out: f32):
      %31 = arith.select %in, %in_6, %in_7 : f32
      linalg.yield %31 : f32
    } -> tensor<?xf32>
    %23 = tensor.empty() : tensor<i64>
    %24 = linalg.fill ins(%c0_i64 : i64) outs(%23 : tensor<i64>) -> tensor<i64>
    %25 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["reduction"]} ins(%14 : tensor<?xi1>) outs(%24 : tensor<i64>) {
    ^bb0(%in: i1, %out: i64):
      %31 = arith.extui %in : i1 to i64
      %32 = arith.addi %31, %out : i64
      linalg.yield %32 : i64
    } -> tensor<i64>
    %26 = tensor.empty() : tensor<f32>
    %27 = linalg.generic {indexing_maps = [#map5, #map5], iterator_types = []} ins(%25 : tensor<i64>) outs(%26 : tensor<f32>) {
    ^bb0(%in: i64, %out: f32):
      %31 = arith.sitofp %in : i64 to f32
      linalg.yield %31 : f32
    } -> tensor<f32>
    %28 = linalg.fill ins(%cst_0 : f32) outs(%26 : tensor<f32>) -> tensor<f32>
    %29 = linalg.generic {indexing_maps = [#map3, #map4], iterator_types = ["reduction"]} ins(%22 : tensor<?xf32>) outs(%28 : tensor<f32>) {
    ^bb0(%in: f32, %out: f32):
      %31 = arith.addf %in, %out : f32
      linalg.yield %31 : f32
    } -> tensor<f32>
    %30 = linalg.generic {indexing_maps = [#map5, #map5, #map5], iterator_types = []} ins(%29, %27 : tensor<f32>, tensor<f32>) outs(%26 : tensor<f32>) {
    ^bb0(%in: f32, %in_6: f32, %out: f32):
      %31 = arith.divf %in, %in_6 : f32
      linalg.yield %31 : f32
    } -> tensor<f32>
    return %30 : tensor<f32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @grad_main(%a0: tensor<?x?xf32>, %a1: tensor<?xi64>) -> (tensor<?x?xf32>) {
  %g:1 = autodiff.grad @main(%a0, %a1) {wrt = array<i64: 0>} : (tensor<?x?xf32>, tensor<?xi64>) -> (tensor<?x?xf32>)
  return %g#0 : tensor<?x?xf32>
}
