// ptxas assembles every kernel of named_linalg.mlir (named ops and their gradient) for sm_90
// and sm_80 without spills.
// REQUIRES: ptxas
// RUN: autodiff-opt %S/named_linalg.mlir --pipeline gpu --gpu-report --gpu-chip sm_90 | filecheck %s
// RUN: autodiff-opt %S/named_linalg.mlir --pipeline gpu --gpu-report --gpu-chip sm_80 --gpu-features +ptx70 | filecheck %s

// Columns: kernel, grid, block, registers, spill bytes, bytes read, bytes written.
// CHECK:     kernel {{ +}}grid {{ +}}block {{ +}}regs {{ +}}spills
// CHECK-NOT: {{^attention[a-z_0-9]* +[0-9x]+ +[0-9x]+ +[0-9]+ +[1-9]}}
// CHECK:     attention_vjp_0_1_2_3_0_
// CHECK-NOT: {{^attention[a-z_0-9]* +[0-9x]+ +[0-9x]+ +[0-9]+ +[1-9]}}
// CHECK:     attention_grad_0_1_2_3_0_
// CHECK-NOT: {{^attention[a-z_0-9]* +[0-9x]+ +[0-9x]+ +[0-9]+ +[1-9]}}
