// A reverse loop shaped like a recurrent network's gradient: a forward scf.for pushes each
// step's state into a 20x4x16 cache (tensor.insert_slice), a reverse scf.for reads it back at
// 19 - i (tensor.extract_slice) and branches on the step (scf.if). The loops and the branch stay
// on the host; the linalg ops in their bodies become kernels launched from inside the loops, and
// kernels read and write the cache through the whole buffer at the loop index (a kernel argument).
// RUN: autodiff-opt %s --pipeline gpu --gpu-stop-after outline | filecheck %s
// RUN: autodiff-opt %s --pipeline gpu | filecheck %s --check-prefix=NVVM

// CHECK-LABEL: func.func @reverse_loop
// CHECK-NOT:     memref.alloc
// CHECK:         %[[CACHE:.*]], %{{.*}} = gpu.alloc async {{.*}} : memref<20x4x16xf32>
// CHECK:         scf.for %[[I:.*]] = %c0 to %c20 step %c1 {
// CHECK:           gpu.launch_func {{.*}} @reverse_loop_{{[0-9]+}}_split_reduce2
// CHECK:           gpu.launch_func {{.*}} @[[TANH:reverse_loop_[0-9]+_split_combine]]::{{.*}} args({{.*}}%arg0 : memref<20x4x16xf32>, %[[I]] : index, {{.*}}, %[[CACHE]] : memref<20x4x16xf32>)
// CHECK:           gpu.wait
// CHECK-NEXT:    }
// CHECK:         scf.for %[[R:.*]] = %c0 to %c20 step %c1 {
// CHECK-NEXT:      %[[J:.*]] = arith.subi %c19, %[[R]] : index
// CHECK:           gpu.launch_func {{.*}} @[[BACK:reverse_loop_[0-9]+_elementwise]]::{{.*}} args({{.*}}, %[[CACHE]] : memref<20x4x16xf32>, %[[J]] : index{{.*}})
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[J]], %c0 : index
// CHECK:           scf.if %[[FIRST]] {
// CHECK-NEXT:      } else {
// CHECK:             gpu.launch_func {{.*}}split_reduce2
// CHECK:             gpu.launch_func {{.*}}split_combine
// CHECK:           }
// CHECK:         }
// CHECK-NOT:     arith.addf
// CHECK:         return

// The forward step's combine kernel (the tanh fused into it: gpu_backend/epilogue_fusion.py)
// reads x_i and writes the new state into cache[i]:
// CHECK:       gpu.func @[[TANH]](%{{.*}}: memref<128xf32> {{.*}}, %[[XS:.*]]: memref<20x4x16xf32> {{.*}}, %[[STEP:.*]]: index, {{.*}}, %[[OUT:.*]]: memref<20x4x16xf32> {{.*}})
// CHECK:         memref.load %[[XS]][%[[STEP]], %[[ROW:.*]], %[[COL:.*]]] : memref<20x4x16xf32>
// CHECK:         math.tanh
// CHECK:         memref.store %{{.*}}, %[[OUT]][%[[STEP]], %[[ROW]], %[[COL]]] : memref<20x4x16xf32>
// The reverse kernel reads cache[19 - i] (the index computed on the host):
// CHECK:       gpu.func @[[BACK]](%[[G:.*]]: memref<4x16xf32> {{.*}}, %[[C:.*]]: memref<20x4x16xf32> {{.*}}, %[[K:[a-z0-9]+]]: index
// CHECK:         memref.load %[[C]][%[[K]], %{{.*}}, %{{.*}}] : memref<20x4x16xf32>

// After the NVVM stage the loops are host control flow around the launches, the kernels are PTX.
// NVVM-LABEL: llvm.func @__gradir_reverse_loop(
// NVVM:         llvm.cond_br
// NVVM:         gpu.launch_func
// NVVM:       gpu.binary @reverse_loop_0_elementwise {{.*}}chip = "sm_90"{{.*}}.entry reverse_loop_0_elementwise

#id3 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#mk = affine_map<(d0, d1, d2) -> (d0, d2)>
#nk = affine_map<(d0, d1, d2) -> (d1, d2)>
#mn = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @reverse_loop(%xs: tensor<20x4x16xf32>, %h0: tensor<4x16xf32>, %w: tensor<16x16xf32>,
                        %b: tensor<16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<20x4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c19 = arith.constant 19 : index
  %c20 = arith.constant 20 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %cache0 = tensor.empty() : tensor<20x4x16xf32>
  %h, %cache = scf.for %i = %c0 to %c20 step %c1
      iter_args(%hc = %h0, %cc = %cache0) -> (tensor<4x16xf32>, tensor<20x4x16xf32>) {
    %x = tensor.extract_slice %xs[%i, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<20x4x16xf32> to tensor<4x16xf32>
    %e = tensor.empty() : tensor<4x16xf32>
    %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
    %m = linalg.matmul ins(%hc, %w : tensor<4x16xf32>, tensor<16x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
    %t = linalg.generic {indexing_maps = [#id3, #id3, #row, #id3], iterator_types = ["parallel", "parallel"]}
        ins(%m, %x, %b : tensor<4x16xf32>, tensor<4x16xf32>, tensor<16xf32>) outs(%e : tensor<4x16xf32>) {
    ^bb0(%a: f32, %xv: f32, %bv: f32, %o: f32):
      %s = arith.addf %a, %xv : f32
      %s2 = arith.addf %s, %bv : f32
      %th = math.tanh %s2 : f32
      linalg.yield %th : f32
    } -> tensor<4x16xf32>
    %cn = tensor.insert_slice %t into %cc[%i, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<4x16xf32> into tensor<20x4x16xf32>
    scf.yield %t, %cn : tensor<4x16xf32>, tensor<20x4x16xf32>
  }
  %g = scf.for %i = %c0 to %c20 step %c1 iter_args(%gc = %h) -> (tensor<4x16xf32>) {
    %j = arith.subi %c19, %i : index
    %hj = tensor.extract_slice %cache[%j, 0, 0] [1, 4, 16] [1, 1, 1] : tensor<20x4x16xf32> to tensor<4x16xf32>
    %e = tensor.empty() : tensor<4x16xf32>
    %d = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel"]}
        ins(%gc, %hj : tensor<4x16xf32>, tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
    ^bb0(%gv: f32, %hv: f32, %o: f32):
      %sq = arith.mulf %hv, %hv : f32
      %om = arith.subf %one, %sq : f32
      %r = arith.mulf %gv, %om : f32
      linalg.yield %r : f32
    } -> tensor<4x16xf32>
    %first = arith.cmpi eq, %j, %c0 : index
    %r = scf.if %first -> (tensor<4x16xf32>) {
      scf.yield %d : tensor<4x16xf32>
    } else {
      %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
      %gn = linalg.generic {indexing_maps = [#mk, #nk, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
          ins(%d, %w : tensor<4x16xf32>, tensor<16x16xf32>) outs(%z : tensor<4x16xf32>) {
      ^bb0(%dv: f32, %wv: f32, %acc: f32):
        %p = arith.mulf %dv, %wv : f32
        %q = arith.addf %acc, %p : f32
        linalg.yield %q : f32
      } -> tensor<4x16xf32>
      scf.yield %gn : tensor<4x16xf32>
    }
    scf.yield %r : tensor<4x16xf32>
  }
  return %h, %g, %cache : tensor<4x16xf32>, tensor<4x16xf32>, tensor<20x4x16xf32>
}
