// A matmul on the GPU: 64x64 output tiles per block staged through shared (workgroup) memory,
// a 4x4 register tile per thread of a 16x16 thread block, k in chunks of 16.
// RUN: autodiff-opt %s --pipeline gpu --gpu-stop-after map | filecheck %s --check-prefix=MAP
// RUN: autodiff-opt %s --pipeline gpu --gpu-stop-after outline | filecheck %s --check-prefix=OUTLINE
// RUN: autodiff-opt %s --pipeline gpu | filecheck %s --check-prefix=PTX

// 128x256 outputs = 2 x 4 blocks of 64x64; the fill is folded into the accumulators' start.
// MAP-LABEL: func.func @matmul
// MAP:         gpu.launch blocks({{.*}}) in ({{.*}} = %c8, {{.*}}) threads(%[[TX:.*]], %[[TY:.*]], %{{.*}}) in ({{.*}} = %c16, {{.*}} = %c16, {{.*}}) workgroup(%[[AS:.*]] : memref<64x16xf32, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<16x64xf32, #gpu.address_space<workgroup>>)
// MAP:           %[[ACC:.*]]:16 = scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32)
// Each thread copies 4 elements of A's 64x16 slice and 4 of B's 16x64 slice, then waits.
// MAP-COUNT-4:     memref.store %{{.*}}, %[[AS]]
// MAP-COUNT-4:     memref.store %{{.*}}, %[[BS]]
// MAP-NEXT:        gpu.barrier
// The chunk is folded from shared memory only: one A and one B word feed 4 FMAs each.
// MAP-NEXT:        scf.for %[[KK:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// MAP-NEXT:          %[[A:.*]] = memref.load %[[AS]][%[[TY]], %[[KK]]]
// MAP-NEXT:          %[[B:.*]] = memref.load %[[BS]][%[[KK]], %[[TX]]]
// MAP-NEXT:          %[[P:.*]] = arith.mulf %[[A]], %[[B]] fastmath<contract>
// The product is either addend: xDSL prints linalg.matmul's body as mul + acc, MLIR as acc + mul.
// MAP-NEXT:          arith.addf {{.*}}%[[P]]{{.*}} fastmath<contract>
// MAP-NOT:           memref.load %arg{{[01]}}[
// MAP:             }
// MAP-NEXT:        gpu.barrier
// MAP-NEXT:        scf.yield
// MAP-COUNT-16:  memref.store %[[ACC]]#{{[0-9]+}}, %arg2
// MAP:         } {gradir.strategy = "shared-tile4x4"}

// OUTLINE: gpu.func @matmul_0_shared_tile4x4({{.*}}) workgroup(%{{.*}} : memref<64x16xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16x64xf32, #gpu.address_space<workgroup>>) kernel attributes {known_block_size = array<i32: 16, 16, 1>, known_grid_size = array<i32: 8, 1, 1>}
// OUTLINE-COUNT-2: gpu.barrier

// PTX: .shared .align 4 .b8 __wg_matmul_0_shared_tile4x4_0[4096]
// PTX: .shared .align 4 .b8 __wg_matmul_0_shared_tile4x4_1[4096]
// PTX: bar.sync
// PTX: fma.rn.f32
// PTX: bar.sync
func.func @matmul(%a: tensor<128x64xf32>, %b: tensor<64x256xf32>) -> tensor<128x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x256xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<128x256xf32>) -> tensor<128x256xf32>
  %c = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x256xf32>)
      outs(%z : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %c : tensor<128x256xf32>
}
