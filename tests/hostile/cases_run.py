"""Hostile invocations of `autodiff-run` and `autodiff-gradcheck` (see `contract.CliCase`):
`.npy` inputs that are not what they claim, output names NumPy would change, paths that
are not `.mlir` files, bad tolerances."""
from __future__ import annotations

import numpy as np

from .contract import CliCase
from .files import A, B, INDEXED, PRODUCT, QUOTED, npy, npy_header_claiming, npz, zip_of_text

PROGRAM = {"p.mlir": PRODUCT, "a.npy": A, "b.npy": B}

BAD_NPY = [
    # (name, content, expected message)
    ("empty", b"", "the file is empty, not a .npy array"),
    ("terabytes", npy_header_claiming((10**12,)), "its header claims shape (1000000000000,) of float32 (3.64 TiB)"),
    ("exabytes", npy_header_claiming((2**62, 2**62)), "its header claims shape"),
    ("truncated", npy_header_claiming((4,), data=b"\0" * 13), "its header claims shape (4,) of float32 (16 bytes) but the file holds 13 bytes"),
    ("object-array", npy(np.array([1, "a"], dtype=object)), "it holds Python objects (dtype object), which gradir never unpickles"),
    ("npz-as-npy", npz(a=np.ones(4, np.float32)), "it is an .npz archive"),
    ("zip-as-npy", zip_of_text, "it is an .npz archive"),
    ("text", "hello\n", "not a .npy file"),
    ("magic-only", b"\x93NUMPY", "not a .npy file"),
    ("bad-version", b"\x93NUMPY\x09\x00" + b"\0" * 20, "not a .npy file"),
    ("header-garbage", b"\x93NUMPY\x01\x00\x10\x00" + b"this is no dict\n", "not a .npy file"),
    ("header-not-dict", b"\x93NUMPY\x01\x00\x10\x00" + b"[1, 2, 3]      \n", "not a .npy file"),
    ("header-bad-dtype", npy_header_claiming((4,), dtype="<q9"), "not a .npy file"),
    ("negative-shape", npy_header_claiming((-4,)), "not a .npy file"),
    ("huge-header-length", b"\x93NUMPY\x01\x00\xff\xff" + b" " * 100, "not a .npy file"),
    ("structured-object", npy(np.zeros(2, dtype=[("a", "O")])), "it holds Python objects"),
]


def _bad_inputs() -> list[CliCase]:
    cases = []
    for name, content, expect in BAD_NPY:
        files = {**PROGRAM, "bad.npy": content}
        cases.append(
            CliCase(
                f"run-npy-{name}", "run",
                ("p.mlir", "--entry", "df", "--inputs", "bad.npy", "b.npy", "--output", "out.npz"),
                f"cannot read input bad.npy: {expect}", files=files, absent=("out.npz",),
            )
        )  # fmt: skip
        cases.append(
            CliCase(
                f"gradcheck-npy-{name}", "gradcheck",
                ("p.mlir", "--entry", "f", "--inputs", "a.npy", "bad.npy"),
                f"cannot read input bad.npy: {expect}", files=files,
            )
        )  # fmt: skip
    cases += [
        CliCase("run-npy-missing", "run", ("p.mlir", "--entry", "df", "--inputs", "nope.npy", "b.npy"),
                "cannot read input nope.npy: no such file", files=PROGRAM),
        CliCase("run-npy-directory", "run", ("p.mlir", "--entry", "df", "--inputs", "d", "b.npy"),
                "cannot read input d: it is a directory", files={**PROGRAM, "d/x": ""}),
        CliCase("gradcheck-npy-missing", "gradcheck", ("p.mlir", "--entry", "f", "--inputs", "a.npy", "nope.npy"),
                "cannot read input nope.npy: no such file", files=PROGRAM),
    ]  # fmt: skip
    return cases


def _outputs() -> list[CliCase]:
    """NumPy's savez appends `.npz`: `--output res` wrote `res.npz`, `--output DIR` wrote
    `DIR.npz` beside the folder. Checked before anything runs."""
    run = ("p.mlir", "--entry", "df", "--inputs", "a.npy", "b.npy", "--output")
    return [
        CliCase("run-output-no-suffix", "run", (*run, "res"), "--output res: the results file must end in .npz",
                files=PROGRAM, absent=("res", "res.npz")),
        CliCase("run-output-npy-suffix", "run", (*run, "res.npy"), "must end in .npz",
                files=PROGRAM, absent=("res.npy", "res.npy.npz")),
        CliCase("run-output-directory", "run", (*run, "d.npz"), "--output d.npz: it is a directory",
                files={**PROGRAM, "d.npz/keep": ""}, absent=("d.npz.npz",)),
        CliCase("run-output-plain-directory", "run", (*run, "d"), "must end in .npz",
                files={**PROGRAM, "d/keep": ""}, absent=("d.npz",)),
        CliCase("run-output-no-folder", "run", (*run, "nowhere/r.npz"), "no such directory nowhere",
                files=PROGRAM, absent=("nowhere",)),
        CliCase("run-output-after-bad-entry", "run",
                ("p.mlir", "--entry", "nope", "--inputs", "a.npy", "b.npy", "--output", "r.npz"),
                "--entry: no function @nope in the module (its public functions: @df, @f", files=PROGRAM,
                absent=("r.npz",)),
    ]  # fmt: skip


def _program_paths() -> list[CliCase]:
    """The program is a file whatever its name ends with (as for autodiff-opt); it was read
    as MLIR text when the name did not end in `.mlir`."""
    cases = []
    for tool, entry in (("run", "df"), ("gradcheck", "f")):
        cases += [
            CliCase(f"{tool}-file-missing-txt", tool, ("missing.txt", "--entry", entry),
                    "cannot read missing.txt: No such file or directory"),
            CliCase(f"{tool}-file-missing-mlir", tool, ("missing.mlir", "--entry", entry),
                    "cannot read missing.mlir: No such file or directory"),
            CliCase(f"{tool}-file-no-suffix-missing", tool, ("program", "--entry", entry),
                    "cannot read program: No such file or directory"),
            CliCase(f"{tool}-file-directory", tool, ("d", "--entry", entry),
                    "cannot read d: Is a directory", files={"d/x": ""}),
            CliCase(f"{tool}-file-txt-syntax-error", tool, ("p.txt", "--entry", entry),
                    "Expected", location=r"p\.txt:1:\d+", files={"p.txt": "func.func @f( {\n"}),
            CliCase(f"{tool}-file-npy-as-program", tool, ("a.npy", "--entry", entry),
                    "", location=r"a\.npy:\d+:\d+", files={"a.npy": A}),
            CliCase(f"{tool}-file-empty-entry-missing", tool, ("e.mlir", "--entry", entry),
                    "no ", files={"e.mlir": ""}),
            CliCase(f"{tool}-quoted-entry-missing", tool, ("q.mlir", "--entry", '"no such"'),
                    "no ", files={"q.mlir": QUOTED}),
        ]  # fmt: skip
    return cases


def _gradcheck_options() -> list[CliCase]:
    base = ("p.mlir", "--entry", "f")
    bad = [
        ("eps-zero", ("--eps", "0"), "--eps must be > 0, got 0.0"),
        ("eps-negative", ("--eps=-1e-6",), "--eps must be > 0, got -1e-06"),
        ("eps-nan", ("--eps", "nan"), "--eps must be finite, got nan"),
        ("eps-inf", ("--eps", "inf"), "--eps must be finite, got inf"),
        ("eps-text", ("--eps", "small"), "argument --eps: invalid float value: 'small'"),
        ("atol-negative", ("--atol=-1",), "--atol must be >= 0, got -1.0"),
        ("rtol-nan", ("--rtol", "nan"), "--rtol must be finite"),
        ("seed-negative", ("--seed=-1",), "--seed must be >= 0, got -1"),
        ("seed-float", ("--seed", "1.5"), "argument --seed: invalid int value"),
        ("wrt-empty", ("--wrt", ""), "--wrt expects comma-separated integers, got ''"),
        ("wrt-float", ("--wrt", "0.5"), "--wrt expects comma-separated integers, got '0.5'"),
        ("wrt-out-of-range", ("--wrt", "7"), "wrt index 7 does not name a float tensor"),
        ("wrt-negative", ("--wrt=-1",), "wrt index -1 does not name a float tensor"),
        ("wrt-huge", ("--wrt", str(2**70)), "does not name a float tensor"),
        ("inputs-count", ("--inputs", "a.npy"), "takes 2 arguments, 1 inputs given"),
    ]
    return [
        CliCase(f"gradcheck-{name}", "gradcheck", (*base, *flags), expect, files=PROGRAM)
        for name, flags, expect in bad
    ]


def _integer_inputs() -> list[CliCase]:
    """Integer arguments take integral values in range, never truncated or wrapped."""
    files = {
        "i.mlir": INDEXED, "x.npy": npy(np.ones(3)),
        "frac.npy": npy(np.array([2.7, 1.0, 1.0])), "big.npy": npy(np.array([2**40, 1, 1])),
        "frac0.npy": npy(np.array(2.7)), "big0.npy": npy(np.array(2**40)),
        "bool0.npy": npy(np.array(True)), "nan0.npy": npy(np.array(np.nan)),
    }  # fmt: skip
    cases = []
    for name, function, given, expect in [
        ("tensor-fraction", "g", "frac.npy", "non-integral values"),
        ("tensor-2-to-40", "g", "big.npy", "out of the range of tensor<3xi32>"),
        ("scalar-fraction", "h", "frac0.npy", "h: argument 1 is 2.7, expected an integer (i32)"),
        ("scalar-2-to-40", "h", "big0.npy", "out of the range of i32"),
        ("scalar-bool", "h", "bool0.npy", "h: argument 1 is a bool, expected i32"),
        ("scalar-nan", "h", "nan0.npy", "expected an integer (i32)"),
    ]:
        cases.append(CliCase(f"gradcheck-int-{name}", "gradcheck",
                             ("i.mlir", "--entry", function, "--inputs", "x.npy", given), expect, files=files))
    for name, function, given, expect in [
        ("tensor-fraction", "g", "frac.npy", "argument 1 has dtype float64, expected int32"),
        ("tensor-2-to-40", "g", "big.npy", "argument 1 has dtype int64, expected int32"),
        ("scalar-fraction", "h", "frac0.npy", "argument 1 is 2.7, expected an integer (i32)"),
        ("scalar-2-to-40", "h", "big0.npy", "argument 1 is 1099511627776, out of the range of i32"),
        ("scalar-bool", "h", "bool0.npy", "argument 1 is a bool, expected i32"),
        ("scalar-nan", "h", "nan0.npy", "expected an integer (i32)"),
    ]:
        cases.append(CliCase(f"run-int-{name}", "run",
                             ("i.mlir", "--entry", function, "--inputs", "x.npy", given, "--output", "o.npz"),
                             expect, files=files, absent=("o.npz",)))
    return cases  # fmt: skip


SELF_CALL = """\
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %y = func.call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %s = autodiff.sum %y : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
"""

MUTUAL = """\
func.func @a(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @b(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @b(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant true
  %y = scf.if %c -> tensor<4xf32> {
    %w = func.call @a(%x) : (tensor<4xf32>) -> tensor<4xf32>
    scf.yield %w : tensor<4xf32>
  } else {
    scf.yield %x : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}
"""


def _recursion() -> list[CliCase]:
    """Recursive programs: the compiled code had no bound on its call depth and died of a
    stack overflow (a segmentation fault): run apart, in case that comes back."""
    files = {"self.mlir": SELF_CALL, "mutual.mlir": MUTUAL, "x.npy": npy(np.ones(4, np.float32))}
    return [
        CliCase("run-recursion-self", "run", ("self.mlir", "--entry", "f", "--inputs", "x.npy"),
                "'func.call' of @f is recursive (@f -> @f)", r"self\.mlir:2:3", files, isolated=True),
        CliCase("run-recursion-mutual", "run", ("mutual.mlir", "--entry", "a", "--inputs", "x.npy"),
                "'func.call' of @a is recursive (@a -> @b -> @a)", r"mutual\.mlir:8:5", files, isolated=True),
        CliCase("gradcheck-recursion-self", "gradcheck", ("self.mlir", "--entry", "loss"),
                "'func.call' of @f is recursive", r"self\.mlir:2:3", files, isolated=True),
        CliCase("gradcheck-recursion-mutual", "gradcheck", ("mutual.mlir", "--entry", "a"),
                "is recursive (@a -> @b -> @a)", r"mutual\.mlir:8:5", files, isolated=True),
    ]  # fmt: skip


HUGE_ALLOCA = """\
func.func @f(%x: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 100000000 : index
  %m = memref.alloca() : memref<100000000xf64>
  scf.for %i = %c0 to %n step %c1 {
    memref.store %x, %m[%i] : memref<100000000xf64>
  }
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> f64 {
    %v = memref.load %m[%i] : memref<100000000xf64>
    %b = arith.addf %a, %v : f64
    scf.yield %b : f64
  }
  return %s : f64
}
"""
"""800 MB on the stack: x summed 1e8 times."""


HUGE_TEMPORARY = """\
func.func @f(%x: tensor<4xf32>) -> tensor<f32> {
  %b = autodiff.broadcast_to %x : tensor<4xf32> -> tensor<40000000000x4xf32>
  %s = autodiff.sum %b : tensor<40000000000x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
"""

HUGE_LOOP_CACHE = """\
func.func @f(%x: tensor<1000xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1000000000 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> tensor<1000xf32> {
    %s = autodiff.sin %a : tensor<1000xf32>
    scf.yield %s : tensor<1000xf32>
  }
  %l = autodiff.sum %r : tensor<1000xf32> -> tensor<f32>
  return %l : tensor<f32>
}
"""

TOGETHER_TOO_LARGE = """\
func.func @f(%x: tensor<36000xf32>) -> tensor<36000x36000xf32> {
  %e = tensor.empty() : tensor<36000x36000xf32>
  %zero = arith.constant 0.0 : f32
  %rows = linalg.broadcast ins(%x : tensor<36000xf32>) outs(%e : tensor<36000x36000xf32>) dimensions = [0]
  %columns = linalg.broadcast ins(%x : tensor<36000xf32>) outs(%e : tensor<36000x36000xf32>) dimensions = [1]
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<36000x36000xf32>) -> tensor<36000x36000xf32>
  %p = linalg.matmul ins(%rows, %columns : tensor<36000x36000xf32>, tensor<36000x36000xf32>) outs(%f : tensor<36000x36000xf32>) -> tensor<36000x36000xf32>
  return %p : tensor<36000x36000xf32>
}
"""
"""Two 4.83 GiB operands of a matmul: each fits under an 8 GiB cap, both at once do not."""

RUNTIME_LOOP_CACHE = """\
func.func @f(%x: tensor<1000xf32>, %n: index) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> tensor<1000xf32> {
    %s = autodiff.sin %a : tensor<1000xf32>
    scf.yield %s : tensor<1000xf32>
  }
  %l = autodiff.sum %r : tensor<1000xf32> -> tensor<f32>
  return %l : tensor<f32>
}
func.func @g(%x: tensor<1000xf32>, %n: index) -> tensor<1000xf32> {
  %g = autodiff.grad @f(%x, %n) {wrt = array<i64: 0>} : (tensor<1000xf32>, index) -> tensor<1000xf32>
  return %g : tensor<1000xf32>
}
"""
"""The reverse loop's cache holds `n` states of 4,000 bytes: its size is known only at run time."""

RUNTIME_TEMPORARY = """\
func.func @f(%x: tensor<3xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %v = tensor.extract %x[%c0] : tensor<3xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %filled = linalg.fill ins(%v : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%filled : tensor<?xf32>) outs(%acc : tensor<f32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    }
  %s = tensor.extract %sum[] : tensor<f32>
  return %s : f32
}
"""
"""`n` x[0]s summed, through a temporary of `4 n` bytes."""

GIB = 2**30


def _memory() -> list[CliCase]:
    """Static buffers larger than the process may hold: malloc's failure went unchecked and
    the first store crashed. Run apart, under a memory cap."""
    files = {
        "temp.mlir": HUGE_TEMPORARY, "cache.mlir": HUGE_LOOP_CACHE, "together.mlir": TOGETHER_TOO_LARGE,
        "x36000.npy": npy(np.ones(36000, np.float32)),
        "x4.npy": npy(np.ones(4, np.float32)), "x1000.npy": npy(np.ones(1000, np.float32)),
    }  # fmt: skip
    return [
        CliCase("run-memory-640gb-temporary", "run", ("temp.mlir", "--entry", "f", "--inputs", "x4.npy"),
                "cpu-memory: @f allocates a buffer memref<40000000000x4xf32> of 596 GiB, more than this "
                "process can ever hold (8 GiB)", files=files, isolated=True, memory_cap=8 * GIB),
        CliCase("gradcheck-memory-640gb-temporary", "gradcheck", ("temp.mlir", "--entry", "f"),
                "allocates a buffer memref<40000000000x4xf64>", files=files, isolated=True, memory_cap=8 * GIB),
        CliCase("gradcheck-memory-terabyte-loop-cache", "gradcheck", ("cache.mlir", "--entry", "f"),
                "cpu-memory: @__gradcheck_vjp_f", files=files, isolated=True, memory_cap=8 * GIB),
        CliCase("run-memory-buffers-together", "run", ("together.mlir", "--entry", "f", "--inputs", "x36000.npy"),
                "cpu-memory: @f needs at least 9.66 GiB at once (2 buffers live together, the largest "
                "memref<36000x36000xf32> of 4.83 GiB), more than this process can ever hold (8 GiB)",
                files=files, isolated=True, memory_cap=8 * GIB),
        CliCase("run-memory-no-cap", "run", ("temp.mlir", "--entry", "f", "--inputs", "x4.npy"),
                "more than this process can ever hold", files=files, isolated=True),
    ]  # fmt: skip


def _memory_at_run_time() -> list[CliCase]:
    """Buffers whose size only the run knows: the compiled code's allocations are checked,
    and a failed one ends the call with an error instead of the process with a crash."""
    files = {
        "cache.mlir": RUNTIME_LOOP_CACHE, "temp.mlir": RUNTIME_TEMPORARY,
        "x3.npy": npy(np.ones(3, np.float32)), "x1000.npy": npy(np.full(1000, 0.5, np.float32)),
        "billion.npy": npy(np.array(10**9)), "near_cap.npy": npy(np.array(2_100_000_000)),
    }  # fmt: skip
    return [
        CliCase("run-memory-runtime-loop-cache", "run", ("cache.mlir", "--entry", "g", "--inputs", "x1000.npy",
                "billion.npy"), "cpu-run: @g needed a buffer of 3.64 TiB (4000000000000 bytes) at run time, "
                "more than this process can ever hold (8 GiB)", files=files, isolated=True, memory_cap=8 * GIB),
        CliCase("run-memory-runtime-loop-cache-no-cap", "run", ("cache.mlir", "--entry", "g", "--inputs",
                "x1000.npy", "billion.npy"), "needed a buffer of 3.64 TiB (4000000000000 bytes) at run time",
                files=files, isolated=True),
        # Under the limit, but more than the address space the process has left under its cap.
        CliCase("run-memory-runtime-refused", "run", ("temp.mlir", "--entry", "f", "--inputs", "x3.npy",
                "near_cap.npy"), "cpu-run: @f needed a buffer of 7.82 GiB (8400000000 bytes) at run time, "
                "the C library refused it", files=files, isolated=True, memory_cap=8 * GIB),
    ]  # fmt: skip


UNDEFINED_AT_RUN_TIME = """\
func.func @pick(%x: tensor<4xf64>, %i: index) -> f64 {
  %v = tensor.extract %x[%i] : tensor<4xf64>
  return %v : f64
}
func.func @divide(%a: tensor<3xi64>, %d: i64) -> tensor<3xi64> {
  %e = tensor.empty() : tensor<3xi64>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]} ins(%a : tensor<3xi64>) outs(%e : tensor<3xi64>) {
  ^bb0(%v: i64, %o: i64):
    %q = arith.divsi %v, %d : i64
    linalg.yield %q : i64
  } -> tensor<3xi64>
  return %r : tensor<3xi64>
}
func.func @count(%n: index, %step: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %k = scf.for %i = %c0 to %n step %step iter_args(%k = %c0) -> index {
    %next = arith.addi %k, %c1 : index
    scf.yield %next : index
  }
  return %k : index
}
func.func @window(%x: tensor<4xf64>, %i: index) -> f64 {
  %m = bufferization.to_buffer %x : tensor<4xf64> to memref<4xf64>
  %v = vector.load %m[%i] : memref<4xf64>, vector<2xf64>
  %s = vector.reduction <add>, %v : vector<2xf64> into f64
  return %s : f64
}
func.func @lanes(%a: tensor<3xi64>, %b: tensor<3xi64>) -> tensor<3xi64> {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0 : i64
  %va = vector.transfer_read %a[%c0], %z : tensor<3xi64>, vector<3xi64>
  %vb = vector.transfer_read %b[%c0], %z : tensor<3xi64>, vector<3xi64>
  %q = arith.remsi %va, %vb : vector<3xi64>
  %r = vector.transfer_write %q, %a[%c0] : vector<3xi64>, tensor<3xi64>
  return %r : tensor<3xi64>
}
"""


def _undefined_at_run_time() -> list[CliCase]:
    """Inputs that make an op undefined: a segmentation fault or a wrong number (an index
    out of bounds, of `tensor.extract` or of the program's own `vector.load`), SIGFPE (a
    division by zero, of scalars or of vectors), or a loop that never ends (a zero step);
    now each a located error (`cpu_backend/run_time_checks.py`)."""
    files = {
        "u.mlir": UNDEFINED_AT_RUN_TIME, "x.npy": npy(np.arange(4.0)), "far.npy": npy(np.array(10**9)),
        "four.npy": npy(np.array(4)), "a.npy": npy(np.array([5, 7, 9])), "zero.npy": npy(np.array(0)),
        "min.npy": npy(np.array([-2**63, 1, 2])), "minus.npy": npy(np.array(-1)), "ten.npy": npy(np.array(10)),
        "lanes.npy": npy(np.array([2, 0, 3])),
    }  # fmt: skip
    cases = []
    for name, function, given, expect, where in [
        ("index-out-of-bounds", "pick", ("x.npy", "four.npy"), "cpu-run: @pick: an index out of bounds (tensor.extract) at run time", "u.mlir:2:3"),
        ("index-far-out-of-bounds", "pick", ("x.npy", "far.npy"), "an index out of bounds", "u.mlir:2:3"),
        ("division-by-zero", "divide", ("a.npy", "zero.npy"), "cpu-run: @divide: an integer division by zero (arith.divsi)", "u.mlir:10:5"),
        ("division-overflow", "divide", ("min.npy", "minus.npy"), "the smallest i64 by -1", "u.mlir:10:5"),
        ("loop-step-zero", "count", ("ten.npy", "zero.npy"), "a loop step that is not positive, so the loop would never end", "u.mlir:18:3"),
        ("vector-load-far", "window", ("x.npy", "far.npy"), "cpu-run: @window: an index out of bounds (vector.load)", "u.mlir:26:3"),
        ("vector-load-past-end", "window", ("x.npy", "ten.npy"), "an index out of bounds (vector.load)", "u.mlir:26:3"),
        ("vector-division-by-zero", "lanes", ("a.npy", "lanes.npy"), "cpu-run: @lanes: an integer division by zero (arith.remsi)", "u.mlir:35:3"),
    ]:
        cases.append(CliCase(f"run-{name}", "run", ("u.mlir", "--entry", function, "--inputs", *given, "--output", "o.npz"),
                             expect, location=where, files=files, absent=("o.npz",), isolated=True))
    return cases  # fmt: skip


EXTERNAL_CALL = """\
func.func private @abort()
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  func.call @abort() : () -> ()
  return %x : tensor<3xf64>
}
"""


LLVM_CALL = EXTERNAL_CALL.replace("func.func private @abort()", "llvm.func @abort()").replace("func.call", "llvm.call")

FAR_CAST = """\
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %m = memref.alloc() : memref<2xf64>
  %c0 = arith.constant 0 : index
  %r = memref.reinterpret_cast %m to offset: [100000000], sizes: [2], strides: [1] : memref<2xf64> to memref<2xf64, strided<[1], offset: 100000000>>
  %one = arith.constant 1.0 : f64
  memref.store %one, %r[%c0] : memref<2xf64, strided<[1], offset: 100000000>>
  return %x : tensor<3xf64>
}
"""


MASKED_LOAD = """\
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %m = bufferization.to_buffer %x : tensor<3xf64> to memref<3xf64>
  %c0 = arith.constant 0 : index
  %mask = arith.constant dense<true> : vector<3xi1>
  %pass = arith.constant dense<0.0> : vector<3xf64>
  %v = vector.maskedload %m[%c0], %mask, %pass : memref<3xf64>, vector<3xi1>, vector<3xf64> into vector<3xf64>
  return %x : tensor<3xf64>
}
"""


STORE_INTO_ARGUMENT = """\
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %m = bufferization.to_buffer %x : tensor<3xf64> to memref<3xf64>
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f64
  memref.store %one, %m[%c0] : memref<3xf64>
  return %x : tensor<3xf64>
}
"""


def _external_calls() -> list[CliCase]:
    """Ways out of the program's own memory and code: a call of a function declared without
    a body (the JIT took it from the process: `@abort` ended it, an unknown name printed
    the JIT's own line, then a second), the llvm dialect (`llvm.call @abort` ran), and a
    view 800 MB past its 16-byte buffer (stored through with no error)."""
    files = {
        "e.mlir": EXTERNAL_CALL, "x.npy": npy(np.ones(3)), "other.mlir": EXTERNAL_CALL.replace("abort", "no_such_symbol"),
        "llvm.mlir": LLVM_CALL, "cast.mlir": FAR_CAST, "masked.mlir": MASKED_LOAD, "store.mlir": STORE_INTO_ARGUMENT,
    }  # fmt: skip
    expect = "'func.call' of @abort, which is declared without a body"
    return [
        CliCase("run-external-abort", "run", ("e.mlir", "--entry", "f", "--inputs", "x.npy"), expect,
                location="e.mlir:3:3", files=files, isolated=True),
        CliCase("gradcheck-external-abort", "gradcheck", ("e.mlir", "--entry", "f"), expect,
                location="e.mlir:3:3", files=files, isolated=True),
        CliCase("run-llvm-dialect-call", "run", ("llvm.mlir", "--entry", "f", "--inputs", "x.npy"),
                "'llvm.func' is not run by gradir: programs it compiles are written in the builtin, func",
                location="llvm.mlir:1:1", files=files, isolated=True),
        CliCase("run-reinterpret-cast-far", "run", ("cast.mlir", "--entry", "f", "--inputs", "x.npy"),
                "'memref.reinterpret_cast' is not run by gradir: it may address memory outside its source buffer",
                location="cast.mlir:4:3", files=files, isolated=True),
        CliCase("run-store-into-argument-buffer", "run", ("store.mlir", "--entry", "f", "--inputs", "x.npy"),
                "'memref.store' writes into the buffer of a tensor (bufferization.to_buffer)",
                location="store.mlir:5:3", files=files, isolated=True),
        CliCase("run-vector-maskedload", "run", ("masked.mlir", "--entry", "f", "--inputs", "x.npy"),
                "'vector.maskedload' is not run by gradir: the address of each of its lanes (an index vector, or a mask) is not checked",
                location="masked.mlir:6:3", files=files, isolated=True),
        CliCase("run-external-unknown", "run", ("other.mlir", "--entry", "f", "--inputs", "x.npy"),
                "'func.call' of @no_such_symbol, which is declared without a body", location="other.mlir:3:3",
                files=files, isolated=True),
    ]  # fmt: skip


RUN_CASES: list[CliCase] = [
    *_memory(),
    *_memory_at_run_time(),
    *_undefined_at_run_time(),
    *_external_calls(),
    *_recursion(),
    *_bad_inputs(),
    *_outputs(),
    *_program_paths(),
    *_gradcheck_options(),
    *_integer_inputs(),
]
