// Source: iree-org/iree compiler/src/iree/compiler/DispatchCreation/test/bubble_up_expand_shapes.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/compiler/src/iree/compiler/DispatchCreation/test/bubble_up_expand_shapes.mlir
// What: tensor.concat along the inner dimension of a dynamically sized and a static tensor, then tensor.expand_shape of the dynamic concatenated dimension into (5, ?) with the dynamic size an index argument (output_shape [10, 5, %dim]).
// Adaptations: kept only @test_dont_bubble_expand_dynamic_non_outermost of the file (dropped the RUN/CHECK lines, the comment and the other functions); `util.func public` -> `func.func`, `util.return` -> `return`; sizes reduced (the leading 10 -> 2 everywhere, the static operand tensor<10x10xf32> -> tensor<2x10xf32>; the inner 10 and the expansion factor 5 kept); added the gradir entry @vjp_test_dont_bubble_expand_dynamic_non_outermost (autodiff.vjp wrt both tensors) below the marker.
// gradir-corpus: entry=test_dont_bubble_expand_dynamic_non_outermost wrt=0,1 reference=iree_concat_expand_dynamic inputs=iree_concat_expand_dynamic

func.func @test_dont_bubble_expand_dynamic_non_outermost(%arg0 : tensor<2x?xf32>, %arg1 : tensor<2x10xf32>, %dim : index) -> tensor<2x5x?xf32>{
  %0 = tensor.concat dim(1) %arg0, %arg1 : (tensor<2x?xf32>, tensor<2x10xf32>) -> tensor<2x?xf32>
  %1 = tensor.expand_shape %0 [[0],[1, 2]] output_shape [2, 5, %dim] : tensor<2x?xf32> into tensor<2x5x?xf32>
  return %1 : tensor<2x5x?xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_test_dont_bubble_expand_dynamic_non_outermost(%a: tensor<2x?xf32>, %b: tensor<2x10xf32>, %dim: index, %ct: tensor<2x5x?xf32>) -> (tensor<2x5x?xf32>, tensor<2x?xf32>, tensor<2x10xf32>) {
  %r:3 = autodiff.vjp @test_dont_bubble_expand_dynamic_non_outermost(%a, %b, %dim, %ct) {wrt = array<i64: 0, 1>} : (tensor<2x?xf32>, tensor<2x10xf32>, index, tensor<2x5x?xf32>) -> (tensor<2x5x?xf32>, tensor<2x?xf32>, tensor<2x10xf32>)
  return %r#0, %r#1, %r#2 : tensor<2x5x?xf32>, tensor<2x?xf32>, tensor<2x10xf32>
}
