// Source: iree-org/iree compiler/src/iree/compiler/DispatchCreation/test/fuse_multiuse_elementwise_producer.mlir (commit b48a5955575cf8924ffc191f3b0804976e5738b9), https://github.com/iree-org/iree/blob/b48a5955575cf8924ffc191f3b0804976e5738b9/compiler/src/iree/compiler/DispatchCreation/test/fuse_multiuse_elementwise_producer.mlir
// What: a rotary position embedding: a scaled tensor is read both as an operand of a 5-d elementwise generic and, rotated half-way, through tensor.extract in its body at indices computed from linalg.index (affine.apply, arith.subi), negated by an arith.select on an index comparison, and combined with two broadcast cos/sin tables.
// Adaptations: kept only @use_in_generic of the file (dropped the RUN/CHECK lines, the comments and the other functions); `util.func public` -> `func.func`, `util.return` -> `return`; the two elided constants %cst and %cst_0 (`dense_resource<__elided__>`) became function arguments of the same names (after %arg0); sizes reduced (1x20x128x2x8 -> 1x2x3x2x2, the tables 128x2x8 -> 3x2x2; the 20 in the affine map, multiplied by the unit dimension's index, kept); added the gradir entry @vjp_use_in_generic (autodiff.vjp wrt all three) below the marker.
// gradir-corpus: entry=use_in_generic wrt=0,1,2 reference=iree_rope_extract_in_body inputs=signed

func.func @use_in_generic(%arg0 : tensor<1x2x3x2x2xf32>, %cst : tensor<3x2x2xf32>, %cst_0 : tensor<3x2x2xf32>) -> tensor<1x2x3x2x2xf32> {
  %cst_1 = arith.constant 2.500000e-01 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %1 = tensor.empty() : tensor<1x2x3x2x2xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%arg0: tensor<1x2x3x2x2xf32>) outs(%1 : tensor<1x2x3x2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %6 = arith.mulf %in, %cst_1 : f32
    linalg.yield %6 : f32
  } -> tensor<1x2x3x2x2xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%2, %cst_0, %cst : tensor<1x2x3x2x2xf32>, tensor<3x2x2xf32>, tensor<3x2x2xf32>) outs(%1 : tensor<1x2x3x2x2xf32>) {
  ^bb0(%in: f32, %in_2: f32, %in_3: f32, %out: f32):
    %6 = linalg.index 0 : index
    %7 = linalg.index 1 : index
    %8 = linalg.index 2 : index
    %9 = linalg.index 3 : index
    %10 = linalg.index 4 : index
    %11 = affine.apply affine_map<()[s0, s1] -> (s0 + s1 * 20)>()[%7, %6]
    %12 = arith.subi %c1, %9 : index
    %extracted = tensor.extract %2[%c0, %11, %8, %12, %10] : tensor<1x2x3x2x2xf32>
    %13 = arith.negf %extracted : f32
    %14 = arith.cmpi eq, %12, %c1 : index
    %15 = arith.select %14, %13, %extracted : f32
    %16 = arith.mulf %15, %in_3 : f32
    %17 = arith.mulf %in, %in_2 : f32
    %18 = arith.addf %17, %16 : f32
    linalg.yield %18 : f32
  } -> tensor<1x2x3x2x2xf32>
  return %3 : tensor<1x2x3x2x2xf32>
}

// ---- gradir entry (added for the corpus, not upstream) ----
func.func @vjp_use_in_generic(%x: tensor<1x2x3x2x2xf32>, %s: tensor<3x2x2xf32>, %c: tensor<3x2x2xf32>, %ct: tensor<1x2x3x2x2xf32>) -> (tensor<1x2x3x2x2xf32>, tensor<1x2x3x2x2xf32>, tensor<3x2x2xf32>, tensor<3x2x2xf32>) {
  %r:4 = autodiff.vjp @use_in_generic(%x, %s, %c, %ct) {wrt = array<i64: 0, 1, 2>} : (tensor<1x2x3x2x2xf32>, tensor<3x2x2xf32>, tensor<3x2x2xf32>, tensor<1x2x3x2x2xf32>) -> (tensor<1x2x3x2x2xf32>, tensor<1x2x3x2x2xf32>, tensor<3x2x2xf32>, tensor<3x2x2xf32>)
  return %r#0, %r#1, %r#2, %r#3 : tensor<1x2x3x2x2xf32>, tensor<1x2x3x2x2xf32>, tensor<3x2x2xf32>, tensor<3x2x2xf32>
}
