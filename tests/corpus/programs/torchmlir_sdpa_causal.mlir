// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `ScaledDotProductAttentionSameCausalModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py
// What: `aten.scaled_dot_product_attention(is_causal=True)` on 1x5x5: linalg.transpose, linalg.batch_matmul, a causal mask built from linalg.index compares and select with -inf, softmax as max/argmax reduction + exp + sum + divide with expand_shape, f64 scale constants through extf/truncf, and a second batch_matmul.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs q, k, v 1x5x5 (the upstream shapes; static here); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1,2 reference=tm_sdpa_causal inputs=signed

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0) -> (d0)>
#map2 = affine_map<(d0, d1) -> (0, d1)>
#map3 = affine_map<(d0, d1) -> (d0, 0)>
#map4 = affine_map<(d0, d1) -> (d0, d1)>
#map5 = affine_map<(d0, d1) -> ()>
#map6 = affine_map<(d0, d1, d2) -> (d1, d2)>
#map7 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map8 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
  func.func @main(%arg0: tensor<1x5x5xf32>, %arg1: tensor<1x5x5xf32>, %arg2: tensor<1x5x5xf32>) -> tensor<1x5x5xf32> {
    %c0_i64 = arith.constant 0 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %true = arith.constant true
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<1x5x5xf32>
    %cst_2 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_3 = arith.constant dense<0xFF800000> : tensor<f32>
    %cst_4 = arith.constant dense<true> : tensor<5x5xi1>
    %cst_5 = arith.constant 0xFFF0000000000000 : f64
    %cst_6 = arith.constant 0.66874030497642201 : f64
    %0 = tensor.empty() : tensor<1x5x5xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x5x5xf32>) outs(%0 : tensor<1x5x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %33 = arith.truncf %cst_6 : f64 to f32
      %34 = arith.mulf %in, %33 : f32
      linalg.yield %34 : f32
    } -> tensor<1x5x5xf32>
    %2 = tensor.empty() : tensor<5xi64>
    %3 = linalg.generic {indexing_maps = [#map1], iterator_types = ["parallel"]} outs(%2 : tensor<5xi64>) {
    ^bb0(%out: i64):
      %33 = linalg.index 0 : index
      %34 = arith.index_cast %33 : index to i64
      linalg.yield %34 : i64
    } -> tensor<5xi64>
    %expanded = tensor.expand_shape %3 [[0, 1]] output_shape [1, 5] : tensor<5xi64> into tensor<1x5xi64>
    %expanded_7 = tensor.expand_shape %3 [[0, 1]] output_shape [5, 1] : tensor<5xi64> into tensor<5x1xi64>
    %4 = tensor.empty() : tensor<5x5xi64>
    %5 = linalg.generic {indexing_maps = [#map2, #map3, #map4], iterator_types = ["parallel", "parallel"]} ins(%expanded, %expanded_7 : tensor<1x5xi64>, tensor<5x1xi64>) outs(%4 : tensor<5x5xi64>) {
    ^bb0(%in: i64, %in_9: i64, %out: i64):
      %33 = arith.subi %in, %in_9 : i64
      linalg.yield %33 : i64
    } -> tensor<5x5xi64>
    %6 = tensor.empty() : tensor<5x5xi1>
    %7 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%5 : tensor<5x5xi64>) outs(%6 : tensor<5x5xi1>) {
    ^bb0(%in: i64, %out: i1):
      %33 = arith.cmpi sle, %in, %c0_i64 : i64
      linalg.yield %33 : i1
    } -> tensor<5x5xi1>
    %8 = linalg.generic {indexing_maps = [#map4, #map4, #map4], iterator_types = ["parallel", "parallel"]} ins(%7, %cst_4 : tensor<5x5xi1>, tensor<5x5xi1>) outs(%6 : tensor<5x5xi1>) {
    ^bb0(%in: i1, %in_9: i1, %out: i1):
      %33 = arith.andi %in, %in_9 : i1
      linalg.yield %33 : i1
    } -> tensor<5x5xi1>
    %9 = tensor.empty() : tensor<5x5xf32>
    %10 = linalg.generic {indexing_maps = [#map4, #map5, #map5, #map4], iterator_types = ["parallel", "parallel"]} ins(%8, %cst_2, %cst_3 : tensor<5x5xi1>, tensor<f32>, tensor<f32>) outs(%9 : tensor<5x5xf32>) {
    ^bb0(%in: i1, %in_9: f32, %in_10: f32, %out: f32):
      %33 = arith.select %in, %in_9, %in_10 : f32
      linalg.yield %33 : f32
    } -> tensor<5x5xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<1x5x5xf32>) outs(%0 : tensor<1x5x5xf32>) permutation = [0, 2, 1] 
    %11 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%transposed : tensor<1x5x5xf32>) outs(%0 : tensor<1x5x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %33 = arith.truncf %cst_6 : f64 to f32
      %34 = arith.mulf %in, %33 : f32
      linalg.yield %34 : f32
    } -> tensor<1x5x5xf32>
    %12 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x5x5xf32>) -> tensor<1x5x5xf32>
    %13 = linalg.batch_matmul ins(%1, %11 : tensor<1x5x5xf32>, tensor<1x5x5xf32>) outs(%12 : tensor<1x5x5xf32>) -> tensor<1x5x5xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map6, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%13, %10 : tensor<1x5x5xf32>, tensor<5x5xf32>) outs(%0 : tensor<1x5x5xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %33 = arith.addf %in, %in_9 : f32
      linalg.yield %33 : f32
    } -> tensor<1x5x5xf32>
    %15 = tensor.empty() : tensor<1x5xi64>
    %16 = linalg.fill ins(%c0_i64 : i64) outs(%15 : tensor<1x5xi64>) -> tensor<1x5xi64>
    %17 = tensor.empty() : tensor<1x5xf32>
    %18 = linalg.fill ins(%cst_0 : f32) outs(%17 : tensor<1x5xf32>) -> tensor<1x5xf32>
    %19:2 = linalg.generic {indexing_maps = [#map, #map7, #map7], iterator_types = ["parallel", "parallel", "reduction"]} ins(%14 : tensor<1x5x5xf32>) outs(%18, %16 : tensor<1x5xf32>, tensor<1x5xi64>) {
    ^bb0(%in: f32, %out: f32, %out_9: i64):
      %33 = linalg.index 2 : index
      %34 = arith.index_cast %33 : index to i64
      %35 = arith.maximumf %in, %out : f32
      %36 = arith.cmpf ogt, %in, %out : f32
      %37 = arith.select %36, %34, %out_9 : i64
      linalg.yield %35, %37 : f32, i64
    } -> (tensor<1x5xf32>, tensor<1x5xi64>)
    %expanded_8 = tensor.expand_shape %19#0 [[0], [1, 2]] output_shape [1, 5, 1] : tensor<1x5xf32> into tensor<1x5x1xf32>
    %20 = linalg.generic {indexing_maps = [#map, #map8, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%14, %expanded_8 : tensor<1x5x5xf32>, tensor<1x5x1xf32>) outs(%0 : tensor<1x5x5xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %33 = arith.subf %in, %in_9 : f32
      linalg.yield %33 : f32
    } -> tensor<1x5x5xf32>
    %21 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%20 : tensor<1x5x5xf32>) outs(%0 : tensor<1x5x5xf32>) {
    ^bb0(%in: f32, %out: f32):
      %33 = math.exp %in : f32
      linalg.yield %33 : f32
    } -> tensor<1x5x5xf32>
    %22 = tensor.empty() : tensor<1x5x1xf32>
    %23 = linalg.fill ins(%cst : f32) outs(%22 : tensor<1x5x1xf32>) -> tensor<1x5x1xf32>
    %24 = linalg.generic {indexing_maps = [#map, #map8], iterator_types = ["parallel", "parallel", "reduction"]} ins(%21 : tensor<1x5x5xf32>) outs(%23 : tensor<1x5x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %33 = arith.addf %in, %out : f32
      linalg.yield %33 : f32
    } -> tensor<1x5x1xf32>
    %25 = linalg.generic {indexing_maps = [#map, #map8, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%21, %24 : tensor<1x5x5xf32>, tensor<1x5x1xf32>) outs(%0 : tensor<1x5x5xf32>) {
    ^bb0(%in: f32, %in_9: f32, %out: f32):
      %33 = arith.divf %in, %in_9 : f32
      linalg.yield %33 : f32
    } -> tensor<1x5x5xf32>
    %26 = tensor.empty() : tensor<1x5x5xi1>
    %27 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%14 : tensor<1x5x5xf32>) outs(%26 : tensor<1x5x5xi1>) {
    ^bb0(%in: f32, %out: i1):
      %33 = arith.extf %in : f32 to f64
      %34 = arith.cmpf oeq, %33, %cst_5 : f64
      linalg.yield %34 : i1
    } -> tensor<1x5x5xi1>
    %28 = tensor.empty() : tensor<1x5x1xi1>
    %29 = linalg.fill ins(%true : i1) outs(%28 : tensor<1x5x1xi1>) -> tensor<1x5x1xi1>
    %30 = linalg.generic {indexing_maps = [#map, #map8], iterator_types = ["parallel", "parallel", "reduction"]} ins(%27 : tensor<1x5x5xi1>) outs(%29 : tensor<1x5x1xi1>) {
    ^bb0(%in: i1, %out: i1):
      %33 = arith.andi %in, %out : i1
      linalg.yield %33 : i1
    } -> tensor<1x5x1xi1>
    %31 = linalg.generic {indexing_maps = [#map8, #map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%30, %cst_1, %25 : tensor<1x5x1xi1>, tensor<1x5x5xf32>, tensor<1x5x5xf32>) outs(%0 : tensor<1x5x5xf32>) {
    ^bb0(%in: i1, %in_9: f32, %in_10: f32, %out: f32):
      %33 = arith.select %in, %in_9, %in_10 : f32
      linalg.yield %33 : f32
    } -> tensor<1x5x5xf32>
    %32 = linalg.batch_matmul ins(%31, %arg2 : tensor<1x5x5xf32>, tensor<1x5x5xf32>) outs(%12 : tensor<1x5x5xf32>) -> tensor<1x5x5xf32>
    return %32 : tensor<1x5x5xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x5x5xf32>, %a1: tensor<1x5x5xf32>, %a2: tensor<1x5x5xf32>, %ct0: tensor<1x5x5xf32>) -> (tensor<1x5x5xf32>, tensor<1x5x5xf32>, tensor<1x5x5xf32>, tensor<1x5x5xf32>) {
  %r:4 = autodiff.vjp @main(%a0, %a1, %a2, %ct0) {wrt = array<i64: 0, 1, 2>} : (tensor<1x5x5xf32>, tensor<1x5x5xf32>, tensor<1x5x5xf32>, tensor<1x5x5xf32>) -> (tensor<1x5x5xf32>, tensor<1x5x5xf32>, tensor<1x5x5xf32>, tensor<1x5x5xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<1x5x5xf32>, tensor<1x5x5xf32>, tensor<1x5x5xf32>, tensor<1x5x5xf32>
}
