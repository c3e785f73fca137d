// Watching autodiff-opt work, with mlir-opt's flags: the IR around every pass (gradir's xDSL
// passes and MLIR 22's, each headed as mlir-opt heads it) and a timing report, all on stderr.
//
// RUN: autodiff-opt %s -p autodiff-reverse,dce --print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=AFTER
// RUN: autodiff-opt %s -p autodiff-reverse,dce --print-between-passes 2>&1 >/dev/null | filecheck %s --check-prefix=AFTER
// RUN: autodiff-opt %s -p autodiff-reverse --mlir-print-ir-before-all 2>&1 >/dev/null | filecheck %s --check-prefix=BEFORE
// RUN: autodiff-opt %s --pipeline cpu --print-ir-after-all 2>&1 >/dev/null | filecheck %s --check-prefix=MLIR-AFTER
//
// The report names every pass and stage; the module itself still goes to stdout.
// RUN: autodiff-opt %s --pipeline cpu --timing 2>%t.err | filecheck %s --check-prefix=STDOUT
// RUN: filecheck %s --check-prefix=TIMING < %t.err
// RUN: autodiff-opt %s --pipeline grad --mlir-timing 2>&1 >/dev/null | filecheck %s --check-prefix=GRAD-TIMING
// RUN: autodiff-opt %s --pipeline grad --time-passes 2>&1 >/dev/null | filecheck %s --check-prefix=GRAD-TIMING
//
// Not asked for, none of it: stderr stays empty (and no progress line: stderr is not a terminal).
// RUN: autodiff-opt %s --pipeline cpu 2>%t.quiet >/dev/null && %python -c "import sys; sys.exit(open(sys.argv[1]).read() != '')" %t.quiet
//
// A failing run still prints its report (as mlir-opt does), its one error line last.
// RUN: not autodiff-opt %S/Inputs/bad_permutation.mlir --timing 2>&1 | filecheck %s --check-prefix=FAILED

// AFTER: // -----// IR Dump After autodiff-reverse //----- //
// AFTER-NEXT: builtin.module {
// AFTER: func.func @f_vjp_0
// AFTER: // -----// IR Dump After dce //----- //
// AFTER-NOT: IR Dump

// BEFORE: // -----// IR Dump Before autodiff-reverse //----- //
// BEFORE: autodiff.vjp
// BEFORE-NOT: IR Dump After

// MLIR-AFTER: // -----// IR Dump After autodiff-reverse //----- //
// MLIR-AFTER: // -----// IR Dump After convert-autodiff-to-linalg //----- //
// MLIR-AFTER: // -----// IR Dump After {{.*}}(one-shot-bufferize) //----- //
// MLIR-AFTER: // -----// IR Dump After {{.*}}(convert-scf-to-cf) //----- //

// STDOUT: llvm.func @_mlir_ciface_g(

// TIMING: gradir execution time report
// TIMING: Total Execution Time: {{[0-9.]+}} seconds
// TIMING: ----Wall Time----  ----Name----
// TIMING: parse
// TIMING: autodiff-reverse
// TIMING: convert-autodiff-to-linalg
// TIMING: {{^ +[0-9.]+ \( *[0-9.]+%\)  cpu-tensor$}}
// TIMING: {{^ +[0-9.]+ \( *[0-9.]+%\)    lift-cf-to-scf, lower-affine, inline$}}
// TIMING: cpu-bufferize
// TIMING: one-shot-bufferize
// TIMING: cpu-checks
// TIMING: cpu-loops
// TIMING: cpu-llvm
// TIMING: {{^ +[0-9.]+ \(100.0%\)  Total$}}

// GRAD-TIMING: gradir execution time report
// GRAD-TIMING: autodiff-reverse
// GRAD-TIMING: autodiff-forward
// GRAD-TIMING: dce
// GRAD-TIMING-NOT: cpu-
// GRAD-TIMING: Total

// FAILED: gradir execution time report
// FAILED: verify
// FAILED: Total
// FAILED-NEXT: bad_permutation.mlir:5:3: error:

func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {
  %y = autodiff.tanh %x : tensor<4xf64>
  return %y : tensor<4xf64>
}
func.func @g(%x: tensor<4xf64>, %c: tensor<4xf64>) -> tensor<4xf64> {
  %d:2 = autodiff.vjp @f(%x, %c) {wrt = array<i64: 0>} : (tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return %d#1 : tensor<4xf64>
}
