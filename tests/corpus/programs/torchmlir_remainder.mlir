// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `ElementwiseRemainderScalarModule_Float`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py
// What: `torch.remainder(x, 2.0)`: arith.remf, then a sign fix-up with cmpf one/olt, arith.andi, addf and select.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 4x3 (upstream 10x3; static here); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_remainder inputs=signed

#map = affine_map<(d0, d1) -> (d0, d1)>
  func.func @main(%arg0: tensor<4x3xf32>) -> tensor<4x3xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 2.000000e+00 : f32
    %0 = tensor.empty() : tensor<4x3xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x3xf32>) outs(%0 : tensor<4x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %2 = arith.remf %in, %cst_0 : f32
      %3 = arith.cmpf one, %2, %cst : f32
      %4 = arith.cmpf olt, %2, %cst : f32
      %5 = arith.andi %3, %4 : i1
      %6 = arith.addf %2, %cst_0 : f32
      %7 = arith.select %5, %6, %2 : f32
      linalg.yield %7 : f32
    } -> tensor<4x3xf32>
    return %1 : tensor<4x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<4x3xf32>, %ct0: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<4x3xf32>, tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>)
  return %r#0, %r#1 : tensor<4x3xf32>, tensor<4x3xf32>
}
