// Standard ops MLIR 22's pipelines cannot take as they are, rewritten by
// convert-autodiff-to-linalg (lowering/standard_ops.py).
// RUN: autodiff-opt %s --split-input-file -p convert-autodiff-to-linalg | filecheck %s

// A clamp, not MLIR 22's own expansion maxf(minf(value, min), max).
// CHECK-LABEL: func.func @clampf(
// CHECK-SAME:    %[[V:[^:]*]]: f32, %[[LO:[^:]*]]: f32, %[[HI:[^:]*]]: f32)
// CHECK:         %[[M:.*]] = arith.minimumf %[[V]], %[[HI]] : f32
// CHECK:         %[[R:.*]] = arith.maximumf %[[M]], %[[LO]] : f32
// CHECK:         func.return %[[R]]
func.func @clampf(%v: f32, %lo: f32, %hi: f32) -> f32 {
  %r = math.clampf %v to [%lo, %hi] : f32
  return %r : f32
}

// -----

// CHECK-LABEL: func.func @sincos(
// CHECK:         %[[S:.*]] = math.sin %{{.*}} : tensor<4xf32>
// CHECK:         %[[C:.*]] = math.cos %{{.*}} : tensor<4xf32>
// CHECK:         arith.mulf %[[S]], %[[C]]
func.func @sincos(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s, %c = math.sincos %x : tensor<4xf32>
  %r = arith.mulf %s, %c : tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A gather: over the result, the coordinate read from the index tensor (cast
// to index), then the element from the source.
// CHECK-LABEL: func.func @gather(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x3xf32>, %[[I:[^:]*]]: tensor<5x1xi32>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<5x1x3xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%[[E]] : tensor<5x1x3xf32>)
// CHECK:           %[[B:.*]] = linalg.index 0 : index
// CHECK:           %[[J:.*]] = linalg.index 2 : index
// CHECK:           %[[K:.*]] = arith.constant 0 : index
// CHECK:           %[[C:.*]] = tensor.extract %[[I]][%[[B]], %[[K]]] : tensor<5x1xi32>
// CHECK:           %[[CI:.*]] = arith.index_cast %[[C]] : i32 to index
// CHECK:           %[[V:.*]] = tensor.extract %[[X]][%[[CI]], %[[J]]] : tensor<4x3xf32>
// CHECK:           linalg.yield %[[V]] : f32
func.func @gather(%x: tensor<4x3xf32>, %i: tensor<5x1xi32>) -> tensor<5x1x3xf32> {
  %g = tensor.gather %x[%i] gather_dims([0]) : (tensor<4x3xf32>, tensor<5x1xi32>) -> tensor<5x1x3xf32>
  return %g : tensor<5x1x3xf32>
}

// -----

// A scatter: over the destination and the slices (a reduction), each element
// takes the slice element whose coordinate matches, else keeps its value.
// CHECK-LABEL: func.func @scatter(
// CHECK-SAME:    %[[S:[^:]*]]: tensor<2x3x1xf32>, %[[D:[^:]*]]: tensor<3x4xf32>, %[[I:[^:]*]]: tensor<2x1xindex>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0, 0)>, affine_map<(d0, d1, d2) -> (d2, 0)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[S]], %[[I]] : tensor<2x3x1xf32>, tensor<2x1xindex>) outs(%[[D]] : tensor<3x4xf32>)
// CHECK:         ^bb0(%[[V:.*]]: f32, %[[C:.*]]: index, %[[ACC:.*]]: f32):
// CHECK:           %[[COL:.*]] = linalg.index 1 : index
// CHECK:           %[[HIT:.*]] = arith.cmpi eq, %[[C]], %[[COL]] : index
// CHECK:           %[[R:.*]] = arith.select %[[HIT]], %[[V]], %[[ACC]] : f32
// CHECK:           linalg.yield %[[R]] : f32
func.func @scatter(%s: tensor<2x3x1xf32>, %d: tensor<3x4xf32>, %i: tensor<2x1xindex>) -> tensor<3x4xf32> {
  %r = tensor.scatter %s into %d[%i] scatter_dims([1]) unique : (tensor<2x3x1xf32>, tensor<3x4xf32>, tensor<2x1xindex>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

// A pad: its body as a generic over the result (the index argument becomes
// linalg.index), the source inserted at the low padding.
// CHECK-LABEL: func.func @pad(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3xf32>, %[[V:[^:]*]]: f32)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4x6xf32>
// CHECK:         %[[P:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<4x6xf32>)
// CHECK:           %[[I:.*]] = linalg.index 0 : index
// CHECK:           %[[N:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK:           %[[F:.*]] = arith.sitofp %[[N]] : i32 to f32
// CHECK:           %[[Y:.*]] = arith.mulf %[[F]], %[[V]] : f32
// CHECK:           linalg.yield %[[Y]] : f32
// CHECK:         %[[R:.*]] = tensor.insert_slice %[[X]] into %[[P]][1, 2] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<4x6xf32>
// CHECK:         func.return %[[R]]
func.func @pad(%x: tensor<2x3xf32>, %v: f32) -> tensor<4x6xf32> {
  %r = tensor.pad %x low[1, 2] high[1, 1] {
  ^bb0(%i: index, %j: index):
    %n = arith.index_cast %i : index to i32
    %f = arith.sitofp %n : i32 to f32
    %y = arith.mulf %f, %v : f32
    tensor.yield %y : f32
  } : tensor<2x3xf32> to tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}
