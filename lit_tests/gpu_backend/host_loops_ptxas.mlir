// ptxas assembles every kernel of the host-loop programs for sm_90 and sm_80 without spills:
// the reverse loop next to this file, the RNN of examples/standard (scf.for over slices of a
// sequence) and the piecewise function (scf.if on a sum computed on the device, whose condition
// a one-thread kernel computes and the host copies back).
// REQUIRES: ptxas
// RUN: autodiff-opt %S/host_loops.mlir --pipeline gpu --gpu-report --gpu-chip sm_90 | filecheck %s --check-prefix=LOOPS
// RUN: autodiff-opt %S/host_loops.mlir --pipeline gpu --gpu-report --gpu-chip sm_80 --gpu-features +ptx70 | filecheck %s --check-prefix=LOOPS
// RUN: autodiff-opt %S/../../examples/standard/rnn.mlir --pipeline gpu --gpu-report --gpu-chip sm_90 | filecheck %s --check-prefix=RNN
// RUN: autodiff-opt %S/../../examples/standard/rnn.mlir --pipeline gpu --gpu-report --gpu-chip sm_80 | filecheck %s --check-prefix=RNN
// RUN: autodiff-opt %S/../../examples/standard/piecewise.mlir --pipeline gpu --gpu-report | filecheck %s --check-prefix=BRANCH
// RUN: autodiff-opt %S/../../examples/standard/piecewise.mlir --pipeline gpu --gpu-report --gpu-chip sm_80 | filecheck %s --check-prefix=BRANCH

// Columns: kernel, grid, block, registers, spill bytes, bytes read, bytes written.
// LOOPS:     kernel {{ +}}grid {{ +}}block {{ +}}regs {{ +}}spills
// LOOPS-NOT: {{^reverse_loop_[0-9]+_[a-z_0-9]+ +[0-9x]+ +[0-9x]+ +[0-9]+ +[1-9]}}
// LOOPS:     reverse_loop_0_elementwise {{ +}}1x1x1 {{ +}}128x1x1 {{ +}}{{[0-9]+}} {{ +}}0
// LOOPS-NOT: {{^reverse_loop_[0-9]+_[a-z_0-9]+ +[0-9x]+ +[0-9x]+ +[0-9]+ +[1-9]}}
// The last kernel copies the 20x4x16 cache to its out-parameter.
// LOOPS:     {{^reverse_loop_[0-9]+_elementwise}} {{ +}}5x1x1 {{ +}}256x1x1 {{ +}}{{[0-9]+}} {{ +}}0
// LOOPS-NOT: reverse_loop_

// RNN:       rnn_loss_0_elementwise {{.*}} 0 {{ +}}
// RNN-NOT:   {{^rnn_loss_[0-9]+_[a-z_0-9]+ +[0-9x]+ +[0-9x]+ +[0-9]+ +[1-9]}}
// RNN:       rnn_loss_6_split_combine

// BRANCH:     piecewise_0_reduce
// BRANCH-NEXT: piecewise_1_condition {{ +}}1x1x1 {{ +}}128x1x1 {{ +}}{{[0-9]+}} {{ +}}0 {{ +}}4 {{ +}}1
// BRANCH-NOT: {{^piecewise_[0-9]+_[a-z_0-9]+ +[0-9x]+ +[0-9x]+ +[0-9]+ +[1-9]}}
// BRANCH:     piecewise_4_reduce
