"""Allocations the compiled code makes at run time are checked (`cpu_backend.checked_allocations`):
one the C library refuses, or one larger than the process may hold, ends the call with an
`AllocationError` naming the function and the size, and the process, the executable and
other threads go on as before."""
from __future__ import annotations

import re
import threading

import numpy as np
import pytest

import gradir
from gradir.cpu_backend.cpu_runtime import CpuExecutable

TERABYTES = 10**12  # f32 elements: 3.64 TiB, more than any machine here holds

FILL_AND_SUM = """\
func.func @{name}(%x: tensor<3xf32>, %n: index) -> (f32, f32) {{
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %v = tensor.extract %x[%c0] : tensor<3xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %filled = linalg.fill ins(%v : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%filled : tensor<?xf32>) outs(%acc : tensor<f32>) dimensions = [0]
    (%a: f32, %b: f32) {{
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    }}
  %s = tensor.extract %sum[] : tensor<f32>
  return %s, %v : f32, f32
}}
"""
"""`n` copies of x[0] summed through a temporary of `4 n` bytes, and x[0] (two scalar results:
the C interface returns them through a struct pointer, which the guard passes on)."""

X = np.array([1.5, 2.0, 3.0], np.float32)


@pytest.fixture(scope="module")
def executable() -> CpuExecutable:
    return CpuExecutable(FILL_AND_SUM.format(name="f"))


def test_a_refused_allocation_is_an_error_and_the_next_call_works(executable):
    assert executable.f(X, 4) == (6.0, 1.5)
    with pytest.raises(gradir.AllocationError) as caught:
        executable.f(X, TERABYTES)
    message = str(caught.value)
    assert message.startswith("error: cpu-run: @f needed a buffer of 3.64 TiB (4000000000000 bytes) at run time")
    assert "more than this process can ever hold" in message and "\n" not in message
    assert isinstance(caught.value, MemoryError) and isinstance(caught.value, gradir.GradirError)
    assert executable.f(X, 10) == (15.0, 1.5)


def test_threads_failing_and_succeeding_at_once(executable):
    wrong: list[tuple[int, object]] = []

    def work(seed: int) -> None:
        for step in range(40):
            n = TERABYTES if (seed + step) % 3 == 0 else 7 + seed
            try:
                result = executable.f(X, n)
                if n == TERABYTES or result != (1.5 * n, 1.5):
                    wrong.append((n, result))
            except gradir.AllocationError as error:
                if n != TERABYTES:
                    wrong.append((n, error))

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []


def test_every_allocation_goes_through_the_check(executable):
    text = executable.llvm_text
    direct = re.findall(r"llvm\.call @(?:aligned_alloc|malloc|realloc)\(", text)
    checked = re.findall(r"llvm\.call @__gradir_checked_(?:aligned_alloc|malloc|realloc)\(", text)
    assert len(direct) == 1, "only the checked twin calls the C library's allocator"
    assert len(checked) >= 2  # the temporary and the reduction's accumulator
    assert re.search(r"llvm\.func @__gradir_guarded_f\(%arg0: !llvm\.ptr, %arg1: !llvm\.ptr", text)


def test_names_a_user_function_could_take_are_not_reused():
    # After renaming (`__gradir_<name>`) these user functions take the names the checks
    # would use first; the checks pick fresh ones and the program still computes.
    source = FILL_AND_SUM.format(name="guarded_f") + "\n".join(
        f"func.func @{name}(%a: f32) -> f32 {{\n  return %a : f32\n}}"
        for name in ("allocation_key", "allocation_limit", "checked_aligned_alloc", "f")
    )
    executable = CpuExecutable(source)
    assert executable.guarded_f(X, 2) == (3.0, 1.5)
    assert executable.f(np.float32(2.5)) == 2.5
    with pytest.raises(gradir.AllocationError, match=r"@guarded_f needed a buffer of 3\.64 TiB"):
        executable.guarded_f(X, TERABYTES)
    assert "@__gradir_allocation_key_1" in executable.llvm_text
