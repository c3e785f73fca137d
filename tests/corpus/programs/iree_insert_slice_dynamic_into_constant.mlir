// Source: iree-org/iree compiler/src/iree/compiler/GlobalOptimization/test/raise_special_ops.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/compiler/src/iree/compiler/GlobalOptimization/test/raise_special_ops.mlir
// What: a dynamically shaped tensor written by tensor.insert_slice, at static offsets [1, 2] with sizes given as index arguments, into a dense<1.0> constant (a pad with 1.0 in disguise).
// Adaptations: kept only @constant_pad_f32 of the file (dropped the RUN/CHECK lines and the other functions); `util.func public` -> `func.func`, `util.return` -> `return`; sizes reduced (the constant and result 13x23 -> 5x6); added the gradir entry @vjp_constant_pad_f32 (autodiff.vjp wrt the tensor) below the marker.
// gradir-corpus: entry=constant_pad_f32 wrt=0 reference=iree_insert_slice_dynamic_into_constant inputs=iree_insert_slice_dynamic_into_constant

func.func @constant_pad_f32(%arg0: tensor<?x?xf32>, %x: index, %y: index) -> tensor<5x6xf32> {
  %cst = arith.constant dense<1.0> : tensor<5x6xf32>
  %1 = tensor.insert_slice %arg0 into %cst[1, 2] [%x, %y] [1, 1] : tensor<?x?xf32> into tensor<5x6xf32>
  return %1 : tensor<5x6xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_constant_pad_f32(%a: tensor<?x?xf32>, %x: index, %y: index, %ct: tensor<5x6xf32>) -> (tensor<5x6xf32>, tensor<?x?xf32>) {
  %r:2 = autodiff.vjp @constant_pad_f32(%a, %x, %y, %ct) {wrt = array<i64: 0>} : (tensor<?x?xf32>, index, index, tensor<5x6xf32>) -> (tensor<5x6xf32>, tensor<?x?xf32>)
  return %r#0, %r#1 : tensor<5x6xf32>, tensor<?x?xf32>
}
