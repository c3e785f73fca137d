"""`memref.alloca`s that could overflow the stack run from the heap (`heap_allocas`).

Before, an alloca of 800 MB, or a small one in a loop of many iterations, ended the
process with a segmentation fault; the programs that did run here in a child process.
"""
import textwrap

import numpy as np
import pytest

import gradir
from child_process import run_python
from gradir.cpu_backend.heap_allocas import STACK_BUDGET, allocas_on_heap
from gradir.mlir_bridge import to_mlir_module, walk_ops
from hostile.cases_run import HUGE_ALLOCA as HUGE

IN_LOOP = """
func.func @f(%x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4096 = arith.constant 4096 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> f64 {
    %even = arith.remui %i, %c2 : index
    %when = arith.cmpi eq, %even, %c0 : index
    %t = scf.if %when -> f64 {
      %m = memref.alloca() : memref<4096xf64>
      scf.for %j = %c0 to %c4096 step %c1 {
        memref.store %x, %m[%j] : memref<4096xf64>
      }
      %sum = scf.for %j = %c0 to %c4096 step %c1 iter_args(%u = %a) -> f64 {
        %v = memref.load %m[%j] : memref<4096xf64>
        %w = arith.addf %u, %v : f64
        scf.yield %w : f64
      }
      scf.yield %sum : f64
    } else {
      scf.yield %a : f64
    }
    scf.yield %t : f64
  }
  return %s : f64
}
"""
"""x summed 4096 times in each even iteration of `n`, through 32 KiB of new stack in each
(1.6 GB for n = 100,000; inside an `scf.if`, MLIR's loop hoisting leaves it in the loop)."""

DYNAMIC_AND_SCOPED = """
func.func @f(%x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %small = memref.alloca() : memref<2xf64>
  memref.store %x, %small[%c0] : memref<2xf64>
  %r = "memref.alloca_scope"() ({
    %tiny = memref.alloca() : memref<1xf64>
    %m = memref.alloca(%n) {alignment = 64 : i64} : memref<?xf64>
    scf.for %i = %c0 to %n step %c1 {
      memref.store %x, %m[%i] : memref<?xf64>
    }
    %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> f64 {
      %v = memref.load %m[%i] : memref<?xf64>
      %b = arith.addf %a, %v : f64
      scf.yield %b : f64
    }
    "memref.alloca_scope.return"(%s) : (f64) -> ()
  }) : () -> f64
  %y = memref.load %small[%c0] : memref<2xf64>
  %t = arith.addf %r, %y : f64
  return %t : f64
}
"""
"""x n + x, through a run-time-sized alloca in an alloca scope holding loops (as a small one\nthere), and a small one on the stack."""


def _kinds(text: str) -> list[str]:
    module = to_mlir_module(text)
    allocas_on_heap(module)
    return [op.name for op in walk_ops(module, {"memref.alloc", "memref.alloca"})]


def test_what_moves_to_the_heap():
    assert _kinds(HUGE) == ["memref.alloc"]
    assert _kinds(IN_LOOP) == ["memref.alloc"]
    assert _kinds(DYNAMIC_AND_SCOPED) == ["memref.alloca", "memref.alloc", "memref.alloc"]


def test_the_stack_budget_is_per_scope_in_order():
    count = STACK_BUDGET // (1024 * 8)
    allocas = "\n".join(f"  %m{i} = memref.alloca() : memref<1024xf64>" for i in range(count + 2))
    text = f"func.func @f() {{\n{allocas}\n  return\n}}\n"
    assert _kinds(text) == ["memref.alloca"] * count + ["memref.alloc"] * 2


def test_the_alignment_is_kept():
    module = to_mlir_module(DYNAMIC_AND_SCOPED)
    allocas_on_heap(module)
    (_tiny, alloc) = walk_ops(module, {"memref.alloc"})
    assert str(alloc.attributes["alignment"]) == "64 : i64"


def test_dynamic_and_scoped_allocas_compute_the_same():
    result = gradir.compile(DYNAMIC_AND_SCOPED).f(np.float64(1.5), 1000)
    assert result == pytest.approx(1.5 * 1000 + 1.5)


@pytest.mark.parametrize(
    ("program", "arguments", "expected"),
    [(HUGE, "np.float64(2.0)", 2.0e8), (IN_LOOP, "np.float64(0.5), 100_000", 0.5 * 4096 * 50_000)],
    ids=["800-MB-alloca", "alloca-in-a-loop"],
)
def test_programs_that_overflowed_the_stack_run(tmp_path, program, arguments, expected):
    script = textwrap.dedent(f"""
        import numpy as np, gradir
        result = gradir.compile({program!r}).f({arguments})
        assert result == {expected!r}, result
    """)
    run_python(script, tmp_path)  # a segmentation fault would end the test session
