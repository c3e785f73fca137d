// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/conv.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `UpSampleNearest2d`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/conv.py
// What: `aten.upsample_nearest2d` with scales (3, 4): an output-only generic whose body gathers x with tensor.extract at `floordivsi(linalg.index, scale)`, in f64.
// Adaptations: the module's forward is called from a copy of the class (conv.py imports torchvision, not installed); output_size [18, 48] -> [6, 8] and input 1x1x6x12 -> 1x1x2x2 (scales kept); the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors")` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs 1x1x2x2 f64 (static; upstream annotates the dims as dynamic); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0 reference=tm_upsample_nearest2d inputs=signed

#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
  func.func @main(%arg0: tensor<1x1x2x2xf64>) -> tensor<1x1x6x8xf64> {
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %0 = tensor.empty() : tensor<1x1x6x8xf64>
    %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} outs(%0 : tensor<1x1x6x8xf64>) {
    ^bb0(%out: f64):
      %2 = linalg.index 2 : index
      %3 = linalg.index 3 : index
      %4 = arith.floordivsi %2, %c3 : index
      %5 = arith.floordivsi %3, %c4 : index
      %extracted = tensor.extract %arg0[%c0, %c0, %4, %5] : tensor<1x1x2x2xf64>
      linalg.yield %extracted : f64
    } -> tensor<1x1x6x8xf64>
    return %1 : tensor<1x1x6x8xf64>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<1x1x2x2xf64>, %ct0: tensor<1x1x6x8xf64>) -> (tensor<1x1x6x8xf64>, tensor<1x1x2x2xf64>) {
  %r:2 = autodiff.vjp @main(%a0, %ct0) {wrt = array<i64: 0>} : (tensor<1x1x2x2xf64>, tensor<1x1x6x8xf64>) -> (tensor<1x1x6x8xf64>, tensor<1x1x2x2xf64>)
  return %r#0, %r#1 : tensor<1x1x6x8xf64>, tensor<1x1x2x2xf64>
}
