// Source: iree-org/iree compiler/src/iree/compiler/DispatchCreation/test/pad_fusion_with_consumer.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/compiler/src/iree/compiler/DispatchCreation/test/pad_fusion_with_consumer.mlir
// What: a tensor.pad of a dynamically shaped NHWC tensor by run-time high padding (four index arguments, pad value 42.0) feeding a convolution written as a linalg.generic with (d1 + d4, d2 + d5) input maps, all on tensors of dynamic shape, accumulating into a given output.
// Adaptations: kept only @fuse_with_consumer_generalized of the file (dropped the RUN/CHECK lines and the other function); `util.func public` -> `func.func`, `util.return` -> `return`; removed the run of trailing blanks between `linalg.yield %2 : f32` and `} -> tensor<?x?x?x?xf32>` (upstream has them on one line); added the gradir entry @vjp_fuse_with_consumer_generalized (autodiff.vjp wrt the input, the filter and the output) below the marker.
// gradir-corpus: entry=fuse_with_consumer_generalized wrt=0,5,6 reference=iree_pad_conv_dynamic inputs=iree_pad_conv_dynamic

func.func @fuse_with_consumer_generalized(%arg0: tensor<?x?x?x?xf32>, %arg1: index, %arg2: index, %arg3: index, %arg4: index, %arg5: tensor<?x?x?x?xf32>, %arg6: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %cst = arith.constant 4.200000e+01 : f32
  %padded = tensor.pad %arg0 low[0, 0, 0, 0] high[%arg1, %arg2, %arg3, %arg4] {
  ^bb0(%arg7: index, %arg8: index, %arg9: index, %arg10: index):
    tensor.yield %cst : f32
  } : tensor<?x?x?x?xf32> to tensor<?x?x?x?xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%padded, %arg5 : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) outs(%arg6 : tensor<?x?x?x?xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %1 = arith.mulf %in, %in_0 : f32
    %2 = arith.addf %out, %1 : f32
    linalg.yield %2 : f32 } -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_fuse_with_consumer_generalized(%x: tensor<?x?x?x?xf32>, %p1: index, %p2: index, %p3: index, %p4: index, %w: tensor<?x?x?x?xf32>, %o: tensor<?x?x?x?xf32>, %ct: tensor<?x?x?x?xf32>) -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) {
  %r:4 = autodiff.vjp @fuse_with_consumer_generalized(%x, %p1, %p2, %p3, %p4, %w, %o, %ct) {wrt = array<i64: 0, 5, 6>} : (tensor<?x?x?x?xf32>, index, index, index, index, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>
}
