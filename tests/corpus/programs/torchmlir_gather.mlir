// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `GatherStaticModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py
// What: `torch.gather(x, 2, indices)` with an index tensor smaller than x in dims 0 and 1: a generic over the i64 indices with linalg.index, index_cast and tensor.extract.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 2x3x4, indices 1x2x3 (the upstream shapes and indices); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_gather inputs=tm_gather

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
  func.func @main(%arg0: tensor<2x3x4xf32>, %arg1: tensor<1x2x3xi64>) -> tensor<1x2x3xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c4 = arith.constant 4 : index
    %c0_i64 = arith.constant 0 : i64
    %c0 = arith.constant 0 : index
    %0 = tensor.empty() : tensor<1x2x3xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg1 : tensor<1x2x3xi64>) outs(%1 : tensor<1x2x3xf32>) {
    ^bb0(%in: i64, %out: f32):
      %3 = linalg.index 1 : index
      %4 = arith.index_cast %in : i64 to index
      %5 = arith.cmpi slt, %4, %c4 : index
      cf.assert %5, "index must be smaller than dim size"
      %6 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %6, "index must be larger or equal to 0"
      %extracted = tensor.extract %arg0[%c0, %3, %4] : tensor<2x3x4xf32>
      linalg.yield %extracted : f32
    } -> tensor<1x2x3xf32>
    return %2 : tensor<1x2x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<2x3x4xf32>, %a1: tensor<1x2x3xi64>, %ct0: tensor<1x2x3xf32>) -> (tensor<1x2x3xf32>, tensor<2x3x4xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 0>} : (tensor<2x3x4xf32>, tensor<1x2x3xi64>, tensor<1x2x3xf32>) -> (tensor<1x2x3xf32>, tensor<2x3x4xf32>)
  return %r#0, %r#1 : tensor<1x2x3xf32>, tensor<2x3x4xf32>
}
