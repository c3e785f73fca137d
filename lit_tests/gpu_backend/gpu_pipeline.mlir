// The GPU pipeline in stages on three small functions: an elementwise chain with a broadcast,
// a row sum over the innermost dimension, and a full reduction to a 0-d tensor.
// RUN: autodiff-opt %s --pipeline gpu --gpu-stop-after map | filecheck %s --check-prefix=MAP
// RUN: autodiff-opt %s --pipeline gpu --gpu-stop-after outline | filecheck %s --check-prefix=OUTLINE
// RUN: autodiff-opt %s --pipeline gpu --gpu-chip sm_80 | filecheck %s --check-prefix=PTX

#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
#col = affine_map<(i, j) -> (i)>
#all = affine_map<(i, j) -> ()>

// One thread per element, the innermost dimension (200) fastest: neighbouring threads touch
// neighbouring addresses. 64 x 200 = 50 blocks of 256 threads exactly, so no bounds check.
// MAP-LABEL: func.func @bias_tanh
// MAP:         gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %c50, {{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %c256,
// MAP:           %[[BASE:.*]] = arith.muli %[[BX]], %{{.*}} : index
// MAP:           %[[LINEAR:.*]] = arith.addi %[[BASE]], %[[TX]] : index
// MAP:           %[[COL:.*]] = arith.remui %[[LINEAR]], %{{.*}} : index
// MAP:           %[[ROW:.*]] = arith.divui %[[LINEAR]], %{{.*}} : index
// MAP:           %[[X:.*]] = memref.load %arg0[%[[ROW]], %[[COL]]]
// MAP:           %[[B:.*]] = memref.load %arg1[%[[COL]]]
// MAP:           %[[SUM:.*]] = arith.addf %[[X]], %[[B]] fastmath<contract>
// MAP:           %[[T:.*]] = math.tanh %[[SUM]]
// MAP:           memref.store %[[T]], %arg2[%[[ROW]], %[[COL]]]
// MAP-NOT:       scf.if
// MAP:         } {gradir.strategy = "elementwise"}
func.func @bias_tanh(%x: tensor<64x200xf32>, %b: tensor<200xf32>) -> tensor<64x200xf32> {
  %e = tensor.empty() : tensor<64x200xf32>
  %s = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<64x200xf32>, tensor<200xf32>) outs(%e : tensor<64x200xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %r = arith.addf %a, %c : f32
    %t = math.tanh %r : f32
    linalg.yield %t : f32
  } -> tensor<64x200xf32>
  return %s : tensor<64x200xf32>
}

// 64 sums of 256: 32 threads per row fold strided chunks from 0 (the fill is folded) into a
// device buffer, then one thread per row adds its 32 partials.
// MAP-LABEL: func.func @row_sum
// MAP:         %[[PARTIALS:.*]] = gpu.alloc () : memref<2048xf32>
// MAP:         gpu.launch
// MAP:           %[[CHUNK:.*]] = arith.remui %{{.*}}, %c32
// MAP:           scf.for %[[J:.*]] = %{{.*}} to %c8{{.*}} iter_args(%[[ACC:.*]] = %cst
// MAP:             %[[K:.*]] = arith.muli %[[J]], %c32
// MAP:             %[[COL:.*]] = arith.addi %[[K]], %[[CHUNK]]
// MAP:             memref.load %arg0[%{{.*}}, %[[COL]]]
// MAP:           memref.store %{{.*}}, %[[PARTIALS]][
// MAP:         } {gradir.strategy = "split-reduce32"}
// MAP:         gpu.launch
// MAP:           scf.for {{.*}} to %c32
// MAP:             memref.load %[[PARTIALS]]
// MAP:           memref.store %{{.*}}, %arg1[
// MAP:         } {gradir.strategy = "split-combine"}
// MAP:         gpu.dealloc %[[PARTIALS]]
func.func @row_sum(%x: tensor<64x256xf32>) -> tensor<64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %s = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x256xf32>) outs(%z : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %s : tensor<64xf32>
}

// A full reduction is never left on the host: two launches again, the second a single thread.
// MAP-LABEL: func.func @total
// MAP:         gpu.launch
// MAP:         } {gradir.strategy = "split-reduce80"}
// MAP:         gpu.launch
// MAP:           memref.store %{{.*}}, %arg1[] : memref<f32>
// MAP:         } {gradir.strategy = "split-combine"}
// MAP-NOT:     memref.load
// MAP:         return
func.func @total(%x: tensor<64x10xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<64x10xf32>) outs(%z : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}

// Outlined kernels are named after their function, position and strategy; distinct buffers
// make their pointer arguments noalias; the host only allocates and launches, on one stream.
// OUTLINE-LABEL: func.func @row_sum
// OUTLINE:         gpu.alloc async
// OUTLINE:         gpu.launch_func async [%{{.*}}] @row_sum_0_split_reduce32::@row_sum_0_split_reduce32 blocks in (%c8, %c1, %c1) threads in (%c256, %c1, %c1)
// OUTLINE:         gpu.launch_func async [%{{.*}}] @row_sum_1_split_combine::@row_sum_1_split_combine blocks in (%c1, %c1, %c1) threads in (%c128, %c1, %c1)
// OUTLINE:         gpu.dealloc async
// OUTLINE:         gpu.wait [
// OUTLINE:       gpu.module @row_sum_0_split_reduce32
// OUTLINE-NEXT:    gpu.func @row_sum_0_split_reduce32(%arg0: memref<64x256xf32> {llvm.noalias}, %arg1: memref<2048xf32> {llvm.noalias}) kernel attributes {known_block_size = array<i32: 256, 1, 1>

// The host becomes LLVM calling the mgpu runtime; each kernel is PTX for the chosen chip.
// PTX-LABEL: llvm.func @__gradir_total
// PTX:         llvm.call @mgpuMemAlloc
// PTX:         gpu.launch_func <%{{.*}} : !llvm.ptr> @total_0_split_reduce80::@total_0_split_reduce80
// PTX:       gpu.binary @total_0_split_reduce80 [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, {{.*}}assembly = "{{.*}}.target sm_80{{.*}}.visible .entry total_0_split_reduce80(
