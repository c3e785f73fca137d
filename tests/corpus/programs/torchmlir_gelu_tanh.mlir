// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `ElementwiseGeluApproximateTanhModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py
// What: `nn.GELU(approximate="tanh")`: one elementwise generic with math.fpowi (x^3 with an i64 exponent), math.tanh and f32 constants.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 5x3 (the upstream shape; its two dims are dynamic upstream, static here); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_gelu_tanh inputs=signed

#map = affine_map<(d0, d1) -> (d0, d1)>
  func.func @main(%arg0: tensor<5x3xf32>) -> tensor<5x3xf32> {
    %c3_i64 = arith.constant 3 : i64
    %cst = arith.constant 4.471500e-02 : f32
    %cst_0 = arith.constant 7.977240e-01 : f32
    %cst_1 = arith.constant 1.000000e+00 : f32
    %cst_2 = arith.constant 5.000000e-01 : f32
    %0 = tensor.empty() : tensor<5x3xf32>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<5x3xf32>) outs(%0 : tensor<5x3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %2 = math.fpowi %in, %c3_i64 : f32, i64
      %3 = arith.mulf %2, %cst : f32
      %4 = arith.addf %in, %3 : f32
      %5 = arith.mulf %4, %cst_0 : f32
      %6 = math.tanh %5 : f32
      %7 = arith.addf %6, %cst_1 : f32
      %8 = arith.mulf %7, %cst_2 : f32
      %9 = arith.mulf %in, %8 : f32
      linalg.yield %9 : f32
    } -> tensor<5x3xf32>
    return %1 : tensor<5x3xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<5x3xf32>, %ct0: tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<5x3xf32>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<5x3xf32>, tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<5x3xf32>)
  return %r#0, %r#1 : tensor<5x3xf32>, tensor<5x3xf32>
}
