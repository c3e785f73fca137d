// lift-control-flow: branches between blocks become scf (MLIR's lift-cf-to-scf, then
// canonicalize), and scf.index_switch a chain of scf.if; the rules of scf.if and scf.while
// then differentiate them.
// RUN: autodiff-opt %s --split-input-file -p lift-control-flow | filecheck %s
// RUN: autodiff-opt %s --split-input-file --pipeline grad | filecheck %s --check-prefix=GRAD

// A diamond: one scf.if yielding what each branch passed to the join block.
// CHECK-LABEL: func.func @diamond(
// CHECK-SAME:    %[[X:x]]: f64, %[[C:c]]: i1)
// CHECK-NEXT:    %[[R:.*]] = scf.if %[[C]] -> (f64) {
// CHECK-NEXT:      %[[S:.*]] = math.sin %[[X]] : f64
// CHECK-NEXT:      scf.yield %[[S]] : f64
// CHECK-NEXT:    } else {
// CHECK-NEXT:      %[[M:.*]] = arith.mulf %[[X]], %[[X]] : f64
// CHECK-NEXT:      scf.yield %[[M]] : f64
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : f64
// GRAD-LABEL: func.func @diamond_vjp_0(
// GRAD:         scf.if
// GRAD:         autodiff.grad_of "math.sin"
// GRAD:         } else {
// GRAD:         autodiff.grad_of "arith.mulf"
func.func @diamond(%x: f64, %c: i1) -> f64 {
  cf.cond_br %c, ^a, ^b
^a:
  %s = math.sin %x : f64
  cf.br ^m(%s : f64)
^b:
  %m = arith.mulf %x, %x : f64
  cf.br ^m(%m : f64)
^m(%r: f64):
  return %r : f64
}
func.func @diamond_grad(%x: f64, %c: i1) -> f64 {
  %g = autodiff.grad @diamond(%x, %c) {wrt = array<i64: 0>} : (f64, i1) -> f64
  return %g : f64
}

// -----

// A counted loop of blocks: an scf.while whose `before` region tests the counter and
// whose `after` region is the body.
// CHECK-LABEL: func.func @counted(
// CHECK-NOT:     {{^ *cf\.}}
// CHECK:         scf.while
// CHECK:           arith.cmpi slt
// CHECK:           scf.condition
// CHECK:         } do {
// CHECK:           math.tanh
// CHECK:           arith.addi
// CHECK:           scf.yield
// GRAD-LABEL: func.func @counted_vjp_0(
// GRAD:         scf.for
// GRAD:         autodiff.grad_of "math.tanh"
func.func @counted(%x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^head(%c0, %x : index, f64)
^head(%i: index, %y: f64):
  %more = arith.cmpi slt, %i, %n : index
  cf.cond_br %more, ^body, ^done
^body:
  %t = math.tanh %y : f64
  %i1 = arith.addi %i, %c1 : index
  cf.br ^head(%i1, %t : index, f64)
^done:
  return %y : f64
}
func.func @counted_grad(%x: f64, %n: index) -> f64 {
  %g = autodiff.grad @counted(%x, %n) {wrt = array<i64: 0>} : (f64, index) -> f64
  return %g : f64
}

// -----

// A switch: the first case is tested first, the default is the innermost else.
// CHECK-LABEL: func.func @switch(
// CHECK-SAME:    %[[X:x]]: f64, %[[K:k]]: index)
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:    %[[IS0:.*]] = arith.cmpi eq, %[[K]], %[[ZERO]] : index
// CHECK-NEXT:    %{{.*}} = scf.if %[[IS0]] -> (f64) {
// CHECK-NEXT:      math.sin %[[X]]
// CHECK:         } else {
// CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[IS2:.*]] = arith.cmpi eq, %[[K]], %[[TWO]] : index
// CHECK-NEXT:      %{{.*}} = scf.if %[[IS2]] -> (f64) {
// CHECK-NEXT:        math.cos %[[X]]
// CHECK:           } else {
// CHECK-NEXT:        math.exp %[[X]]
// CHECK-NOT:     scf.index_switch
func.func @switch(%x: f64, %k: index) -> f64 {
  %r = scf.index_switch %k -> f64
  case 0 {
    %a = math.sin %x : f64
    scf.yield %a : f64
  }
  case 2 {
    %b = math.cos %x : f64
    scf.yield %b : f64
  }
  default {
    %c = math.exp %x : f64
    scf.yield %c : f64
  }
  return %r : f64
}

// -----

// A function with one block is left exactly as it is.
// CHECK-LABEL: func.func @straight(
// CHECK-NEXT:    %[[T:.*]] = math.tanh %x : f64
// CHECK-NEXT:    func.return %[[T]] : f64
func.func @straight(%x: f64) -> f64 {
  %t = math.tanh %x : f64
  return %t : f64
}

// -----

// More than four cases: the matching case's position (5: none), one compare and select
// per case, then a balanced tree of scf.if on it, each region once.
// CHECK-LABEL: func.func @many(
// CHECK-SAME:    %[[X:x]]: f64, %[[K:k]]: index)
// CHECK:         %[[NONE:.*]] = arith.constant 5 : index
// CHECK:         %[[IS50:.*]] = arith.cmpi eq, %[[K]], %{{.*}} : index
// CHECK-NEXT:    %[[P4:.*]] = arith.select %[[IS50]], %{{.*}}, %[[NONE]] : index
// CHECK-COUNT-4: arith.select
// CHECK:         %[[LOW:.*]] = arith.cmpi ult, %[[POS:.*]], %{{.*}} : index
// CHECK-NEXT:    scf.if %[[LOW]] -> (f64) {
// CHECK-COUNT-1: math.sin
// CHECK-COUNT-1: math.cos
// CHECK-COUNT-1: math.tanh
// CHECK:         } else {
// CHECK-COUNT-1: math.exp
// CHECK-COUNT-1: math.log
// CHECK-NOT:     math.
// CHECK:         func.return
func.func @many(%x: f64, %k: index) -> f64 {
  %r = scf.index_switch %k -> f64
  case 10 {
    %a = math.sin %x : f64
    scf.yield %a : f64
  }
  case 20 {
    %b = math.cos %x : f64
    scf.yield %b : f64
  }
  case 30 {
    %c = math.tanh %x : f64
    scf.yield %c : f64
  }
  case 40 {
    %d = math.exp %x : f64
    scf.yield %d : f64
  }
  case 50 {
    %e = math.log %x : f64
    scf.yield %e : f64
  }
  default {
    scf.yield %x : f64
  }
  return %r : f64
}

// -----

// scf.forall -> the scf.for nest it equals: one loop per induction variable, the shared
// outputs carried (the body reads the carried tensor), each parallel_insert_slice an
// insert_slice into it; the reverse then caches the carried tensor.
// CHECK-LABEL: func.func @forall(
// CHECK-SAME:    %[[X:x]]: tensor<6x4xf32>, %[[O:o]]: tensor<6x4xf32>, %[[N:n]]: index)
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[SIX:.*]] = arith.constant 6 : index
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2 : index
// CHECK:         %[[R:.*]] = scf.for %[[I:i]] = %[[ZERO]] to %[[SIX]] step %[[TWO]] iter_args(%[[A:.*]] = %[[O]]) -> (tensor<6x4xf32>) {
// CHECK-NEXT:      %[[IN:.*]] = scf.for %[[J:j]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[S:s]] = %[[A]]) -> (tensor<6x4xf32>) {
// CHECK-NEXT:        %[[E:e]] = tensor.extract_slice %[[X]][%[[I]], %[[J]]] [2, 1] [1, 1]
// CHECK-NEXT:        %[[OLD:old]] = tensor.extract_slice %[[S]][%[[I]], %[[J]]] [2, 1] [1, 1]
// CHECK-NEXT:        %[[Y:y]] = arith.addf %[[E]], %[[OLD]]
// CHECK-NEXT:        %[[W:.*]] = tensor.insert_slice %[[Y]] into %[[S]][%[[I]], %[[J]]] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<6x4xf32>
// CHECK-NEXT:        scf.yield %[[W]] : tensor<6x4xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[IN]] : tensor<6x4xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[R]] : tensor<6x4xf32>
// GRAD-LABEL: func.func @forall_vjp_0_1(
// GRAD:         scf.for
// GRAD:         autodiff.grad_of "tensor.insert_slice"
func.func @forall(%x: tensor<6x4xf32>, %o: tensor<6x4xf32>, %n: index) -> tensor<6x4xf32> {
  %r = scf.forall (%i, %j) = (0, 0) to (6, %n) step (2, 1) shared_outs(%s = %o) -> (tensor<6x4xf32>) {
    %e = tensor.extract_slice %x[%i, %j] [2, 1] [1, 1] : tensor<6x4xf32> to tensor<2x1xf32>
    %old = tensor.extract_slice %s[%i, %j] [2, 1] [1, 1] : tensor<6x4xf32> to tensor<2x1xf32>
    %y = arith.addf %e, %old : tensor<2x1xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %y into %s[%i, %j] [2, 1] [1, 1] : tensor<2x1xf32> into tensor<6x4xf32>
    }
  }
  return %r : tensor<6x4xf32>
}
func.func @forall_vjp(%x: tensor<6x4xf32>, %o: tensor<6x4xf32>, %n: index, %ct: tensor<6x4xf32>) -> (tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>) {
  %r:3 = autodiff.vjp @forall(%x, %o, %n, %ct) {wrt = array<i64: 0, 1>} : (tensor<6x4xf32>, tensor<6x4xf32>, index, tensor<6x4xf32>) -> (tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>)
  return %r#0, %r#1, %r#2 : tensor<6x4xf32>, tensor<6x4xf32>, tensor<6x4xf32>
}

// -----

// scf.execute_region runs its region once where it stands: one block is inlined.
// CHECK-LABEL: func.func @execute_region(
// CHECK-SAME:    %[[X:x]]: f64)
// CHECK-NEXT:    %[[S:s]] = math.sin %[[X]] : f64
// CHECK-NEXT:    %[[M:m]] = arith.mulf %[[S]], %[[X]] : f64
// CHECK-NEXT:    func.return %[[M]] : f64
func.func @execute_region(%x: f64) -> f64 {
  %r = scf.execute_region -> f64 {
    %s = math.sin %x : f64
    scf.yield %s : f64
  }
  %m = arith.mulf %r, %x : f64
  return %m : f64
}
