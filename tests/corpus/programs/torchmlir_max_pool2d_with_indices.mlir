// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/pooling.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `MaxPool2dWithIndicesModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/pooling.py
// What: `aten.max_pool2d_with_indices` (2x2, stride 1): linalg.pooling_nchw_max, then a 6-d reduction generic recovering the flat argmax index (tensor.extract of x at window positions, cmpf oeq, muli/addi index arithmetic, cmpi/select keeping the first match); two results, the values and the i64 indices.
// Adaptations: input 1x1x8x8 -> 1x1x4x4; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 1x1x4x4 (static; upstream annotates the dims as dynamic); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_max_pool2d_with_indices inputs=signed

#map = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
  func.func @main(%arg0: tensor<1x1x4x4xf32>) -> (tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>) {
    %cst = arith.constant 0xFF800000 : f32
    %c-1_i64 = arith.constant -1 : i64
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    %0 = tensor.empty() : tensor<1x1x3x3xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
    %2 = tensor.empty() : tensor<2x2xf32>
    %3 = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%arg0, %2 : tensor<1x1x4x4xf32>, tensor<2x2xf32>) outs(%1 : tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
    %4 = tensor.empty() : tensor<1x1x3x3xi64>
    %5 = linalg.fill ins(%c-1_i64 : i64) outs(%4 : tensor<1x1x3x3xi64>) -> tensor<1x1x3x3xi64>
    %6 = tensor.empty() : tensor<2x2xi64>
    %7 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%3, %6 : tensor<1x1x3x3xf32>, tensor<2x2xi64>) outs(%5 : tensor<1x1x3x3xi64>) {
    ^bb0(%in: f32, %in_0: i64, %out: i64):
      %8 = linalg.index 2 : index
      %9 = linalg.index 4 : index
      %10 = arith.addi %8, %9 : index
      %11 = linalg.index 3 : index
      %12 = linalg.index 5 : index
      %13 = arith.addi %11, %12 : index
      %extracted = tensor.extract %arg0[%c0, %c0, %10, %13] : tensor<1x1x4x4xf32>
      %14 = arith.cmpf oeq, %extracted, %in : f32
      %15 = arith.muli %10, %c4 : index
      %16 = arith.addi %13, %15 : index
      %17 = arith.index_cast %16 : index to i64
      %18 = arith.select %14, %17, %out : i64
      %19 = arith.cmpi eq, %out, %c-1_i64 : i64
      %20 = arith.select %19, %18, %out : i64
      linalg.yield %20 : i64
    } -> tensor<1x1x3x3xi64>
    return %3, %7 : tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x1x4x4xf32>, %ct0: tensor<1x1x3x3xf32>, %ct1: tensor<1x1x3x3xi64>) -> (tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>, tensor<1x1x4x4xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %ct0, %ct1) {wrt = array<i64: 0>} : (tensor<1x1x4x4xf32>, tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>) -> (tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>, tensor<1x1x4x4xf32>)
  return %r#0, %r#1, %r#2 : tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>, tensor<1x1x4x4xf32>
}
