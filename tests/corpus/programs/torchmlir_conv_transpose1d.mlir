// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/conv.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `Conv_Transpose1dStaticModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/conv.py
// What: `aten.conv_transpose1d(stride 2, padding 1)`: the weight transposed and flipped by an output-only generic (linalg.index, arith.subi, tensor.extract), the input scattered into a zero fill by a strided tensor.insert_slice, then linalg.conv_1d_ncw_fcw.
// Adaptations: the module's forward is called from a copy of the class (conv.py imports torchvision, not installed); input 5x2x6 -> 1x2x4 and weight 2x5x2 -> 2x3x2; the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs x 1x2x4, weight 2x3x2; removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=tm_conv_transpose1d inputs=signed

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
  func.func @main(%arg0: tensor<1x2x4xf32>, %arg1: tensor<2x3x2xf32>) -> tensor<1x3x6xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c1 = arith.constant 1 : index
    %0 = tensor.empty() : tensor<3x2x2xf32>
    %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<3x2x2xf32>) -> tensor<3x2x2xf32>
    %2 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel"]} outs(%1 : tensor<3x2x2xf32>) {
    ^bb0(%out: f32):
      %8 = linalg.index 0 : index
      %9 = linalg.index 1 : index
      %10 = linalg.index 2 : index
      %11 = arith.subi %c1, %10 : index
      %extracted = tensor.extract %arg1[%9, %8, %11] : tensor<2x3x2xf32>
      linalg.yield %extracted : f32
    } -> tensor<3x2x2xf32>
    %3 = tensor.empty() : tensor<1x2x7xf32>
    %4 = linalg.fill ins(%cst : f32) outs(%3 : tensor<1x2x7xf32>) -> tensor<1x2x7xf32>
    %inserted_slice = tensor.insert_slice %arg0 into %4[0, 0, 0] [1, 2, 4] [1, 1, 2] : tensor<1x2x4xf32> into tensor<1x2x7xf32>
    %5 = tensor.empty() : tensor<1x3x6xf32>
    %6 = linalg.fill ins(%cst : f32) outs(%5 : tensor<1x3x6xf32>) -> tensor<1x3x6xf32>
    %7 = linalg.conv_1d_ncw_fcw {dilations = dense<1> : vector<1xi64>, strides = dense<1> : vector<1xi64>} ins(%inserted_slice, %2 : tensor<1x2x7xf32>, tensor<3x2x2xf32>) outs(%6 : tensor<1x3x6xf32>) -> tensor<1x3x6xf32>
    return %7 : tensor<1x3x6xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x2x4xf32>, %a1: tensor<2x3x2xf32>, %ct0: tensor<1x3x6xf32>) -> (tensor<1x3x6xf32>, tensor<1x2x4xf32>, tensor<2x3x2xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 0, 1>} : (tensor<1x2x4xf32>, tensor<2x3x2xf32>, tensor<1x3x6xf32>) -> (tensor<1x3x6xf32>, tensor<1x2x4xf32>, tensor<2x3x2xf32>)
  return %r#0, %r#1, %r#2 : tensor<1x3x6xf32>, tensor<1x2x4xf32>, tensor<2x3x2xf32>
}
