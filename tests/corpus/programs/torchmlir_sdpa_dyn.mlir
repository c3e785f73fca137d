// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `ScaledDotProductAttentionSameDynamicModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/basic.py
// What: non-causal `aten.scaled_dot_product_attention` with a dynamic batch and query length (`tensor<?x?x4xf32>`, keys `?x6x4`, values `?x6x3`): dynamic linalg.transpose/batch_matmul, softmax generics with tensor.dim sizes, expand_shape with dynamic output_shape.
// Adaptations: q 1x5x5, k 1x5x5, v 1x5x5 -> q 2x5x4, k 2x6x4, v 2x6x3 (batch 2 so that torch.export keeps it dynamic); the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors", dynamic_shapes=({0: a, 1: b}, {0: a}, {0: a}))` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs q 2x5x4, k 2x6x4, v 2x6x3 with the batch and the query length dynamic; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1,2 reference=tm_sdpa inputs=tm_sdpa_dyn

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
#map3 = affine_map<(d0, d1, d2) -> ()>
  func.func @main(%arg0: tensor<?x?x4xf32>, %arg1: tensor<?x6x4xf32>, %arg2: tensor<?x6x3xf32>) -> tensor<?x?x3xf32> {
    %c0_i64 = arith.constant 0 : i64
    %c1_i64 = arith.constant 1 : i64
    %c3_i64 = arith.constant 3 : i64
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %c4_i64 = arith.constant 4 : i64
    %c6_i64 = arith.constant 6 : i64
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 0xFF800000 : f32
    %true = arith.constant true
    %cst_1 = arith.constant dense<0.000000e+00> : tensor<f32>
    %cst_2 = arith.constant 0xFFF0000000000000 : f64
    %cst_3 = arith.constant 0.70710678118654757 : f64
    %dim = tensor.dim %arg0, %c1 : tensor<?x?x4xf32>
    %0 = arith.index_cast %dim : index to i64
    %dim_4 = tensor.dim %arg2, %c0 : tensor<?x6x3xf32>
    %1 = arith.index_cast %dim_4 : index to i64
    %dim_5 = tensor.dim %arg0, %c0 : tensor<?x?x4xf32>
    %2 = tensor.empty(%dim_5, %dim) : tensor<?x?x4xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<?x?x4xf32>) outs(%2 : tensor<?x?x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %87 = arith.truncf %cst_3 : f64 to f32
      %88 = arith.mulf %in, %87 : f32
      linalg.yield %88 : f32
    } -> tensor<?x?x4xf32>
    %dim_6 = tensor.dim %arg1, %c0 : tensor<?x6x4xf32>
    %4 = tensor.empty(%dim_6) : tensor<?x4x6xf32>
    %transposed = linalg.transpose ins(%arg1 : tensor<?x6x4xf32>) outs(%4 : tensor<?x4x6xf32>) permutation = [0, 2, 1] 
    %5 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%transposed : tensor<?x4x6xf32>) outs(%4 : tensor<?x4x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      %87 = arith.truncf %cst_3 : f64 to f32
      %88 = arith.mulf %in, %87 : f32
      linalg.yield %88 : f32
    } -> tensor<?x4x6xf32>
    %6 = arith.cmpi sge, %1, %c0_i64 : i64
    cf.assert %6, "unimplemented: dynamic negative broadcast sizes"
    %7 = arith.cmpi sge, %0, %c0_i64 : i64
    cf.assert %7, "unimplemented: dynamic negative broadcast sizes"
    %8 = tensor.empty(%dim_4, %dim) : tensor<?x?x4xf32>
    %9 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%8 : tensor<?x?x4xf32>) {
    ^bb0(%out: f32):
      %87 = linalg.index 0 : index
      %88 = linalg.index 1 : index
      %89 = linalg.index 2 : index
      %90 = arith.cmpi eq, %dim_5, %c1 : index
      %91 = arith.select %90, %c0, %87 : index
      %92 = arith.cmpi eq, %dim, %c1 : index
      %93 = arith.select %92, %c0, %88 : index
      %extracted = tensor.extract %3[%91, %93, %89] : tensor<?x?x4xf32>
      linalg.yield %extracted : f32
    } -> tensor<?x?x4xf32>
    %10 = arith.cmpi slt, %1, %c0_i64 : i64
    %11 = arith.select %10, %c1_i64, %1 : i64
    %12 = arith.extui %10 : i1 to i64
    %13 = arith.muli %11, %0 : i64
    %14 = arith.addi %12, %c1_i64 : i64
    %15 = arith.cmpi slt, %0, %c0_i64 : i64
    %16 = arith.select %15, %11, %13 : i64
    %17 = arith.select %15, %14, %12 : i64
    %18 = arith.muli %16, %c4_i64 : i64
    %19 = arith.cmpi sle, %17, %c1_i64 : i64
    cf.assert %19, "must have at most one inferred (negative) dimension"
    %20 = arith.muli %1, %0 : i64
    %21 = arith.muli %20, %c4_i64 : i64
    %22 = arith.divsi %21, %18 : i64
    %23 = arith.select %10, %22, %1 : i64
    %24 = arith.select %15, %22, %0 : i64
    %from_elements = tensor.from_elements %23, %24, %c4_i64 : tensor<3xi64>
    %reshape = tensor.reshape %9(%from_elements) : (tensor<?x?x4xf32>, tensor<3xi64>) -> tensor<?x?x4xf32>
    cf.assert %6, "unimplemented: dynamic negative broadcast sizes"
    %25 = tensor.empty(%dim_4) : tensor<?x4x6xf32>
    %26 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%25 : tensor<?x4x6xf32>) {
    ^bb0(%out: f32):
      %87 = linalg.index 0 : index
      %88 = linalg.index 1 : index
      %89 = linalg.index 2 : index
      %90 = arith.cmpi eq, %dim_6, %c1 : index
      %91 = arith.select %90, %c0, %87 : index
      %extracted = tensor.extract %5[%91, %88, %89] : tensor<?x4x6xf32>
      linalg.yield %extracted : f32
    } -> tensor<?x4x6xf32>
    %27 = arith.index_cast %23 : i64 to index
    %28 = arith.index_cast %24 : i64 to index
    %29 = arith.cmpi eq, %23, %1 : i64
    cf.assert %29, "mismatching contracting dimension"
    %30 = tensor.empty(%27, %28) : tensor<?x?x6xf32>
    %31 = linalg.fill ins(%cst : f32) outs(%30 : tensor<?x?x6xf32>) -> tensor<?x?x6xf32>
    %32 = linalg.batch_matmul ins(%reshape, %26 : tensor<?x?x4xf32>, tensor<?x4x6xf32>) outs(%31 : tensor<?x?x6xf32>) -> tensor<?x?x6xf32>
    %33 = arith.muli %16, %c6_i64 : i64
    cf.assert %19, "must have at most one inferred (negative) dimension"
    %34 = arith.muli %23, %24 : i64
    %35 = arith.muli %34, %c6_i64 : i64
    %36 = arith.divsi %35, %33 : i64
    %37 = arith.select %10, %36, %1 : i64
    %38 = arith.select %15, %36, %0 : i64
    %from_elements_7 = tensor.from_elements %37, %38, %c6_i64 : tensor<3xi64>
    %reshape_8 = tensor.reshape %32(%from_elements_7) : (tensor<?x?x6xf32>, tensor<3xi64>) -> tensor<?x?x6xf32>
    %39 = arith.index_cast %37 : i64 to index
    %40 = arith.index_cast %38 : i64 to index
    %41 = tensor.empty(%39, %40) : tensor<?x?xi64>
    %42 = linalg.fill ins(%c0_i64 : i64) outs(%41 : tensor<?x?xi64>) -> tensor<?x?xi64>
    %43 = tensor.empty(%39, %40) : tensor<?x?xf32>
    %44 = linalg.fill ins(%cst_0 : f32) outs(%43 : tensor<?x?xf32>) -> tensor<?x?xf32>
    %45:2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "parallel", "reduction"]} ins(%reshape_8 : tensor<?x?x6xf32>) outs(%44, %42 : tensor<?x?xf32>, tensor<?x?xi64>) {
    ^bb0(%in: f32, %out: f32, %out_13: i64):
      %87 = linalg.index 2 : index
      %88 = arith.index_cast %87 : index to i64
      %89 = arith.maximumf %in, %out : f32
      %90 = arith.cmpf ogt, %in, %out : f32
      %91 = arith.select %90, %88, %out_13 : i64
      linalg.yield %89, %91 : f32, i64
    } -> (tensor<?x?xf32>, tensor<?x?xi64>)
    %expanded = tensor.expand_shape %45#0 [[0], [1, 2]] output_shape [%39, %40, 1] : tensor<?x?xf32> into tensor<?x?x1xf32>
    %46 = tensor.empty(%39, %40) : tensor<?x?x6xf32>
    %47 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%reshape_8, %expanded : tensor<?x?x6xf32>, tensor<?x?x1xf32>) outs(%46 : tensor<?x?x6xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %87 = arith.subf %in, %in_13 : f32
      linalg.yield %87 : f32
    } -> tensor<?x?x6xf32>
    %48 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%47 : tensor<?x?x6xf32>) outs(%46 : tensor<?x?x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      %87 = math.exp %in : f32
      linalg.yield %87 : f32
    } -> tensor<?x?x6xf32>
    %49 = tensor.empty(%39, %40) : tensor<?x?x1xf32>
    %50 = linalg.fill ins(%cst : f32) outs(%49 : tensor<?x?x1xf32>) -> tensor<?x?x1xf32>
    %51 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%48 : tensor<?x?x6xf32>) outs(%50 : tensor<?x?x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %87 = arith.addf %in, %out : f32
      linalg.yield %87 : f32
    } -> tensor<?x?x1xf32>
    %52 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%48, %51 : tensor<?x?x6xf32>, tensor<?x?x1xf32>) outs(%46 : tensor<?x?x6xf32>) {
    ^bb0(%in: f32, %in_13: f32, %out: f32):
      %87 = arith.divf %in, %in_13 : f32
      linalg.yield %87 : f32
    } -> tensor<?x?x6xf32>
    %53 = tensor.empty(%39, %40) : tensor<?x?x6xi1>
    %54 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%reshape_8 : tensor<?x?x6xf32>) outs(%53 : tensor<?x?x6xi1>) {
    ^bb0(%in: f32, %out: i1):
      %87 = arith.extf %in : f32 to f64
      %88 = arith.cmpf oeq, %87, %cst_2 : f64
      linalg.yield %88 : i1
    } -> tensor<?x?x6xi1>
    %55 = tensor.empty(%39, %40) : tensor<?x?x1xi1>
    %56 = linalg.fill ins(%true : i1) outs(%55 : tensor<?x?x1xi1>) -> tensor<?x?x1xi1>
    %57 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "parallel", "reduction"]} ins(%54 : tensor<?x?x6xi1>) outs(%56 : tensor<?x?x1xi1>) {
    ^bb0(%in: i1, %out: i1):
      %87 = arith.andi %in, %out : i1
      linalg.yield %87 : i1
    } -> tensor<?x?x1xi1>
    %58 = arith.cmpi sge, %37, %c0_i64 : i64
    cf.assert %58, "negative values not allowed in new dimensions"
    %59 = arith.index_cast %37 : i64 to index
    %60 = arith.cmpi sge, %38, %c0_i64 : i64
    cf.assert %60, "negative values not allowed in new dimensions"
    %61 = arith.index_cast %38 : i64 to index
    %62 = tensor.empty(%59, %61) : tensor<?x?x6xf32>
    %63 = linalg.generic {indexing_maps = [#map3, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%cst_1 : tensor<f32>) outs(%62 : tensor<?x?x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<?x?x6xf32>
    %64 = arith.cmpi eq, %39, %59 : index
    cf.assert %64, "mismatched size for broadcast"
    %65 = arith.cmpi eq, %40, %61 : index
    cf.assert %65, "mismatched size for broadcast"
    %66 = linalg.generic {indexing_maps = [#map2, #map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%57, %63, %52 : tensor<?x?x1xi1>, tensor<?x?x6xf32>, tensor<?x?x6xf32>) outs(%46 : tensor<?x?x6xf32>) {
    ^bb0(%in: i1, %in_13: f32, %in_14: f32, %out: f32):
      %87 = arith.select %in, %in_13, %in_14 : f32
      linalg.yield %87 : f32
    } -> tensor<?x?x6xf32>
    cf.assert %6, "unimplemented: dynamic negative broadcast sizes"
    cf.assert %7, "unimplemented: dynamic negative broadcast sizes"
    %67 = tensor.empty(%dim_4, %dim) : tensor<?x?x6xf32>
    %68 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%67 : tensor<?x?x6xf32>) {
    ^bb0(%out: f32):
      %87 = linalg.index 0 : index
      %88 = linalg.index 1 : index
      %89 = linalg.index 2 : index
      %90 = arith.cmpi eq, %39, %c1 : index
      %91 = arith.select %90, %c0, %87 : index
      %92 = arith.cmpi eq, %40, %c1 : index
      %93 = arith.select %92, %c0, %88 : index
      %extracted = tensor.extract %66[%91, %93, %89] : tensor<?x?x6xf32>
      linalg.yield %extracted : f32
    } -> tensor<?x?x6xf32>
    cf.assert %19, "must have at most one inferred (negative) dimension"
    %69 = arith.muli %20, %c6_i64 : i64
    %70 = arith.divsi %69, %33 : i64
    %71 = arith.select %10, %70, %1 : i64
    %72 = arith.select %15, %70, %0 : i64
    %from_elements_9 = tensor.from_elements %71, %72, %c6_i64 : tensor<3xi64>
    %reshape_10 = tensor.reshape %68(%from_elements_9) : (tensor<?x?x6xf32>, tensor<3xi64>) -> tensor<?x?x6xf32>
    cf.assert %6, "unimplemented: dynamic negative broadcast sizes"
    %73 = tensor.empty(%dim_4) : tensor<?x6x3xf32>
    %74 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%73 : tensor<?x6x3xf32>) {
    ^bb0(%out: f32):
      %87 = linalg.index 0 : index
      %88 = linalg.index 1 : index
      %89 = linalg.index 2 : index
      %90 = arith.cmpi eq, %dim_4, %c1 : index
      %91 = arith.select %90, %c0, %87 : index
      %extracted = tensor.extract %arg2[%91, %88, %89] : tensor<?x6x3xf32>
      linalg.yield %extracted : f32
    } -> tensor<?x6x3xf32>
    %75 = arith.index_cast %71 : i64 to index
    %76 = arith.index_cast %72 : i64 to index
    %77 = arith.cmpi eq, %71, %1 : i64
    cf.assert %77, "mismatching contracting dimension"
    %78 = tensor.empty(%75, %76) : tensor<?x?x3xf32>
    %79 = linalg.fill ins(%cst : f32) outs(%78 : tensor<?x?x3xf32>) -> tensor<?x?x3xf32>
    %80 = linalg.batch_matmul ins(%reshape_10, %74 : tensor<?x?x6xf32>, tensor<?x6x3xf32>) outs(%79 : tensor<?x?x3xf32>) -> tensor<?x?x3xf32>
    %81 = arith.muli %16, %c3_i64 : i64
    cf.assert %19, "must have at most one inferred (negative) dimension"
    %82 = arith.muli %71, %72 : i64
    %83 = arith.muli %82, %c3_i64 : i64
    %84 = arith.divsi %83, %81 : i64
    %85 = arith.select %10, %84, %1 : i64
    %86 = arith.select %15, %84, %0 : i64
    %from_elements_11 = tensor.from_elements %85, %86, %c3_i64 : tensor<3xi64>
    %reshape_12 = tensor.reshape %80(%from_elements_11) : (tensor<?x?x3xf32>, tensor<3xi64>) -> tensor<?x?x3xf32>
    return %reshape_12 : tensor<?x?x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<?x?x4xf32>, %a1: tensor<?x6x4xf32>, %a2: tensor<?x6x3xf32>, %ct0: tensor<?x?x3xf32>) -> (tensor<?x?x3xf32>, tensor<?x?x4xf32>, tensor<?x6x4xf32>, tensor<?x6x3xf32>) {
  %r:4 = autodiff.vjp @main(%a0, %a1, %a2, %ct0) {wrt = array<i64: 0, 1, 2>} : (tensor<?x?x4xf32>, tensor<?x6x4xf32>, tensor<?x6x3xf32>, tensor<?x?x3xf32>) -> (tensor<?x?x3xf32>, tensor<?x?x4xf32>, tensor<?x6x4xf32>, tensor<?x6x3xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<?x?x3xf32>, tensor<?x?x4xf32>, tensor<?x6x4xf32>, tensor<?x6x3xf32>
}
