// Lowering of every forward autodiff op, autograd_add and autograd_zero to linalg on tensors.
// RUN: autodiff-opt %s -p convert-autodiff-to-linalg --split-input-file | filecheck %s

// Each unary op is one parallel generic whose body is its scalar formula.
// CHECK-LABEL: func.func @unary(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3xf32>)
// CHECK:         %[[E0:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT:    %[[NEG:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]] : tensor<2x3xf32>) outs(%[[E0]] : tensor<2x3xf32>) {
// CHECK-NEXT:    ^{{.*}}(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[R:.*]] = arith.negf %[[IN]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
// CHECK-NEXT:    } -> tensor<2x3xf32>
// CHECK:         %[[EXP:.*]] = linalg.generic {{.*}} ins(%[[NEG]] : tensor<2x3xf32>)
// CHECK:           math.exp
// CHECK:         %[[LOG:.*]] = linalg.generic {{.*}} ins(%[[EXP]] : tensor<2x3xf32>)
// CHECK:           math.log
// CHECK:         %[[SQRT:.*]] = linalg.generic {{.*}} ins(%[[LOG]] : tensor<2x3xf32>)
// CHECK:           math.sqrt
// CHECK:         %[[RSQRT:.*]] = linalg.generic {{.*}} ins(%[[SQRT]] : tensor<2x3xf32>)
// CHECK:           math.rsqrt
// CHECK:         %[[SIN:.*]] = linalg.generic {{.*}} ins(%[[RSQRT]] : tensor<2x3xf32>)
// CHECK:           math.sin
// CHECK:         %[[COS:.*]] = linalg.generic {{.*}} ins(%[[SIN]] : tensor<2x3xf32>)
// CHECK:           math.cos
// CHECK:         %[[TANH:.*]] = linalg.generic {{.*}} ins(%[[COS]] : tensor<2x3xf32>)
// CHECK:           math.tanh
// CHECK:         %[[ABS:.*]] = linalg.generic {{.*}} ins(%[[TANH]] : tensor<2x3xf32>)
// CHECK:           math.absf
// relu is maximumf(x, 0).
// CHECK:         %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[ABS]] : tensor<2x3xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[RIN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[MAX:.*]] = arith.maximumf %[[RIN]], %[[ZERO]] : f32
// CHECK-NEXT:      linalg.yield %[[MAX]] : f32
// sigmoid is 1 / (1 + exp(-x)).
// CHECK:         %[[SIG:.*]] = linalg.generic {{.*}} ins(%[[RELU]] : tensor<2x3xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[SIN_:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[MINUS:.*]] = arith.negf %[[SIN_]] : f32
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[MINUS]] : f32
// CHECK-NEXT:      %[[DEN:.*]] = arith.addf %[[ONE]], %[[E]] : f32
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[ONE]], %[[DEN]] : f32
// CHECK-NEXT:      linalg.yield %[[Q]] : f32
// CHECK:         func.return %[[SIG]] : tensor<2x3xf32>
// CHECK-NOT:     autodiff.
func.func @unary(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = autodiff.neg %x : tensor<2x3xf32>
  %1 = autodiff.exp %0 : tensor<2x3xf32>
  %2 = autodiff.log %1 : tensor<2x3xf32>
  %3 = autodiff.sqrt %2 : tensor<2x3xf32>
  %4 = autodiff.rsqrt %3 : tensor<2x3xf32>
  %5 = autodiff.sin %4 : tensor<2x3xf32>
  %6 = autodiff.cos %5 : tensor<2x3xf32>
  %7 = autodiff.tanh %6 : tensor<2x3xf32>
  %8 = autodiff.abs %7 : tensor<2x3xf32>
  %9 = autodiff.relu %8 : tensor<2x3xf32>
  %10 = autodiff.sigmoid %9 : tensor<2x3xf32>
  return %10 : tensor<2x3xf32>
}

// -----

// A 0-d tensor is a generic with no loops.
// CHECK-LABEL: func.func @scalar_relu(
// CHECK-SAME:    %[[S:[^:]*]]: tensor<f16>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<f16>
// CHECK-NEXT:    %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%[[S]] : tensor<f16>) outs(%[[E]] : tensor<f16>) {
// CHECK:           arith.constant 0.000000e+00 : f16
// CHECK:           arith.maximumf {{.*}} : f16
// CHECK:         func.return %[[R]] : tensor<f16>
func.func @scalar_relu(%s: tensor<f16>) -> tensor<f16> {
  %0 = autodiff.relu %s : tensor<f16>
  return %0 : tensor<f16>
}

// -----

// NumPy broadcasting in the indexing maps: trailing dims align, a broadcast
// size-1 dim reads index 0, missing leading dims are dropped.
// CHECK-LABEL: func.func @broadcasting(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x1x3xf32>, %[[Y:[^:]*]]: tensor<5x3xf32>, %[[S:[^:]*]]: tensor<f32>)
// CHECK:         %[[E0:.*]] = tensor.empty() : tensor<4x5x3xf32>
// CHECK-NEXT:    %[[MUL:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]], %[[Y]] : tensor<4x1x3xf32>, tensor<5x3xf32>) outs(%[[E0]] : tensor<4x5x3xf32>) {
// CHECK-NEXT:    ^{{.*}}(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT:      linalg.yield %[[P]] : f32
// CHECK:         %[[E1:.*]] = tensor.empty() : tensor<4x5x3xf32>
// CHECK-NEXT:    %[[POW:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[MUL]], %[[S]] : tensor<4x5x3xf32>, tensor<f32>) outs(%[[E1]] : tensor<4x5x3xf32>) {
// CHECK:           math.powf
// CHECK:         func.return %[[POW]] : tensor<4x5x3xf32>
func.func @broadcasting(%x: tensor<4x1x3xf32>, %y: tensor<5x3xf32>, %s: tensor<f32>) -> tensor<4x5x3xf32> {
  %0 = autodiff.mul %x, %y : (tensor<4x1x3xf32>, tensor<5x3xf32>) -> tensor<4x5x3xf32>
  %1 = autodiff.pow %0, %s : (tensor<4x5x3xf32>, tensor<f32>) -> tensor<4x5x3xf32>
  return %1 : tensor<4x5x3xf32>
}

// -----

// CHECK-LABEL: func.func @binary(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<3xf64>, %[[Y:[^:]*]]: tensor<3xf64>)
// CHECK:         %[[ADD:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[Y]] : tensor<3xf64>, tensor<3xf64>)
// CHECK:           arith.addf {{.*}} : f64
// CHECK:         %[[SUB:.*]] = linalg.generic {{.*}} ins(%[[ADD]], %[[Y]] : tensor<3xf64>, tensor<3xf64>)
// CHECK:           arith.subf {{.*}} : f64
// CHECK:         %[[DIV:.*]] = linalg.generic {{.*}} ins(%[[SUB]], %[[Y]] : tensor<3xf64>, tensor<3xf64>)
// CHECK:           arith.divf {{.*}} : f64
// CHECK:         %[[MAX:.*]] = linalg.generic {{.*}} ins(%[[DIV]], %[[Y]] : tensor<3xf64>, tensor<3xf64>)
// CHECK:           arith.maximumf {{.*}} : f64
// CHECK:         %[[MIN:.*]] = linalg.generic {{.*}} ins(%[[MAX]], %[[Y]] : tensor<3xf64>, tensor<3xf64>)
// CHECK:           arith.minimumf {{.*}} : f64
// CHECK:         func.return %[[MIN]] : tensor<3xf64>
func.func @binary(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> {
  %0 = autodiff.add %x, %y : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %1 = autodiff.sub %0, %y : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %2 = autodiff.div %1, %y : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %3 = autodiff.maximum %2, %y : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %4 = autodiff.minimum %3, %y : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  return %4 : tensor<3xf64>
}

// -----

// The i1 condition broadcasts like the values.
// CHECK-LABEL: func.func @select(
// CHECK-SAME:    %[[C:[^:]*]]: tensor<5x1xi1>, %[[A:[^:]*]]: tensor<5x3xbf16>, %[[B:[^:]*]]: tensor<3xbf16>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<5x3xbf16>
// CHECK-NEXT:    %[[SEL:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[C]], %[[A]], %[[B]] : tensor<5x1xi1>, tensor<5x3xbf16>, tensor<3xbf16>) outs(%[[E]] : tensor<5x3xbf16>) {
// CHECK-NEXT:    ^{{.*}}(%[[CI:.*]]: i1, %[[AI:.*]]: bf16, %[[BI:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[CI]], %[[AI]], %[[BI]] : bf16
// CHECK-NEXT:      linalg.yield %[[R]] : bf16
// CHECK:         func.return %[[SEL]] : tensor<5x3xbf16>
func.func @select(%c: tensor<5x1xi1>, %a: tensor<5x3xbf16>, %b: tensor<3xbf16>) -> tensor<5x3xbf16> {
  %0 = autodiff.select %c, %a, %b : (tensor<5x1xi1>, tensor<5x3xbf16>, tensor<3xbf16>) -> tensor<5x3xbf16>
  return %0 : tensor<5x3xbf16>
}

// -----

// autograd_add with a zero side folds away before zeros are materialised; an
// unused zero disappears; a zero that reaches a real use is a fill of 0.
// CHECK-LABEL: func.func @zeros(
// CHECK-SAME:    %[[G:[^:]*]]: tensor<4xf32>, %[[H:[^:]*]]: tensor<4xf32>)
// CHECK-NEXT:    %[[ZC:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[ZE:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[Z:.*]] = linalg.fill ins(%[[ZC]] : f32) outs(%[[ZE]] : tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT:    %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[G]], %[[H]] : tensor<4xf32>, tensor<4xf32>) outs(%[[E]] : tensor<4xf32>) {
// CHECK:           arith.addf
// CHECK:         func.return %[[G]], %[[SUM]], %[[Z]] : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
// CHECK-NOT:     linalg.fill
func.func @zeros(%g: tensor<4xf32>, %h: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %z = autodiff.autograd_zero : tensor<4xf32>
  %unused = autodiff.autograd_zero : tensor<4xf32>
  %0 = autodiff.autograd_add %z, %g : tensor<4xf32>
  %1 = autodiff.autograd_add %0, %h : tensor<4xf32>
  return %0, %1, %z : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// 2-d matmul is linalg.matmul, batched matmul a generic; both on a zero-filled init.
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4x5xf32>, %[[B:[^:]*]]: tensor<5x3xf32>, %[[BA:[^:]*]]: tensor<2x4x5xf64>, %[[BB:[^:]*]]: tensor<2x5x3xf64>)
// CHECK-NEXT:    %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<4x3xf32>
// CHECK-NEXT:    %[[INIT:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[MM:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x5xf32>, tensor<5x3xf32>) outs(%[[INIT]] : tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT:    %[[BZ:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    %[[BE:.*]] = tensor.empty() : tensor<2x4x3xf64>
// CHECK-NEXT:    %[[BINIT:.*]] = linalg.fill ins(%[[BZ]] : f64) outs(%[[BE]] : tensor<2x4x3xf64>) -> tensor<2x4x3xf64>
// CHECK-NEXT:    %[[BMM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[BA]], %[[BB]] : tensor<2x4x5xf64>, tensor<2x5x3xf64>) outs(%[[BINIT]] : tensor<2x4x3xf64>) {
// CHECK-NEXT:    ^{{.*}}(%[[L:.*]]: f64, %[[R:.*]]: f64, %[[ACC:.*]]: f64):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[L]], %[[R]] : f64
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f64
// CHECK-NEXT:      linalg.yield %[[S]] : f64
// CHECK:         func.return %[[MM]], %[[BMM]] : tensor<4x3xf32>, tensor<2x4x3xf64>
func.func @matmul(%a: tensor<4x5xf32>, %b: tensor<5x3xf32>, %ba: tensor<2x4x5xf64>, %bb: tensor<2x5x3xf64>) -> (tensor<4x3xf32>, tensor<2x4x3xf64>) {
  %0 = autodiff.matmul %a, %b : (tensor<4x5xf32>, tensor<5x3xf32>) -> tensor<4x3xf32>
  %1 = autodiff.matmul %ba, %bb : (tensor<2x4x5xf64>, tensor<2x5x3xf64>) -> tensor<2x4x3xf64>
  return %0, %1 : tensor<4x3xf32>, tensor<2x4x3xf64>
}

// -----

// Result dim i is operand dim permutation[i]; the identity permutation is a no-op.
// CHECK-LABEL: func.func @transpose(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x4xf32>)
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK-NEXT:    %[[T:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d2, d0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[E]] : tensor<4x2x3xf32>) {
// CHECK-NEXT:    ^{{.*}}(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
// CHECK:         func.return %[[T]], %[[X]] : tensor<4x2x3xf32>, tensor<2x3x4xf32>
func.func @transpose(%x: tensor<2x3x4xf32>) -> (tensor<4x2x3xf32>, tensor<2x3x4xf32>) {
  %0 = autodiff.transpose %x {permutation = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  %1 = autodiff.transpose %x {permutation = array<i64: 0, 1, 2>} : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  return %0, %1 : tensor<4x2x3xf32>, tensor<2x3x4xf32>
}

// -----

// Pure collapse, pure expansion, collapse-then-expand, and 0-d to 1x1 (a copy generic).
// CHECK-LABEL: func.func @reshape(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x4xf32>, %[[S:[^:]*]]: tensor<f32>)
// CHECK-NEXT:    %[[C:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0 : i64, 1 : i64], [2 : i64]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.expand_shape %[[X]] {{\[}}[0 : i64, 1 : i64], [2 : i64], [3 : i64]] output_shape [2, 1, 3, 4] : tensor<2x3x4xf32> into tensor<2x1x3x4xf32>
// CHECK-NEXT:    %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0 : i64, 1 : i64, 2 : i64]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK-NEXT:    %[[CE:.*]] = tensor.expand_shape %[[FLAT]] {{\[}}[0 : i64, 1 : i64]] output_shape [3, 8] : tensor<24xf32> into tensor<3x8xf32>
// CHECK-NEXT:    %[[SE:.*]] = tensor.empty() : tensor<1x1xf32>
// CHECK-NEXT:    %[[S11:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[S]] : tensor<f32>) outs(%[[SE]] : tensor<1x1xf32>)
// CHECK:         func.return %[[C]], %[[E]], %[[CE]], %[[S11]] : tensor<6x4xf32>, tensor<2x1x3x4xf32>, tensor<3x8xf32>, tensor<1x1xf32>
func.func @reshape(%x: tensor<2x3x4xf32>, %s: tensor<f32>) -> (tensor<6x4xf32>, tensor<2x1x3x4xf32>, tensor<3x8xf32>, tensor<1x1xf32>) {
  %0 = autodiff.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = autodiff.reshape %x : tensor<2x3x4xf32> -> tensor<2x1x3x4xf32>
  %2 = autodiff.reshape %x : tensor<2x3x4xf32> -> tensor<3x8xf32>
  %3 = autodiff.reshape %s : tensor<f32> -> tensor<1x1xf32>
  return %0, %1, %2, %3 : tensor<6x4xf32>, tensor<2x1x3x4xf32>, tensor<3x8xf32>, tensor<1x1xf32>
}

// -----

// sum_to_size sums the leading dim and the size-1 dim of its result, then
// reinserts the size-1 dim.
// CHECK-LABEL: func.func @broadcast_and_sum_to_size(
// CHECK-SAME:    %[[V:[^:]*]]: tensor<3x1xf32>, %[[X:[^:]*]]: tensor<2x3x4xf32>)
// CHECK-NEXT:    %[[E:.*]] = tensor.empty() : tensor<2x3x4xf32>
// CHECK-NEXT:    %[[BC:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[V]] : tensor<3x1xf32>) outs(%[[E]] : tensor<2x3x4xf32>) {
// CHECK-NEXT:    ^{{.*}}(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      linalg.yield %[[IN]] : f32
// CHECK:         %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:    %[[ZE:.*]] = tensor.empty() : tensor<3xf32>
// CHECK-NEXT:    %[[INIT:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[ZE]] : tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT:    %[[SUM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>], iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<3xf32>) {
// CHECK-NEXT:    ^{{.*}}(%[[XI:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[ADD:.*]] = arith.addf %[[XI]], %[[ACC]] : f32
// CHECK-NEXT:      linalg.yield %[[ADD]] : f32
// CHECK:         %[[ST:.*]] = tensor.expand_shape %[[SUM]] {{\[}}[0 : i64, 1 : i64]] output_shape [3, 1] : tensor<3xf32> into tensor<3x1xf32>
// CHECK-NEXT:    func.return %[[BC]], %[[ST]] : tensor<2x3x4xf32>, tensor<3x1xf32>
func.func @broadcast_and_sum_to_size(%v: tensor<3x1xf32>, %x: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<3x1xf32>) {
  %0 = autodiff.broadcast_to %v : tensor<3x1xf32> -> tensor<2x3x4xf32>
  %1 = autodiff.sum_to_size %x : tensor<2x3x4xf32> -> tensor<3x1xf32>
  return %0, %1 : tensor<2x3x4xf32>, tensor<3x1xf32>
}

// -----

// sum with keepdim expands the reduced shape; mean divides by the reduced
// element count (2 * 4); max starts from -inf (0xFF800000).
// CHECK-LABEL: func.func @reductions(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3x4xf32>)
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[X]] : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK:           arith.addf
// CHECK:         %[[KEEP:.*]] = tensor.expand_shape %[[SUM]] {{\[}}[0 : i64, 1 : i64], [2 : i64]] output_shape [2, 1, 4] : tensor<2x4xf32> into tensor<2x1x4xf32>
// CHECK:         %[[TOTAL:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>], iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[X]] : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<3xf32>)
// CHECK:         %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[TOTAL]] : tensor<3xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[T:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[COUNT:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[T]], %[[COUNT]] : f32
// CHECK:         %[[NEGINF:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:    %[[ME:.*]] = tensor.empty() : tensor<f32>
// CHECK-NEXT:    %[[MINIT:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%[[ME]] : tensor<f32>) -> tensor<f32>
// CHECK-NEXT:    %[[MAX:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>], iterator_types = ["reduction", "reduction", "reduction"]} ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[MINIT]] : tensor<f32>)
// CHECK:           arith.maximumf
// CHECK:         func.return %[[KEEP]], %[[MEAN]], %[[MAX]] : tensor<2x1x4xf32>, tensor<3xf32>, tensor<f32>
func.func @reductions(%x: tensor<2x3x4xf32>) -> (tensor<2x1x4xf32>, tensor<3xf32>, tensor<f32>) {
  %0 = autodiff.sum %x {dims = array<i64: 1>, keepdim = true} : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  %1 = autodiff.mean %x {dims = array<i64: 0, 2>} : tensor<2x3x4xf32> -> tensor<3xf32>
  %2 = autodiff.max %x : tensor<2x3x4xf32> -> tensor<f32>
  return %0, %1, %2 : tensor<2x1x4xf32>, tensor<3xf32>, tensor<f32>
}

// -----

// Stable softmax: max along dim, sum of exp(x - max), then exp(x - max) / sum;
// log_softmax ends with (x - max) - log(sum). The reduced tensors are read
// through maps that drop dim.
// CHECK-LABEL: func.func @softmax(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<2x3xf32>)
// CHECK:         %[[M:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<2x3xf32>)
// CHECK:           arith.maximumf
// CHECK:         %[[S:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[X]], %[[M]] : tensor<2x3xf32>, tensor<2xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[XI:.*]]: f32, %[[MI:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[XI]], %[[MI]] : f32
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[D]] : f32
// CHECK-NEXT:      %[[A:.*]] = arith.addf %[[ACC]], %[[E]] : f32
// CHECK:         %[[SM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[M]], %[[S]] : tensor<2x3xf32>, tensor<2xf32>, tensor<2xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[XI2:.*]]: f32, %[[MI2:.*]]: f32, %[[SI:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[D2:.*]] = arith.subf %[[XI2]], %[[MI2]] : f32
// CHECK-NEXT:      %[[E2:.*]] = math.exp %[[D2]] : f32
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[E2]], %[[SI]] : f32
// CHECK:         %[[LM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%[[X]] : tensor<2x3xf32>)
// CHECK:         %[[LS:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[LM]] : tensor<2x3xf32>, tensor<3xf32>)
// CHECK:         %[[LOG:.*]] = linalg.generic {{.*}} ins(%[[LS]] : tensor<3xf32>)
// CHECK:           math.log
// CHECK:         %[[LSM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[LM]], %[[LOG]] : tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[XI3:.*]]: f32, %[[MI3:.*]]: f32, %[[LI:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[D3:.*]] = arith.subf %[[XI3]], %[[MI3]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.subf %[[D3]], %[[LI]] : f32
// CHECK:         func.return %[[SM]], %[[LSM]] : tensor<2x3xf32>, tensor<2x3xf32>
func.func @softmax(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = autodiff.softmax %x {dim = 1 : i64} : tensor<2x3xf32>
  %1 = autodiff.log_softmax %x {dim = 0 : i64} : tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// f16/bf16 sums accumulate in f32 and round once at the end; max is exact and
// stays in f16.
// CHECK-LABEL: func.func @half_precision(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<8xf16>)
// CHECK:         %[[WIDE:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<8xf16>) outs(%{{.*}} : tensor<8xf32>) {
// CHECK:           arith.extf %{{.*}} : f16 to f32
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[WIDE]] : tensor<8xf32>) outs(%{{.*}} : tensor<f32>) {
// CHECK:           arith.addf %{{.*}}, %{{.*}} : f32
// CHECK:         %[[ROUNDED:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<f32>) outs(%{{.*}} : tensor<f16>) {
// CHECK:           arith.truncf %{{.*}} : f32 to f16
// CHECK:         %[[MAX:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<8xf16>) outs(%{{.*}} : tensor<f16>) {
// CHECK:           arith.maximumf %{{.*}}, %{{.*}} : f16
// CHECK:         func.return %[[ROUNDED]], %[[MAX]] : tensor<f16>, tensor<f16>
func.func @half_precision(%x: tensor<8xf16>) -> (tensor<f16>, tensor<f16>) {
  %0 = autodiff.sum %x : tensor<8xf16> -> tensor<f16>
  %1 = autodiff.max %x : tensor<8xf16> -> tensor<f16>
  return %0, %1 : tensor<f16>, tensor<f16>
}
