// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `EmbeddingModuleI64`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py
// What: `nn.Embedding(padding_idx=4)` forward: a generic over the i64 indices with linalg.index, arith.index_cast, cmpi bounds checks with cf.assert and tensor.extract from the weight table.
// Adaptations: the module's `nn.Embedding(100, 50, padding_idx=4)` is called as `F.embedding(indices, weight, padding_idx=4)` with the weight a forward argument; table 100x50 -> 10x5; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs indices 3x3 i64 (static), weight 10x5; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=1 reference=tm_embedding inputs=tm_embedding

#map = affine_map<(d0, d1, d2) -> (d0, d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
  func.func @main(%arg0: tensor<3x3xi64>, %arg1: tensor<10x5xf32>) -> tensor<3x3x5xf32> {
    %c10 = arith.constant 10 : index
    %c0_i64 = arith.constant 0 : i64
    %0 = tensor.empty() : tensor<3x3x5xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<3x3xi64>) outs(%0 : tensor<3x3x5xf32>) {
    ^bb0(%in: i64, %out: f32):
      %2 = arith.index_cast %in : i64 to index
      %3 = linalg.index 2 : index
      %4 = arith.cmpi slt, %2, %c10 : index
      cf.assert %4, "index must be smaller than dim size"
      %5 = arith.cmpi sge, %in, %c0_i64 : i64
      cf.assert %5, "index must be larger or equal to 0"
      %extracted = tensor.extract %arg1[%2, %3] : tensor<10x5xf32>
      linalg.yield %extracted : f32
    } -> tensor<3x3x5xf32>
    return %1 : tensor<3x3x5xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<3x3xi64>, %a1: tensor<10x5xf32>, %ct0: tensor<3x3x5xf32>) -> (tensor<3x3x5xf32>, tensor<10x5xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 1>} : (tensor<3x3xi64>, tensor<10x5xf32>, tensor<3x3x5xf32>) -> (tensor<3x3x5xf32>, tensor<10x5xf32>)
  return %r#0, %r#1 : tensor<3x3x5xf32>, tensor<10x5xf32>
}
