// MLIR 22's quantized contractions and convolutions (zero points as scalar inputs; any
// element types MLIR builds: i8 into i32, i8 into f32, floats) and its unsigned
// poolings print back as MLIR prints them, and their generic form, with MLIR's body,
// reads back to it.
// RUN: autodiff-opt %s --split-input-file | filecheck %s
// RUN: autodiff-opt %s --split-input-file | autodiff-opt --split-input-file | filecheck %s
// RUN: autodiff-opt %s --split-input-file --print-op-generic | autodiff-opt --split-input-file | filecheck %s
// RUN: autodiff-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @contractions
// CHECK:         linalg.quantized_matmul ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<3x5xi8>, tensor<5x4xi8>, i32, i32) outs(%{{.*}} : tensor<3x4xi32>) -> tensor<3x4xi32>
// CHECK:         linalg.quantized_matmul ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<3x5xi8>, tensor<5x4xi8>, i32, i32) outs(%{{.*}} : tensor<3x4xf32>) -> tensor<3x4xf32>
// CHECK:         linalg.quantized_batch_matmul ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x3x5xf32>, tensor<2x5x4xf32>, f32, f32) outs(%{{.*}} : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// GENERIC-LABEL: sym_name = "contractions"
// GENERIC:         "linalg.quantized_matmul"
// GENERIC-NEXT:    ^bb0(%[[A:.*]]: i8, %[[B:.*]]: i8, %[[ZA:.*]]: i32, %[[ZB:.*]]: i32, %[[C:.*]]: i32):
// GENERIC-NEXT:      %[[EA:.*]] = "arith.extsi"(%[[A]])
// GENERIC-NEXT:      %[[SA:.*]] = "arith.subi"(%[[EA]], %[[ZA]])
// GENERIC:         "linalg.quantized_matmul"
// GENERIC-NEXT:    ^bb0(%{{.*}}: i8, %{{.*}}: i8, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: f32):
// GENERIC-NEXT:      "arith.sitofp"
// GENERIC-NEXT:      "arith.sitofp"
// GENERIC-NEXT:      "arith.subf"
// GENERIC:         "linalg.quantized_batch_matmul"
// GENERIC-NEXT:    ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// GENERIC-NEXT:      "arith.subf"
// GENERIC-NEXT:      "arith.subf"
// GENERIC-NEXT:      "arith.mulf"
// GENERIC-NEXT:      "arith.addf"
func.func @contractions(%a: tensor<3x5xi8>, %b: tensor<5x4xi8>, %z: i32, %c: tensor<3x4xi32>, %cf: tensor<3x4xf32>,
                        %a3: tensor<2x3x5xf32>, %b3: tensor<2x5x4xf32>, %zf: f32, %c3: tensor<2x3x4xf32>)
    -> (tensor<3x4xi32>, tensor<3x4xf32>, tensor<2x3x4xf32>) {
  %0 = linalg.quantized_matmul ins(%a, %b, %z, %z : tensor<3x5xi8>, tensor<5x4xi8>, i32, i32) outs(%c : tensor<3x4xi32>) -> tensor<3x4xi32>
  %1 = linalg.quantized_matmul ins(%a, %b, %z, %z : tensor<3x5xi8>, tensor<5x4xi8>, i32, i32) outs(%cf : tensor<3x4xf32>) -> tensor<3x4xf32>
  %2 = linalg.quantized_batch_matmul ins(%a3, %b3, %zf, %zf : tensor<2x3x5xf32>, tensor<2x5x4xf32>, f32, f32) outs(%c3 : tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0, %1, %2 : tensor<3x4xi32>, tensor<3x4xf32>, tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @windows
// CHECK:         linalg.conv_2d_nhwc_hwcf_q {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x7x7x2xi8>, tensor<3x3x2x4xi8>, i32, i32) outs(%{{.*}} : tensor<1x3x3x4xi32>) -> tensor<1x3x3x4xi32>
// CHECK:         linalg.depthwise_conv_2d_nhwc_hwcm_q ins(
// CHECK:         linalg.pooling_nhwc_max_unsigned {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x7x7x2xi8>, tensor<3x3xi8>) outs(%{{.*}} : tensor<1x5x5x2xi32>) -> tensor<1x5x5x2xi32>
// GENERIC-LABEL: sym_name = "windows"
// GENERIC:         "linalg.conv_2d_nhwc_hwcf_q"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>, operandSegmentSizes = array<i32: 4, 1>}>
// GENERIC:         "linalg.pooling_nhwc_max_unsigned"
// GENERIC-NEXT:    ^bb0(%[[IN:.*]]: i8, %{{.*}}: i8, %[[OUT:.*]]: i32):
// GENERIC-NEXT:      %[[WIDE:.*]] = "arith.extui"(%[[IN]])
// GENERIC-NEXT:      "arith.maxui"(%[[OUT]], %[[WIDE]])
func.func @windows(%x: tensor<1x7x7x2xi8>, %w: tensor<3x3x2x4xi8>, %z: i32, %o: tensor<1x3x3x4xi32>,
                   %xf: tensor<1x4x4x2xf32>, %wf: tensor<3x3x2x2xf32>, %zf: f32, %of: tensor<1x2x2x2x2xf32>,
                   %win: tensor<3x3xi8>, %p: tensor<1x5x5x2xi32>)
    -> (tensor<1x3x3x4xi32>, tensor<1x2x2x2x2xf32>, tensor<1x5x5x2xi32>) {
  %0 = linalg.conv_2d_nhwc_hwcf_q {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%x, %w, %z, %z : tensor<1x7x7x2xi8>, tensor<3x3x2x4xi8>, i32, i32) outs(%o : tensor<1x3x3x4xi32>) -> tensor<1x3x3x4xi32>
  %1 = linalg.depthwise_conv_2d_nhwc_hwcm_q ins(%xf, %wf, %zf, %zf : tensor<1x4x4x2xf32>, tensor<3x3x2x2xf32>, f32, f32)
         outs(%of : tensor<1x2x2x2x2xf32>) -> tensor<1x2x2x2x2xf32>
  %2 = linalg.pooling_nhwc_max_unsigned {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %win : tensor<1x7x7x2xi8>, tensor<3x3xi8>) outs(%p : tensor<1x5x5x2xi32>) -> tensor<1x5x5x2xi32>
  return %0, %1, %2 : tensor<1x3x3x4xi32>, tensor<1x2x2x2x2xf32>, tensor<1x5x5x2xi32>
}
