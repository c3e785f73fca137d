// Source: llvm/torch-mlir projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py (commit 0029fc2e102c6d604696b33eb618116b4957a2e3; its `ElementwisePowTensorBroadcastModule`), https://github.com/llvm/torch-mlir/blob/0029fc2e102c6d604696b33eb618116b4957a2e3/projects/pt1/python/torch_mlir_e2e_test/test_suite/elementwise.py
// What: `torch.pow(a, b)` of `tensor<?x1xf32>` and `tensor<?x?xf32>`: a cf.assert on the tensor.dim sizes, a dynamic tensor.empty and one generic with a `(d0, d1) -> (d0, 0)` broadcast map and math.powf of two variables.
// Adaptations: the upstream source is the PyTorch test module, not MLIR: the program is torch-mlir's own output, generated here by `torch_mlir.fx.export_and_import(module, *inputs, output_type="linalg-on-tensors", dynamic_shapes=({0: a}, {0: a, 1: b}))` (PyPI wheel torch-mlir 20261001 with torch 2.13.0+cpu, in a throwaway venv) on example inputs a 3x1, b 3x4 with the dims dynamic as upstream (a's size-1 dim static); removed the `module { ... }` around @main; added the gradir entry @vjp_main (autodiff.vjp) below the marker.
// gradir-corpus: entry=main wrt=0,1 reference=tm_pow inputs=tm_pow_broadcast_dyn

#map = affine_map<(d0, d1) -> (d0, 0)>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
  func.func @main(%arg0: tensor<?x1xf32>, %arg1: tensor<?x?xf32>) -> tensor<?x?xf32> {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %dim = tensor.dim %arg0, %c0 : tensor<?x1xf32>
    %dim_0 = tensor.dim %arg1, %c0 : tensor<?x?xf32>
    %0 = arith.cmpi eq, %dim, %dim_0 : index
    cf.assert %0, "mismatched size for broadcast"
    %dim_1 = tensor.dim %arg1, %c1 : tensor<?x?xf32>
    %1 = tensor.empty(%dim, %dim_1) : tensor<?x?xf32>
    %2 = linalg.generic {indexing_maps = [#map, #map1, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<?x1xf32>, tensor<?x?xf32>) outs(%1 : tensor<?x?xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %3 = math.powf %in, %in_2 : f32
      linalg.yield %3 : f32
    } -> tensor<?x?xf32>
    return %2 : tensor<?x?xf32>
  }

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_main(%a0: tensor<?x1xf32>, %a1: tensor<?x?xf32>, %ct0: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?xf32>) {
  %r:3 = autodiff.vjp @main(%a0, %a1, %ct0) {wrt = array<i64: 0, 1>} : (tensor<?x1xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?xf32>)
  return %r#0, %r#1, %r#2 : tensor<?x?xf32>, tensor<?x1xf32>, tensor<?x?xf32>
}
