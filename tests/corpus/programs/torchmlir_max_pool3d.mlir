// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/pooling.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `MaxPool3dStaticModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/pooling.py
// What: `nn.MaxPool3d(3, stride 2, padding 1)`: -inf tensor.pad and an 8-d linalg.generic (5 parallel + 3 reduction dims, strided input map) with arith.maximumf into a -inf fill.
// Adaptations: input 1x64x112x112x112 -> 1x1x5x5x5; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 1x1x5x5x5; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_max_pool3d inputs=signed

#map = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2 * 2 + d5, d3 * 2 + d6, d4 * 2 + d7)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
  func.func @main(%arg0: tensor<1x1x5x5x5xf32>) -> tensor<1x1x3x3x3xf32> {
    %cst = arith.constant 0xFF800000 : f32
    %padded = tensor.pad %arg0 low[0, 0, 1, 1, 1] high[0, 0, 1, 1, 1] {
    ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index, %arg5: index):
      tensor.yield %cst : f32
    } : tensor<1x1x5x5x5xf32> to tensor<1x1x7x7x7xf32>
    %0 = tensor.empty() : tensor<1x1x3x3x3xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x1x3x3x3xf32>) -> tensor<1x1x3x3x3xf32>
    %2 = tensor.empty() : tensor<3x3x3xf32>
    %3 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%padded, %2 : tensor<1x1x7x7x7xf32>, tensor<3x3x3xf32>) outs(%1 : tensor<1x1x3x3x3xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %4 = arith.maximumf %in, %out : f32
      linalg.yield %4 : f32
    } -> tensor<1x1x3x3x3xf32>
    return %3 : tensor<1x1x3x3x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x1x5x5x5xf32>, %ct0: tensor<1x1x3x3x3xf32>) -> (tensor<1x1x3x3x3xf32>, tensor<1x1x5x5x5xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<1x1x5x5x5xf32>, tensor<1x1x3x3x3xf32>) -> (tensor<1x1x3x3x3xf32>, tensor<1x1x5x5x5xf32>)
  return %r#0, %r#1 : tensor<1x1x3x3x3xf32>, tensor<1x1x5x5x5xf32>
}
