// Source: iree-org/iree compiler/src/iree/compiler/DispatchCreation/test/pad_fusion_with_consumer.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/compiler/src/iree/compiler/DispatchCreation/test/pad_fusion_with_consumer.mlir
// What: a tensor.pad of a dynamically shaped NHWC tensor by run-time high padding (four index arguments, constant pad value 42.0) feeding linalg.conv_2d_nhwc_hwcf on tensors of dynamic shape, accumulating into a given output.
// Adaptations: kept only @fuse_with_consumer_named_op of the file (dropped the RUN/CHECK lines and the other function); `util.func public` -> `func.func`, `util.return` -> `return`; added the gradir entry @vjp_fuse_with_consumer_named_op (autodiff.vjp wrt the input, the filter and the output) below the marker.
// gradir-corpus: entry=fuse_with_consumer_named_op wrt=0,5,6 reference=iree_pad_conv_dynamic inputs=iree_pad_conv_dynamic

func.func @fuse_with_consumer_named_op(%arg0 : tensor<?x?x?x?xf32>, %arg1 : index,
    %arg2 : index, %arg3 : index, %arg4 : index,
    %arg5 : tensor<?x?x?x?xf32>, %arg6 : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %cst = arith.constant 42.0 : f32
  %0 = tensor.pad %arg0 low[0, 0, 0, 0] high[%arg1, %arg2, %arg3, %arg4] {
  ^bb0(%b0 : index, %b1 : index, %b2 : index, %b3 : index) :
    tensor.yield %cst : f32
  } : tensor<?x?x?x?xf32> to tensor<?x?x?x?xf32>
  %1 = linalg.conv_2d_nhwc_hwcf ins(%0, %arg5 : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>)
      outs(%arg6 : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  return %1 : tensor<?x?x?x?xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_fuse_with_consumer_named_op(%x: tensor<?x?x?x?xf32>, %p1: index, %p2: index, %p3: index, %p4: index, %w: tensor<?x?x?x?xf32>, %o: tensor<?x?x?x?xf32>, %ct: tensor<?x?x?x?xf32>) -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) {
  %r:4 = autodiff.vjp @fuse_with_consumer_named_op(%x, %p1, %p2, %p3, %p4, %w, %o, %ct) {wrt = array<i64: 0, 5, 6>} : (tensor<?x?x?x?xf32>, index, index, index, index, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>
}
