// Source: iree-org/iree compiler/src/iree/compiler/DispatchCreation/test/collapse_linalg_generic_on_tensors.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/compiler/src/iree/compiler/DispatchCreation/test/collapse_linalg_generic_on_tensors.mlir
// What: an 8-d transpose (dims 4 and 5 swapped) written as a linalg.generic that yields its input, with a type alias (!type) for the tensor type and one loop marked "reduction" although the output map uses it (each output element is still written exactly once).
// Adaptations: kept only @collapse4 of the file with its `!type` alias (dropped the RUN/CHECK lines, the comments and the other functions); `util.func public` -> `func.func`, `util.return` -> `return`; the input read from the global @"__transpose_10_input" (util.global, util.global.address, util.global.load.indirect) became the function argument %input; sizes reduced (!type = tensor<2x4x8x16x64x64x128x256xf32> -> tensor<1x2x2x1x2x2x1x2xf32>); removed the unused %cst and %c0 and the blank line before the closing brace; added the gradir entry @vjp_collapse4 (autodiff.vjp) below the marker.
// gradir-corpus: entry=collapse4 wrt=0 reference=iree_transpose_reduction_iterator inputs=signed

!type = tensor<1x2x2x1x2x2x1x2xf32>
func.func @collapse4(%input : !type) -> !type {
  %output = tensor.empty() : !type

  // Can collapse (d0, d1) and (d6, d7)
  %result = linalg.generic { indexing_maps = [
          affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4, d5, d6, d7)>,
          affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d5, d4, d6, d7)>],
          iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "parallel", "parallel", "parallel"]
        }
  ins(%input : !type) outs(%output : !type) {
  ^bb0(%arg1: f32, %arg2: f32):
    linalg.yield %arg1 : f32
  } -> !type
  return %result: !type
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_collapse4(%x: !type, %ct: !type) -> (!type, !type) {
  %r:2 = autodiff.vjp @collapse4(%x, %ct) {wrt = array<i64: 0>} : (!type, !type) -> (!type, !type)
  return %r#0, %r#1 : !type, !type
}
