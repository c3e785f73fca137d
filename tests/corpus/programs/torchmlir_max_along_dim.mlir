// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/reduction.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `ReduceMaxAlongDim`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/reduction.py
// What: `aten.max(a, 1)[0]` in f64: a two-result max/argmax reduction generic over the middle dim (`(d0, d1, d2) -> (d0, d2)`), only the values returned.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 3x4x2 f64 (upstream 3x4x5; static here); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_max_dim1 inputs=signed

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2)>
  func.func @main(%arg0: tensor<3x4x2xf64>) -> tensor<3x2xf64> {
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0xFFF0000000000000 : f64
    %0 = tensor.empty() : tensor<3x2xi64>
    %1 = linalg.fill ins(%c0_i64 : i64) outs(%0 : tensor<3x2xi64>) -> tensor<3x2xi64>
    %2 = tensor.empty() : tensor<3x2xf64>
    %3 = linalg.fill ins(%cst : f64) outs(%2 : tensor<3x2xf64>) -> tensor<3x2xf64>
    %4:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "reduction", "parallel"]} ins(%arg0 : tensor<3x4x2xf64>) outs(%3, %1 : tensor<3x2xf64>, tensor<3x2xi64>) {
    ^bb0(%in: f64, %out: f64, %out_0: i64):
      %5 = linalg.index 1 : index
      %6 = arith.index_cast %5 : index to i64
      %7 = arith.maximumf %in, %out : f64
      %8 = arith.cmpf ogt, %in, %out : f64
      %9 = arith.select %8, %6, %out_0 : i64
      linalg.yield %7, %9 : f64, i64
    } -> (tensor<3x2xf64>, tensor<3x2xi64>)
    return %4#0 : tensor<3x2xf64>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<3x4x2xf64>, %ct0: tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<3x4x2xf64>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<3x4x2xf64>, tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<3x4x2xf64>)
  return %r#0, %r#1 : tensor<3x2xf64>, tensor<3x4x2xf64>
}
