// scf.forall, scf.forall.in_parallel and tensor.parallel_insert_slice (xDSL 0.74 lacks them)
// in MLIR's custom form print back the same, and their generic form (MLIR's property names:
// staticLowerBound/UpperBound/Step, operandSegmentSizes) reads back to it.
// RUN: autodiff-opt %s --split-input-file | filecheck %s
// RUN: autodiff-opt %s --split-input-file | autodiff-opt --split-input-file | filecheck %s
// RUN: autodiff-opt %s --split-input-file --print-op-generic | autodiff-opt --split-input-file | filecheck %s
// RUN: autodiff-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// CHECK-LABEL: func.func @normalized
// CHECK:         %{{.*}} = scf.forall (%{{.*}}) in (4) shared_outs(%[[S:.*]] = %{{.*}}) -> (tensor<4xf32>) {
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %{{.*}} into %[[S]][%{{.*}}] [1] [1] : tensor<1xf32> into tensor<4xf32>
// CHECK-NEXT:      }
// GENERIC-LABEL: sym_name = "normalized"
// GENERIC:         "scf.forall"(%{{.*}}) <{staticLowerBound = array<i64: 0>, staticUpperBound = array<i64: 4>, staticStep = array<i64: 1>, operandSegmentSizes = array<i32: 0, 0, 0, 1>}>
// GENERIC:         "scf.forall.in_parallel"() ({
// GENERIC:         "tensor.parallel_insert_slice"(%{{.*}}, %{{.*}}, %{{.*}}) <{static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: 1>, static_strides = array<i64: 1>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}>
func.func @normalized(%x: tensor<4xf32>, %o: tensor<4xf32>) -> tensor<4xf32> {
  %r = scf.forall (%i) in (4) shared_outs(%s = %o) -> (tensor<4xf32>) {
    %e = tensor.extract_slice %x[%i] [1] [1] : tensor<4xf32> to tensor<1xf32>
    %y = math.exp %e : tensor<1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %y into %s[%i] [1] [1] : tensor<1xf32> into tensor<4xf32>
    }
  }
  return %r : tensor<4xf32>
}

// -----

// Bounds and steps, static or values; two shared outputs.
// CHECK-LABEL: func.func @bounds
// CHECK:         scf.forall (%{{.*}}, %{{.*}}) = (0, %[[LO:.*]]) to (%{{.*}}, %{{.*}}) step (2, %{{.*}}) shared_outs(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<5x4xf64>, tensor<5x4xf64>) {
// GENERIC-LABEL: sym_name = "bounds"
// GENERIC:         staticLowerBound = array<i64: 0, -9223372036854775808>, staticUpperBound = array<i64: -9223372036854775808, -9223372036854775808>, staticStep = array<i64: 2, -9223372036854775808>, operandSegmentSizes = array<i32: 1, 2, 1, 2>
func.func @bounds(%o: tensor<5x4xf64>, %p: tensor<5x4xf64>, %lo: index, %hi: index, %st: index) -> (tensor<5x4xf64>, tensor<5x4xf64>) {
  %c5 = arith.constant 5 : index
  %r:2 = scf.forall (%i, %j) = (0, %lo) to (%c5, %hi) step (2, %st) shared_outs(%s = %o, %t = %p) -> (tensor<5x4xf64>, tensor<5x4xf64>) {
    scf.forall.in_parallel {
    }
  }
  return %r#0, %r#1 : tensor<5x4xf64>, tensor<5x4xf64>
}

// -----

// No shared outputs, and no terminator written (an empty in_parallel is implied).
// CHECK-LABEL: func.func @no_outputs
// CHECK:         scf.forall (%{{.*}}) in (%{{.*}}) {
// CHECK:           scf.forall.in_parallel {
func.func @no_outputs(%n: index) {
  scf.forall (%i) in (%n) {
  }
  return
}

// -----

// A device mapping (a property) parses and prints back; gradir runs the loop sequentially.
// CHECK-LABEL: func.func @mapped
// CHECK:         } {mapping = [#gpu.block<y>, #gpu.thread<linear_dim_1>]}
// GENERIC-LABEL: sym_name = "mapped"
// GENERIC:         "scf.forall"(%{{.*}}) <{{.*}}mapping = [#gpu.block<y>, #gpu.thread<linear_dim_1>]
func.func @mapped(%o: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = scf.forall (%i, %j) in (4, 4) shared_outs(%s = %o) -> (tensor<4x4xf32>) {
  } {mapping = [#gpu.block<y>, #gpu.thread<linear_dim_1>]}
  return %r : tensor<4x4xf32>
}
