// autodiff-vmap of element reads and writes, tensor ops and data-dependent control flow:
// a batched scalar is tensor<B x type>. An element at a shared index is one rank-reducing
// slice per batch; at an index that depends on the example, a tensor.gather/scatter whose
// first coordinate is the lane; a branch on a batched condition is a per-lane select; a
// while loop on one runs while any lane continues, stopped lanes keeping their state.
// Never an scf.for over the batch.
// RUN: autodiff-opt %s -p autodiff-vmap --split-input-file | filecheck %s
// RUN: autodiff-opt %s --pipeline linalg --split-input-file | filecheck %s --check-prefix=LINALG

// CHECK-LABEL: func.func @elements_vmap_0_0_to_0_0_x3(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3x5xf64>, %[[K:[^:]*]]: tensor<3xf64>)
// CHECK:         %[[E:.*]] = tensor.extract_slice %[[X]][0, %{{.*}}] [3, 1] [1, 1] : tensor<3x5xf64> to tensor<3xf64>
// CHECK:         %[[KI:.*]] = linalg.generic {{.*}} ins(%[[K]] : tensor<3xf64>) outs(%{{.*}} : tensor<3xi64>)
// CHECK:           arith.fptosi %{{.*}} : f64 to i64
// CHECK:         %[[J:.*]] = linalg.generic {{.*}} ins(%[[KI]] : tensor<3xi64>) outs(%{{.*}} : tensor<3xindex>)
// CHECK:         %[[JC:.*]] = tensor.expand_shape %[[J]] {{.*}} : tensor<3xindex> into tensor<3x1xindex>
// CHECK:         %[[LANE:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3x1xindex>)
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: index):
// CHECK-NEXT:      %[[B:.*]] = linalg.index 0 : index
// CHECK-NEXT:      linalg.yield %[[B]] : index
// CHECK:         %[[AT:.*]] = tensor.concat dim(1) %[[LANE]], %[[JC]] : (tensor<3x1xindex>, tensor<3x1xindex>) -> tensor<3x2xindex>
// CHECK:         %[[G:.*]] = tensor.gather %[[X]][%[[AT]]] gather_dims([0, 1]) unique : (tensor<3x5xf64>, tensor<3x2xindex>) -> tensor<3xf64>
// CHECK:         %[[P:.*]] = arith.mulf %[[E]], %[[G]] : tensor<3xf64>
// CHECK:         %[[INS:.*]] = tensor.scatter %[[P]] into %[[X]][%{{.*}}] scatter_dims([0, 1]) unique : (tensor<3xf64>, tensor<3x5xf64>, tensor<3x2xindex>) -> tensor<3x5xf64>
// CHECK:         %[[S:.*]] = math.sin %[[E]] : tensor<3xf64>
// CHECK:         tensor.insert_slice %[[S]] into %[[INS]][0, %{{.*}}] [3, 1] [1, 1] : tensor<3xf64> into tensor<3x5xf64>
// The branch on g > 0 (one condition per example): both branches, then a per-lane select.
// CHECK:         %[[C:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3xi1>)
// CHECK:           arith.cmpf ogt
// CHECK-NOT:     scf.if
// CHECK:         %[[T:.*]] = arith.addf %[[G]], %[[G]] : tensor<3xf64>
// CHECK:         %[[F:.*]] = math.exp %[[E]] : tensor<3xf64>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[C]], %[[T]], %[[F]] : tensor<3xi1>, tensor<3xf64>, tensor<3xf64>)
// CHECK:           arith.select
// CHECK-NOT:     scf.for
// CHECK:         func.return

// LINALG-LABEL: func.func @elements_vmap_0_0_to_0_0_x3(
// LINALG-NOT:    scf.for
// LINALG-NOT:    tensor.gather
// LINALG-NOT:    tensor.scatter
// LINALG:        func.return

func.func private @elements(%x: tensor<5xf64>, %k: tensor<f64>) -> (tensor<5xf64>, tensor<f64>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %e = tensor.extract %x[%c1] : tensor<5xf64>
  %kk = tensor.extract %k[] : tensor<f64>
  %ki = arith.fptosi %kk : f64 to i64
  %j = arith.index_cast %ki : i64 to index
  %g = tensor.extract %x[%j] : tensor<5xf64>
  %p = arith.mulf %e, %g : f64
  %ins = tensor.insert %p into %x[%j] : tensor<5xf64>
  %s = math.sin %e : f64
  %ins2 = tensor.insert %s into %ins[%c2] : tensor<5xf64>
  %zero = arith.constant 0.0 : f64
  %positive = arith.cmpf ogt, %g, %zero : f64
  %b = scf.if %positive -> (f64) {
    %twice = arith.addf %g, %g : f64
    scf.yield %twice : f64
  } else {
    %ex = math.exp %e : f64
    scf.yield %ex : f64
  }
  %bt = tensor.from_elements %b : tensor<f64>
  return %ins2, %bt : tensor<5xf64>, tensor<f64>
}
func.func @main(%xs: tensor<3x5xf64>, %ks: tensor<3xf64>) -> (tensor<3x5xf64>, tensor<3xf64>) {
  %r:2 = autodiff.vmap @elements(%xs, %ks) {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0, 0>, size = 3 : i64} : (tensor<3x5xf64>, tensor<3xf64>) -> (tensor<3x5xf64>, tensor<3xf64>)
  return %r#0, %r#1 : tensor<3x5xf64>, tensor<3xf64>
}

// -----

// A while loop whose condition depends on the example: the state and each lane's condition
// are carried; the before region continues while any lane does; the body keeps the old
// state of the lanes that stopped and computes the condition of the new state.
// CHECK-LABEL: func.func @loop_vmap_0_to_0_x3(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3x2xf64>)
// CHECK:         %[[S0:.*]] = autodiff.sum %[[X]] {dims = array<i64: 1>} : tensor<3x2xf64> -> tensor<3xf64>
// CHECK:         %[[C0:.*]] = linalg.generic {{.*}} ins(%[[S0]], %{{.*}} : tensor<3xf64>, tensor<3xf64>) outs(%{{.*}} : tensor<3xi1>)
// CHECK:         scf.while (%[[V:.*]] = %[[X]], %[[L:.*]] = %[[C0]]) : (tensor<3x2xf64>, tensor<3xi1>) -> (tensor<3x2xf64>, tensor<3xi1>) {
// CHECK:           %[[ANY:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%[[L]] : tensor<3xi1>)
// CHECK:             arith.ori
// CHECK:           %[[A:.*]] = tensor.extract %[[ANY]][] : tensor<i1>
// CHECK:           scf.condition(%[[A]]) %[[V]], %[[L]] : tensor<3x2xf64>, tensor<3xi1>
// CHECK:         } do {
// CHECK:         ^{{.*}}(%[[V2:.*]]: tensor<3x2xf64>, %[[L2:.*]]: tensor<3xi1>):
// CHECK:           autodiff.add
// CHECK:           %[[N:.*]] = autodiff.add
// CHECK:           %[[KEPT:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, {{.*}}} ins(%[[L2]], %[[N]], %[[V2]] : tensor<3xi1>, tensor<3x2xf64>, tensor<3x2xf64>)
// CHECK:             arith.select
// CHECK:           autodiff.sum %[[KEPT]]
// CHECK:           scf.yield %[[KEPT]], %{{.*}} : tensor<3x2xf64>, tensor<3xi1>
// CHECK-NOT:     scf.for
// CHECK:         func.return

// LINALG-LABEL: func.func @loop_vmap_0_to_0_x3(
// LINALG-NOT:    scf.for
// LINALG:        scf.while
// LINALG-NOT:    scf.for
// LINALG:        func.return

func.func private @loop(%x: tensor<2xf64>) -> tensor<2xf64> {
  %r = scf.while (%v = %x) : (tensor<2xf64>) -> tensor<2xf64> {
    %s = autodiff.sum %v : tensor<2xf64> -> tensor<f64>
    %e = tensor.extract %s[] : tensor<f64>
    %lim = arith.constant 10.0 : f64
    %c = arith.cmpf olt, %e, %lim : f64
    scf.condition(%c) %v : tensor<2xf64>
  } do {
  ^bb0(%v: tensor<2xf64>):
    %t = autodiff.tanh %v : tensor<2xf64>
    %d = autodiff.add %v, %v : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
    %n = autodiff.add %d, %t : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
    scf.yield %n : tensor<2xf64>
  }
  return %r : tensor<2xf64>
}
func.func @main(%xs: tensor<3x2xf64>) -> tensor<3x2xf64> {
  %r = autodiff.vmap @loop(%xs) {in_axes = array<i64: 0>, out_axes = array<i64: 0>, size = 3 : i64} : (tensor<3x2xf64>) -> tensor<3x2xf64>
  return %r : tensor<3x2xf64>
}

// -----

// Tensor ops leave the batch dimension alone: pad gets no padding along it (and its body
// the lane's index first), reassociations gain a group of their own, concat shifts its dim,
// from_elements joins [B] columns, an affine.for becomes the scf.for it stands for (over
// its own trip count, not over the batch).
// CHECK-LABEL: func.func @shapes_vmap_0_to_0_0_0_0_x4(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x2x3xf64>)
// CHECK:         tensor.pad %[[X]] low[0, 1, 0] high[0, 0, 2] {
// CHECK-NEXT:    ^{{.*}}(%{{.*}}: index, %{{.*}}: index, %{{.*}}: index):
// CHECK:         } : tensor<4x2x3xf64> to tensor<4x3x5xf64>
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0 : i64], [1 : i64, 2 : i64]] : tensor<4x2x3xf64> into tensor<4x6xf64>
// CHECK:         tensor.concat dim(1) %[[FLAT]], %[[FLAT]] : (tensor<4x6xf64>, tensor<4x6xf64>) -> tensor<4x12xf64>
// CHECK:         %[[A:.*]] = tensor.extract_slice %[[X]][0, %{{.*}}, %{{.*}}] [4, 1, 1] [1, 1, 1] : tensor<4x2x3xf64> to tensor<4xf64>
// CHECK:         %[[B:.*]] = tensor.extract_slice %[[X]][0, %{{.*}}, %{{.*}}] [4, 1, 1] [1, 1, 1] : tensor<4x2x3xf64> to tensor<4xf64>
// CHECK:         %[[AC:.*]] = tensor.expand_shape %[[A]] {{.*}} into tensor<4x1xf64>
// CHECK:         %[[BC:.*]] = tensor.expand_shape %[[B]] {{.*}} into tensor<4x1xf64>
// CHECK:         tensor.concat dim(1) %[[AC]], %[[BC]] : (tensor<4x1xf64>, tensor<4x1xf64>) -> tensor<4x2xf64>
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[C4]] step %{{.*}} iter_args(%{{.*}} = %[[X]]) -> (tensor<4x2x3xf64>)
// CHECK:           autodiff.tanh %{{.*}} : tensor<4x2x3xf64>
// CHECK-NOT:     affine.for
// CHECK:         func.return

func.func private @shapes(%x: tensor<2x3xf64>) -> (tensor<3x5xf64>, tensor<12xf64>, tensor<2xf64>, tensor<2x3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %padded = tensor.pad %x low[1, 0] high[0, 2] {
  ^bb0(%i: index, %j: index):
    %half = arith.constant 0.5 : f64
    tensor.yield %half : f64
  } : tensor<2x3xf64> to tensor<3x5xf64>
  %flat = tensor.collapse_shape %x [[0, 1]] : tensor<2x3xf64> into tensor<6xf64>
  %twice = tensor.concat dim(0) %flat, %flat : (tensor<6xf64>, tensor<6xf64>) -> tensor<12xf64>
  %a = tensor.extract %x[%c0, %c1] : tensor<2x3xf64>
  %b = tensor.extract %x[%c1, %c0] : tensor<2x3xf64>
  %pair = tensor.from_elements %a, %b : tensor<2xf64>
  %r = affine.for %i = 0 to 4 iter_args(%acc = %x) -> (tensor<2x3xf64>) {
    %t = autodiff.tanh %acc : tensor<2x3xf64>
    affine.yield %t : tensor<2x3xf64>
  }
  return %padded, %twice, %pair, %r : tensor<3x5xf64>, tensor<12xf64>, tensor<2xf64>, tensor<2x3xf64>
}
func.func @main(%xs: tensor<4x2x3xf64>) -> (tensor<4x3x5xf64>, tensor<4x12xf64>, tensor<4x2xf64>, tensor<4x2x3xf64>) {
  %r:4 = autodiff.vmap @shapes(%xs) {in_axes = array<i64: 0>, out_axes = array<i64: 0, 0, 0, 0>, size = 4 : i64} : (tensor<4x2x3xf64>) -> (tensor<4x3x5xf64>, tensor<4x12xf64>, tensor<4x2xf64>, tensor<4x2x3xf64>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<4x3x5xf64>, tensor<4x12xf64>, tensor<4x2xf64>, tensor<4x2x3xf64>
}

// -----

// Tensors of dynamic shape: every example has the same run-time extents, read one dimension
// further in (tensor.dim), passed on to expand_shape's output sizes, and to a reshape's shape
// behind the batch size; moving a batch axis of a dynamic tensor is a linalg.transpose.
// CHECK-LABEL: func.func @sizes_vmap_1_n_to_0_0_0_x3(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<?x3x2xf64>, %[[SHAPE:[^:]*]]: tensor<2xindex>)
// CHECK:         %[[N0:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x3x2xf64>
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<?x3x2xf64>) outs(%{{.*}} : tensor<3x?x2xf64>) permutation = [1, 0, 2]
// CHECK:         %[[ONE:.*]] = arith.constant 1 : index
// CHECK:         %[[N:.*]] = tensor.dim %[[T]], %[[ONE]] : tensor<3x?x2xf64>
// CHECK:         %[[Y:.*]] = linalg.generic {{.*}} ins(%[[T]] : tensor<3x?x2xf64>) outs(%{{.*}} : tensor<3x?x2xf64>)
// CHECK:         %[[Z:.*]] = tensor.expand_shape %[[Y]] {{.*}} output_shape [3, %[[N]], 2, 1] : tensor<3x?x2xf64> into tensor<3x?x2x1xf64>
// CHECK:         %[[B:.*]] = arith.constant 3 : index
// CHECK:         %[[LEAD:.*]] = tensor.from_elements %[[B]] : tensor<1xindex>
// CHECK:         %[[BSHAPE:.*]] = tensor.concat dim(0) %[[LEAD]], %[[SHAPE]] : (tensor<1xindex>, tensor<2xindex>) -> tensor<3xindex>
// CHECK:         %[[FLAT:.*]] = tensor.reshape %[[Y]](%[[BSHAPE]]) : (tensor<3x?x2xf64>, tensor<3xindex>) -> tensor<3x?x?xf64>
// CHECK:         %[[TWO:.*]] = arith.constant 2 : index
// CHECK:         %[[M:.*]] = tensor.dim %[[FLAT]], %[[TWO]] : tensor<3x?x?xf64>
// CHECK:         %[[ROW:.*]] = tensor.extract_slice %[[FLAT]][0, 0, 0] [3, 1, %[[M]]] [1, 1, 1] : tensor<3x?x?xf64> to tensor<3x?xf64>
// CHECK:         func.return %[[Y]], %[[Z]], %[[ROW]]

func.func private @sizes(%x: tensor<?x2xf64>, %shape: tensor<2xindex>) -> (tensor<?x2xf64>, tensor<?x2x1xf64>, tensor<?xf64>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x2xf64>
  %e = tensor.empty(%n) : tensor<?x2xf64>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x2xf64>) outs(%e : tensor<?x2xf64>) {
  ^bb0(%a: f64, %b: f64):
    %s = math.sin %a : f64
    linalg.yield %s : f64
  } -> tensor<?x2xf64>
  %z = tensor.expand_shape %y [[0], [1, 2]] output_shape [%n, 2, 1] : tensor<?x2xf64> into tensor<?x2x1xf64>
  %flat = tensor.reshape %y(%shape) : (tensor<?x2xf64>, tensor<2xindex>) -> tensor<?x?xf64>
  %c1 = arith.constant 1 : index
  %m = tensor.dim %flat, %c1 : tensor<?x?xf64>
  %row = tensor.extract_slice %flat[0, 0] [1, %m] [1, 1] : tensor<?x?xf64> to tensor<?xf64>
  return %y, %z, %row : tensor<?x2xf64>, tensor<?x2x1xf64>, tensor<?xf64>
}
func.func @main(%xs: tensor<?x3x2xf64>, %shape: tensor<2xindex>) -> (tensor<3x?x2xf64>, tensor<3x?x2x1xf64>, tensor<3x?xf64>) {
  %r:3 = autodiff.vmap @sizes(%xs, %shape) {in_axes = array<i64: 1, -1>, out_axes = array<i64: 0, 0, 0>, size = 3 : i64} : (tensor<?x3x2xf64>, tensor<2xindex>) -> (tensor<3x?x2xf64>, tensor<3x?x2x1xf64>, tensor<3x?xf64>)
  return %r#0, %r#1, %r#2 : tensor<3x?x2xf64>, tensor<3x?x2x1xf64>, tensor<3x?xf64>
}
