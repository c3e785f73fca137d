// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/constant_alloc.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `AtenDiagEmbedOffsetDiag`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/constant_alloc.py
// What: `aten.diag_embed(a, offset=1, dim1=1, dim2=3)`: a zero tensor.concat for the offset and expand_shape of the input, i64 index vectors from linalg.index (index_cast, addi), an i1 mask generic (cmpi eq) with expand_shape, and a select generic between the broadcast input and a 0-d zero.
// Adaptations: input 2x3x4 -> 2x2x3; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 2x2x3 (static; upstream annotates the dims as dynamic); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_diag_embed_offset inputs=signed

#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0, d1) -> (d0, 0)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, d3)>
#map5 = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
#map6 = affine_map<(d0, d1, d2, d3) -> ()>
#map7 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
  func.func @main(%arg0: tensor<2x2x3xf32>) -> tensor<2x4x2x4xf32> {
    %cst = arith.constant dense<0.000000e+00> : tensor<2x2x1xf32>
    %cst_0 = arith.constant dense<0.000000e+00> : tensor<f32>
    %c1_i64 = arith.constant 1 : i64
    %concat = tensor.concat dim(2) %cst, %arg0 : (tensor<2x2x1xf32>, tensor<2x2x3xf32>) -> tensor<2x2x4xf32>
    %expanded = tensor.expand_shape %concat [[0], [1, 2], [3]] output_shape [2, 1, 2, 4] : tensor<2x2x4xf32> into tensor<2x1x2x4xf32>
    %0 = tensor.empty() : tensor<4xi64>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%0 : tensor<4xi64>) {
    ^bb0(%out: i64):
      %7 = linalg.index 0 : index
      %8 = arith.index_cast %7 : index to i64
      linalg.yield %8 : i64
    } -> tensor<4xi64>
    %2 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} outs(%0 : tensor<4xi64>) {
    ^bb0(%out: i64):
      %7 = linalg.index 0 : index
      %8 = arith.index_cast %7 : index to i64
      %9 = arith.addi %8, %c1_i64 : i64
      linalg.yield %9 : i64
    } -> tensor<4xi64>
    %expanded_1 = tensor.expand_shape %2 [[0, 1]] output_shape [4, 1] : tensor<4xi64> into tensor<4x1xi64>
    %3 = tensor.empty() : tensor<4x4xi1>
    %4 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel"]} ins(%1, %expanded_1 : tensor<4xi64>, tensor<4x1xi64>) outs(%3 : tensor<4x4xi1>) {
    ^bb0(%in: i64, %in_3: i64, %out: i1):
      %7 = arith.cmpi eq, %in, %in_3 : i64
      linalg.yield %7 : i1
    } -> tensor<4x4xi1>
    %expanded_2 = tensor.expand_shape %4 [[0, 1], [2, 3]] output_shape [1, 4, 1, 4] : tensor<4x4xi1> into tensor<1x4x1x4xi1>
    %5 = tensor.empty() : tensor<2x4x2x4xf32>
    %6 = linalg.generic {indexing_maps = [#map4, #map5, #map6, #map7], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%expanded_2, %expanded, %cst_0 : tensor<1x4x1x4xi1>, tensor<2x1x2x4xf32>, tensor<f32>) outs(%5 : tensor<2x4x2x4xf32>) {
    ^bb0(%in: i1, %in_3: f32, %in_4: f32, %out: f32):
      %7 = arith.select %in, %in_3, %in_4 : f32
      linalg.yield %7 : f32
    } -> tensor<2x4x2x4xf32>
    return %6 : tensor<2x4x2x4xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x2x3xf32>, %ct0: tensor<2x4x2x4xf32>) -> (tensor<2x4x2x4xf32>, tensor<2x2x3xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<2x2x3xf32>, tensor<2x4x2x4xf32>) -> (tensor<2x4x2x4xf32>, tensor<2x2x3xf32>)
  return %r#0, %r#1 : tensor<2x4x2x4xf32>, tensor<2x2x3xf32>
}
