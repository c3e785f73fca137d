// Source: pengmai/lagrad test/LAGrad/hand/skinned_vertex_subset.mlir (commit 2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7), https://github.com/pengmai/lagrad/blob/2c5b7cd85db7abe0ce9b0d2f5d051ee8270216d7/test/LAGrad/hand/skinned_vertex_subset.mlir
// What: ADBench Hand skinning: scf.for over bones accumulating into a tensor iter_arg; a column-major matmul generic (maps (d2, d0), (d1, d2) -> (d1, d0)) on a slice of the transforms, a rank-reducing column slice of the weights, and a broadcast multiply-accumulate generic writing into the iter_arg.
// Adaptations: `func` -> `func.func`; shapes reduced to keep the corpus fast (544 vertices -> 5, 22 bones -> 3, so the loop bound constant 22 -> 3); dropped the wrapper @lagrad_skinned_vertex_subset (lagrad.grad wrt the transforms) and the print declaration; removed the upstream comment lines (file descriptions, commented-out code); added the gradir entry @vjp_skinned_vertex_subset (autodiff.vjp, same wrt) below the marker.
// gradir-corpus: entry=skinned_vertex_subset wrt=0 reference=skinned_vertex_subset


func.func @skinned_vertex_subset(%transforms: tensor<3x4x4xf64>, %base_positions: tensor<5x4xf64>, %weights: tensor<5x3xf64>) -> tensor<5x3xf64> {
  %positions_init = arith.constant dense<0.0> : tensor<5x3xf64>
  %zero = arith.constant 0.0 : f64
  %curr_positions_init = arith.constant dense<0.0> : tensor<5x4xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cb = arith.constant 3 : index
  %positions = scf.for %iv = %c0 to %cb step %c1 iter_args(%positions_i = %positions_init) -> tensor<5x3xf64> {
    %transforms_slice = tensor.extract_slice %transforms[%iv, 0, 0] [1, 4, 4] [1, 1, 1] : tensor<3x4x4xf64> to tensor<4x4xf64>
    %curr_positions = linalg.generic
      {
        doc = "Column-major matrix multiplication",
        indexing_maps = [
          affine_map<(d0, d1, d2) -> (d2, d0)>,
          affine_map<(d0, d1, d2) -> (d1, d2)>,
          affine_map<(d0, d1, d2) -> (d1, d0)>
        ],
        iterator_types = ["parallel", "parallel", "reduction"]
      }
      ins(%transforms_slice, %base_positions : tensor<4x4xf64>, tensor<5x4xf64>)
      outs(%curr_positions_init : tensor<5x4xf64>) {
    ^bb0(%arg0: f64, %arg1: f64, %arg2: f64):
      %0 = arith.mulf %arg0, %arg1 : f64
      %1 = arith.addf %0, %arg2 : f64
      linalg.yield %1 : f64
    } -> tensor<5x4xf64>
    %cp_slice = tensor.extract_slice %curr_positions[0, 0] [5, 3] [1, 1] : tensor<5x4xf64> to tensor<5x3xf64>
    %weight_slice = tensor.extract_slice %weights[0, %iv] [5, 1] [1, 1] : tensor<5x3xf64> to tensor<5xf64>

    %positions_next = linalg.generic
      {
        indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
        iterator_types = ["parallel", "parallel"]
      }
      ins(%cp_slice, %weight_slice : tensor<5x3xf64>, tensor<5xf64>)
      outs(%positions_i : tensor<5x3xf64>) {
    ^bb0(%arg0: f64, %arg1: f64, %arg2: f64):
      %0 = arith.mulf %arg0, %arg1 : f64
      %1 = arith.addf %0, %arg2 : f64
      linalg.yield %1 : f64
    } -> tensor<5x3xf64>
    scf.yield %positions_next : tensor<5x3xf64>
  }
  return %positions : tensor<5x3xf64>
}


// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_skinned_vertex_subset(%t: tensor<3x4x4xf64>, %p: tensor<5x4xf64>, %w: tensor<5x3xf64>, %ct: tensor<5x3xf64>) -> (tensor<5x3xf64>, tensor<3x4x4xf64>) {
  %r:2 = autodiff.vjp @skinned_vertex_subset(%t, %p, %w, %ct) {wrt = array<i64: 0>} : (tensor<3x4x4xf64>, tensor<5x4xf64>, tensor<5x3xf64>, tensor<5x3xf64>) -> (tensor<5x3xf64>, tensor<3x4x4xf64>)
  return %r#0, %r#1 : tensor<5x3xf64>, tensor<3x4x4xf64>
}
