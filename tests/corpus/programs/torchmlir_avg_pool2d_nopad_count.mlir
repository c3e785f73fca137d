// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/pooling.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `AvgPool2dCountIncludePadFalseStaticModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/pooling.py
// What: `nn.AvgPool2d(3, stride 1, padding 1, count_include_pad=False)`: zero tensor.pad, linalg.pooling_nchw_sum, then a generic dividing by the per-position window count computed in its body from linalg.index with index_cast, subi/addi, minsi/maxsi, muli and arith.sitofp.
// Adaptations: input 32x384x25x25 -> 1x2x4x4; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 1x2x4x4; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_avg_pool2d_nopad_count inputs=signed

#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
  func.func @main(%arg0: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c1_i64 = arith.constant 1 : i64
    %c4_i64 = arith.constant 4 : i64
    %c0_i64 = arith.constant 0 : i64
    %c5_i64 = arith.constant 5 : i64
    %c2_i64 = arith.constant 2 : i64
    %padded = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
      tensor.yield %cst : f32
    } : tensor<1x2x4x4xf32> to tensor<1x2x6x6xf32>
    %0 = tensor.empty() : tensor<1x2x4x4xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    %2 = tensor.empty() : tensor<3x3xf32>
    %3 = linalg.pooling_nchw_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%padded, %2 : tensor<1x2x6x6xf32>, tensor<3x3xf32>) outs(%1 : tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%3 : tensor<1x2x4x4xf32>) outs(%0 : tensor<1x2x4x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %5 = linalg.index 2 : index
      %6 = arith.index_cast %5 : index to i64
      %7 = arith.subi %6, %c1_i64 : i64
      %8 = arith.addi %6, %c2_i64 : i64
      %9 = arith.minsi %8, %c5_i64 : i64
      %10 = arith.minsi %9, %c4_i64 : i64
      %11 = arith.subi %c1_i64, %6 : i64
      %12 = arith.maxsi %11, %c0_i64 : i64
      %13 = arith.subi %10, %7 : i64
      %14 = arith.subi %13, %12 : i64
      %15 = arith.maxsi %14, %c0_i64 : i64
      %16 = linalg.index 3 : index
      %17 = arith.index_cast %16 : index to i64
      %18 = arith.subi %17, %c1_i64 : i64
      %19 = arith.addi %17, %c2_i64 : i64
      %20 = arith.minsi %19, %c5_i64 : i64
      %21 = arith.minsi %20, %c4_i64 : i64
      %22 = arith.subi %c1_i64, %17 : i64
      %23 = arith.maxsi %22, %c0_i64 : i64
      %24 = arith.subi %21, %18 : i64
      %25 = arith.subi %24, %23 : i64
      %26 = arith.maxsi %25, %c0_i64 : i64
      %27 = arith.muli %15, %26 : i64
      %28 = arith.sitofp %27 : i64 to f32
      %29 = arith.divf %in, %28 : f32
      linalg.yield %29 : f32
    } -> tensor<1x2x4x4xf32>
    return %4 : tensor<1x2x4x4xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x2x4x4xf32>, %ct0: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>)
  return %r#0, %r#1 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}
