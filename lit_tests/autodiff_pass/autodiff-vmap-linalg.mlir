// autodiff-vmap on linalg named ops (rules/batching_linalg.py): the named op stays a
// named op where its shape allows, never a loop over the batch. A matmul whose lhs alone is
// batched is one matmul over [B*M, K] rows; a batched rhs makes a linalg.batch_matmul; a
// convolution or pooling with an unbatched filter folds the batch into N; a batched filter
// is the convolution's linalg.generic with one more parallel dimension.
// RUN: autodiff-opt %s -p autodiff-vmap | filecheck %s
// RUN: autodiff-opt %s --pipeline linalg | filecheck %s --check-prefix=LINALG

// CHECK-LABEL: func.func @mm_vmap_0_n_to_0_x5(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<5x2x3xf64>, %[[W:[^:]*]]: tensor<3x4xf64>) -> tensor<5x2x4xf64>
// CHECK-NOT:     scf.for
// CHECK:         %[[XF:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0 : i64, 1 : i64], [2 : i64]] : tensor<5x2x3xf64> into tensor<10x3xf64>
// CHECK:         %[[C:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : tensor<5x2x4xf64>)
// CHECK:         %[[CF:.*]] = tensor.collapse_shape %[[C]] {{.*}} into tensor<10x4xf64>
// CHECK:         %[[P:.*]] = linalg.matmul ins(%[[XF]], %[[W]] : tensor<10x3xf64>, tensor<3x4xf64>) outs(%[[CF]] : tensor<10x4xf64>) -> tensor<10x4xf64>
// CHECK:         %[[PB:.*]] = tensor.expand_shape %[[P]] {{.*}} output_shape [5, 2, 4] : tensor<10x4xf64> into tensor<5x2x4xf64>
// CHECK:         linalg.tanh ins(%[[PB]] : tensor<5x2x4xf64>)
// CHECK:         func.return

// A batched rhs alone folds into the columns: one [M,K]x[K,B*N] matmul.
// CHECK-LABEL: func.func @mm_vmap_n_0_to_0_x5(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3xf64>, %[[W:[^:]*]]: tensor<5x3x4xf64>) -> tensor<5x2x4xf64>
// CHECK-NOT:     scf.for
// CHECK:         %[[WT:.*]] = autodiff.transpose %[[W]] {permutation = array<i64: 1, 0, 2>} : tensor<5x3x4xf64> -> tensor<3x5x4xf64>
// CHECK:         %[[WF:.*]] = autodiff.reshape %[[WT]] : tensor<3x5x4xf64> -> tensor<3x20xf64>
// CHECK:         %[[C:.*]] = linalg.fill ins(%{{.*}} : f64) outs(%{{.*}} : tensor<2x20xf64>)
// CHECK:         %[[P:.*]] = linalg.matmul ins(%[[X]], %[[WF]] : tensor<2x3xf64>, tensor<3x20xf64>) outs(%[[C]] : tensor<2x20xf64>) -> tensor<2x20xf64>
// CHECK:         %[[PS:.*]] = autodiff.reshape %[[P]] : tensor<2x20xf64> -> tensor<2x5x4xf64>
// CHECK:         autodiff.transpose %[[PS]] {permutation = array<i64: 1, 0, 2>} : tensor<2x5x4xf64> -> tensor<5x2x4xf64>
// CHECK:         func.return

// Both sides batched: a linalg.batch_matmul.
// CHECK-LABEL: func.func @mm_vmap_0_0_to_0_x5(
// CHECK-NOT:     scf.for
// CHECK:         linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<5x2x3xf64>, tensor<5x3x4xf64>) outs(%{{.*}} : tensor<5x2x4xf64>) -> tensor<5x2x4xf64>
// CHECK:         func.return

// B read transposed (MLIR's matmul_transpose_b): the rows still fold, the maps stay.
// CHECK-LABEL: func.func @mmt_vmap_0_n_to_0_x5(
// CHECK-NOT:     scf.for
// CHECK:         linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%{{.*}}, %{{.*}} : tensor<10x3xf64>, tensor<4x3xf64>) outs(%{{.*}} : tensor<10x4xf64>) -> tensor<10x4xf64>

// The op's own batch and vmap's fold into one batch dimension.
// CHECK-LABEL: func.func @bmm_vmap_0_0_to_0_x5(
// CHECK-NOT:     scf.for
// CHECK:         linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<35x2x3xf64>, tensor<35x3x4xf64>) outs(%{{.*}} : tensor<35x2x4xf64>) -> tensor<35x2x4xf64>
// CHECK:         tensor.expand_shape %{{.*}} output_shape [5, 7, 2, 4] : tensor<35x2x4xf64> into tensor<5x7x2x4xf64>

// Dimension properties shift past the batch dimension.
// CHECK-LABEL: func.func @dims_vmap_0_to_0_0_x5(
// CHECK:         linalg.transpose ins(%{{.*}} : tensor<5x2x3xf64>) outs(%{{.*}} : tensor<5x3x2xf64>) permutation = [0, 2, 1]
// CHECK:         linalg.broadcast ins(%{{.*}} : tensor<5x3x2xf64>) outs(%{{.*}} : tensor<5x3x4x2xf64>) dimensions = [2]
// CHECK:         linalg.reduce { arith.addf } ins(%{{.*}} : tensor<5x3x4x2xf64>) outs(%{{.*}} : tensor<5x3xf64>) dimensions = [2, 3]
// CHECK:         linalg.softmax dimension(2) ins(%{{.*}} : tensor<5x2x3xf64>)

// CHECK-LABEL: func.func @conv_vmap_0_n_to_0_x5(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<5x2x6x6x3xf64>, %[[K:[^:]*]]: tensor<3x3x3x4xf64>)
// CHECK-NOT:     scf.for
// CHECK:         %[[XF:.*]] = tensor.collapse_shape %[[X]] {{.*}} : tensor<5x2x6x6x3xf64> into tensor<10x6x6x3xf64>
// CHECK:         %[[Y:.*]] = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%[[XF]], %[[K]] : tensor<10x6x6x3xf64>, tensor<3x3x3x4xf64>) outs(%{{.*}} : tensor<10x4x4x4xf64>) -> tensor<10x4x4x4xf64>
// CHECK:         %[[YB:.*]] = tensor.expand_shape %[[Y]] {{.*}} : tensor<10x4x4x4xf64> into tensor<5x2x4x4x4xf64>
// CHECK:         %[[YF:.*]] = tensor.collapse_shape %[[YB]] {{.*}} : tensor<5x2x4x4x4xf64> into tensor<10x4x4x4xf64>
// CHECK:         linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%[[YF]], %{{.*}} : tensor<10x4x4x4xf64>, tensor<2x2xf64>) outs(%{{.*}} : tensor<10x2x2x4xf64>) -> tensor<10x2x2x4xf64>
// CHECK:         tensor.collapse_shape %{{.*}} {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64, 4 : i64]] : tensor<5x2x2x2x4xf64> into tensor<5x2x16xf64>
// CHECK:         func.return

// A batched filter: the generic view, the batch a leading parallel dimension that the
// image's map ignores.
// CHECK-LABEL: func.func @conv_vmap_n_0_to_0_x5(
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, (d2 + d5), (d3 + d6), d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d6, d7, d4)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<2x6x6x3xf64>, tensor<5x3x3x3x4xf64>) outs(%{{.*}} : tensor<5x2x4x4x4xf64>)

// After the whole linalg pipeline the batched functions hold no loop over the batch.
// LINALG-LABEL: func.func @mm_vmap_0_n_to_0_x5(
// LINALG-NOT:    scf.for
// LINALG:        linalg.matmul
// LINALG-LABEL: func.func @mm_vmap_n_0_to_0_x5(
// LINALG-NOT:    scf.for
// LINALG:        linalg.matmul
// LINALG-LABEL: func.func @mm_vmap_0_0_to_0_x5(
// LINALG-NOT:    scf.for
// LINALG:        linalg.batch_matmul
// LINALG-LABEL: func.func @conv_vmap_0_n_to_0_x5(
// LINALG-NOT:    scf.for
// LINALG:        linalg.conv_2d_nhwc_hwcf
// LINALG-NOT:    scf.for
// LINALG:        func.return

func.func @mm(%x: tensor<2x3xf64>, %w: tensor<3x4xf64>) -> tensor<2x4xf64> {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<2x4xf64>
  %c = linalg.fill ins(%z : f64) outs(%e : tensor<2x4xf64>) -> tensor<2x4xf64>
  %m = linalg.matmul ins(%x, %w : tensor<2x3xf64>, tensor<3x4xf64>) outs(%c : tensor<2x4xf64>) -> tensor<2x4xf64>
  %t = linalg.tanh ins(%m : tensor<2x4xf64>) outs(%e : tensor<2x4xf64>) -> tensor<2x4xf64>
  return %t : tensor<2x4xf64>
}
func.func @mmt(%x: tensor<2x3xf64>, %w: tensor<4x3xf64>) -> tensor<2x4xf64> {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<2x4xf64>
  %c = linalg.fill ins(%z : f64) outs(%e : tensor<2x4xf64>) -> tensor<2x4xf64>
  %m = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %w : tensor<2x3xf64>, tensor<4x3xf64>) outs(%c : tensor<2x4xf64>) -> tensor<2x4xf64>
  return %m : tensor<2x4xf64>
}
func.func @main_mmt(%xs: tensor<5x2x3xf64>, %w: tensor<4x3xf64>) -> tensor<5x2x4xf64> {
  %r = autodiff.vmap @mmt(%xs, %w) {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>, size = 5 : i64} : (tensor<5x2x3xf64>, tensor<4x3xf64>) -> tensor<5x2x4xf64>
  return %r : tensor<5x2x4xf64>
}
func.func @bmm(%x: tensor<7x2x3xf64>, %w: tensor<7x3x4xf64>) -> tensor<7x2x4xf64> {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<7x2x4xf64>
  %c = linalg.fill ins(%z : f64) outs(%e : tensor<7x2x4xf64>) -> tensor<7x2x4xf64>
  %m = linalg.batch_matmul ins(%x, %w : tensor<7x2x3xf64>, tensor<7x3x4xf64>) outs(%c : tensor<7x2x4xf64>) -> tensor<7x2x4xf64>
  return %m : tensor<7x2x4xf64>
}
func.func @dims(%x: tensor<2x3xf64>) -> (tensor<3xf64>, tensor<2x3xf64>) {
  %z = arith.constant 0.0 : f64
  %et = tensor.empty() : tensor<3x2xf64>
  %t = linalg.transpose ins(%x : tensor<2x3xf64>) outs(%et : tensor<3x2xf64>) permutation = [1, 0]
  %eb = tensor.empty() : tensor<3x4x2xf64>
  %b = linalg.broadcast ins(%t : tensor<3x2xf64>) outs(%eb : tensor<3x4x2xf64>) dimensions = [1]
  %er = tensor.empty() : tensor<3xf64>
  %cr = linalg.fill ins(%z : f64) outs(%er : tensor<3xf64>) -> tensor<3xf64>
  %r = linalg.reduce { arith.addf } ins(%b : tensor<3x4x2xf64>) outs(%cr : tensor<3xf64>) dimensions = [1, 2]
  %es = tensor.empty() : tensor<2x3xf64>
  %s = linalg.softmax dimension(1) ins(%x : tensor<2x3xf64>) outs(%es : tensor<2x3xf64>) -> tensor<2x3xf64>
  return %r, %s : tensor<3xf64>, tensor<2x3xf64>
}
func.func @conv(%x: tensor<2x6x6x3xf64>, %k: tensor<3x3x3x4xf64>) -> tensor<2x16xf64> {
  %z = arith.constant 0.0 : f64
  %low = arith.constant -1.0e30 : f64
  %ec = tensor.empty() : tensor<2x4x4x4xf64>
  %cc = linalg.fill ins(%z : f64) outs(%ec : tensor<2x4x4x4xf64>) -> tensor<2x4x4x4xf64>
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %k : tensor<2x6x6x3xf64>, tensor<3x3x3x4xf64>) outs(%cc : tensor<2x4x4x4xf64>) -> tensor<2x4x4x4xf64>
  %ep = tensor.empty() : tensor<2x2x2x4xf64>
  %cp = linalg.fill ins(%low : f64) outs(%ep : tensor<2x2x2x4xf64>) -> tensor<2x2x2x4xf64>
  %window = tensor.empty() : tensor<2x2xf64>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%y, %window : tensor<2x4x4x4xf64>, tensor<2x2xf64>) outs(%cp : tensor<2x2x2x4xf64>) -> tensor<2x2x2x4xf64>
  %f = tensor.collapse_shape %p [[0], [1, 2, 3]] : tensor<2x2x2x4xf64> into tensor<2x16xf64>
  return %f : tensor<2x16xf64>
}
func.func @main(%xs: tensor<5x2x3xf64>, %w: tensor<3x4xf64>, %x: tensor<2x3xf64>, %ws: tensor<5x3x4xf64>,
                %bx: tensor<5x7x2x3xf64>, %bw: tensor<5x7x3x4xf64>,
                %images: tensor<5x2x6x6x3xf64>, %image: tensor<2x6x6x3xf64>, %k: tensor<3x3x3x4xf64>, %ks: tensor<5x3x3x3x4xf64>)
    -> (tensor<5x2x4xf64>, tensor<5x2x4xf64>, tensor<5x7x2x4xf64>, tensor<5x3xf64>, tensor<5x2x3xf64>, tensor<5x2x16xf64>, tensor<5x2x16xf64>) {
  %a = autodiff.vmap @mm(%xs, %w) {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>, size = 5 : i64} : (tensor<5x2x3xf64>, tensor<3x4xf64>) -> tensor<5x2x4xf64>
  %b = autodiff.vmap @mm(%x, %ws) {in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>, size = 5 : i64} : (tensor<2x3xf64>, tensor<5x3x4xf64>) -> tensor<5x2x4xf64>
  %b2 = autodiff.vmap @mm(%xs, %ws) {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>, size = 5 : i64} : (tensor<5x2x3xf64>, tensor<5x3x4xf64>) -> tensor<5x2x4xf64>
  %b3 = autodiff.add %b, %b2 : (tensor<5x2x4xf64>, tensor<5x2x4xf64>) -> tensor<5x2x4xf64>
  %c = autodiff.vmap @bmm(%bx, %bw) {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>, size = 5 : i64} : (tensor<5x7x2x3xf64>, tensor<5x7x3x4xf64>) -> tensor<5x7x2x4xf64>
  %d:2 = autodiff.vmap @dims(%xs) {in_axes = array<i64: 0>, out_axes = array<i64: 0, 0>, size = 5 : i64} : (tensor<5x2x3xf64>) -> (tensor<5x3xf64>, tensor<5x2x3xf64>)
  %e = autodiff.vmap @conv(%images, %k) {in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>, size = 5 : i64} : (tensor<5x2x6x6x3xf64>, tensor<3x3x3x4xf64>) -> tensor<5x2x16xf64>
  %f = autodiff.vmap @conv(%image, %ks) {in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>, size = 5 : i64} : (tensor<2x6x6x3xf64>, tensor<5x3x3x3x4xf64>) -> tensor<5x2x16xf64>
  return %a, %b3, %c, %d#0, %d#1, %e, %f : tensor<5x2x4xf64>, tensor<5x2x4xf64>, tensor<5x7x2x4xf64>, tensor<5x3xf64>, tensor<5x2x3xf64>, tensor<5x2x16xf64>, tensor<5x2x16xf64>
}

// A body reading an element of a batched tensor from outside (a gather: an embedding row, a
// label's log-probability) reads it in its lane: the batch index first, read once at the
// top of the body. Both for a linalg.map and for the generic it is.
// CHECK-LABEL: func.func @gathers_vmap_n_0_to_0_x3(
// CHECK-SAME:    %{{[^:]*}}: tensor<4xf64>, %[[S:[^:]*]]: tensor<3x2xf64>) -> tensor<3x4xf64>
// CHECK:         linalg.generic
// CHECK-NEXT:    ^{{.*}}:
// CHECK-NEXT:      %[[LANE:.*]] = linalg.index 0 : index
// CHECK:           %[[I:.*]] = linalg.index 1 : index
// CHECK:           %[[K:.*]] = arith.remui %[[I]], %{{.*}} : index
// CHECK:           tensor.extract %[[S]][%[[LANE]], %[[K]]] : tensor<3x2xf64>
func.func @gathers(%x: tensor<4xf64>, %s: tensor<2xf64>) -> tensor<4xf64> {
  %e = tensor.empty() : tensor<4xf64>
  %c2 = arith.constant 2 : index
  %m = linalg.map ins(%x : tensor<4xf64>) outs(%e : tensor<4xf64>)
    (%in: f64, %o: f64) {
      %i = linalg.index 0 : index
      %k = arith.remui %i, %c2 : index
      %v = tensor.extract %s[%k] : tensor<2xf64>
      %p = arith.mulf %in, %v : f64
      linalg.yield %p : f64
    }
  return %m : tensor<4xf64>
}
func.func @gathers_batched(%x: tensor<4xf64>, %ss: tensor<3x2xf64>) -> tensor<3x4xf64> {
  %r = autodiff.vmap @gathers(%x, %ss) {in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>, size = 3 : i64} : (tensor<4xf64>, tensor<3x2xf64>) -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}
