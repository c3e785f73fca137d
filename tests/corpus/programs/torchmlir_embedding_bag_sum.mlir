// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `AtenEmbeddingBagSumExample`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py
// What: `aten.embedding_bag(mode=sum)`: one generic over (bag, index, feature) with a reduction dim, reading the i64 indices and offsets, computing the bag bounds from linalg.index (tensor.extract of the next offset, cmpi, ori/andi) and accumulating tensor.extract gathers of the weight under arith.select.
// Adaptations: only the first result (the bag sums) returned (torch-mlir writes the three auxiliary i64 results as constants); weight 100x10 -> 10x3, indices 18 -> 8 and offsets 7 -> 3; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs weight 10x3, indices [0, 1, 2, 2, 0, 9, 4, 5], offsets [0, 3, 5] (static; upstream annotates the dims as dynamic); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_embedding_bag_sum inputs=tm_embedding_bag_sum

#map = affine_map<(d0, d1, d2) -> (d1)>
#map1 = affine_map<(d0, d1, d2) -> (d0)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
  func.func @main(%arg0: tensor<10x3xf32>, %arg1: tensor<8xi64>, %arg2: tensor<3xi64>) -> tensor<3x3xf32> {
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f32
    %c1_i64 = arith.constant 1 : i64
    %c3_i64 = arith.constant 3 : i64
    %c8_i64 = arith.constant 8 : i64
    %0 = tensor.empty() : tensor<3x3xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<3x3xf32>) -> tensor<3x3xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "reduction", "parallel"]} ins(%arg1, %arg2 : tensor<8xi64>, tensor<3xi64>) outs(%1 : tensor<3x3xf32>) {
    ^bb0(%in: i64, %in_0: i64, %out: f32):
      %3 = linalg.index 0 : index
      %4 = arith.index_cast %3 : index to i64
      %5 = arith.addi %4, %c1_i64 : i64
      %6 = arith.index_cast %5 : i64 to index
      %7 = arith.cmpi eq, %5, %c3_i64 : i64
      %8 = arith.select %7, %c0, %6 : index
      %extracted = tensor.extract %arg2[%8] : tensor<3xi64>
      %9 = arith.select %7, %c8_i64, %extracted : i64
      %10 = linalg.index 1 : index
      %11 = arith.index_cast %10 : index to i64
      %12 = arith.cmpi slt, %in_0, %11 : i64
      %13 = arith.cmpi eq, %in_0, %11 : i64
      %14 = arith.ori %12, %13 : i1
      %15 = arith.cmpi slt, %11, %9 : i64
      %16 = arith.andi %14, %15 : i1
      %17 = arith.index_cast %in : i64 to index
      %18 = linalg.index 2 : index
      %extracted_1 = tensor.extract %arg0[%17, %18] : tensor<10x3xf32>
      %19 = arith.addf %extracted_1, %out : f32
      %20 = arith.select %16, %19, %out : f32
      linalg.yield %20 : f32
    } -> tensor<3x3xf32>
    return %2 : tensor<3x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<10x3xf32>, %a1: tensor<8xi64>, %a2: tensor<3xi64>, %ct0: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<10x3xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %a1, %a2, %ct0) {wrt = array<i64: 0>} : (tensor<10x3xf32>, tensor<8xi64>, tensor<3xi64>, tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<10x3xf32>)
  return %r#0, %r#1 : tensor<3x3xf32>, tensor<10x3xf32>
}
