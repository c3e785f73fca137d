"""README's "Errors" table, run: every error line it shows is what a tool prints.

For each row of the table (`| situation | example |`), `CHECKS` holds a function that
runs real inputs producing that situation: a program saved as `f.mlir` in the test's
folder and given to a CLI by that relative name (so the line names `f.mlir`, as README
does), or a call of the Python API. The lines printed are collected; then every
backticked span of the row's example cell is held against them:

- a span that is a whole error line (it holds `error: `: `f.mlir:3:13: error: ...`,
  `error: ...`, `gradir.ArgumentError: error: ...`) must equal one printed line, line
  and column included; `...` in README's text stands for any text, nothing else does;
- any other span is a piece of a message (`'llvm.func' is not run by gradir: ...`) and
  must occur in a printed line, unless the row names it in `PROSE` (a file, a flag, an op
  named by the text around the examples).

A CLI run also holds the error contract (`tests/hostile/contract.py`): exit status 1,
nothing on stdout, exactly one line on stderr. An API error is printed as a traceback
ends (`gradir.ArgumentError: error: ...`, the class as `gradir` exports it) and as
`print(error)` prints it (`f.mlir:4:3: error: ...`). Figures of memory depend on the
machine (physical memory and swap, or `ulimit -v`, whichever is less): those runs are
made under an 8 GiB address-space limit, so that the figures README shows are the same
on any machine with more memory than that (as tests/hostile's memory cases assume).
Rows that show behaviour rather than a message are checked for what they claim, each in
its own function. A row of the table neither checked here nor in `NOT_RUN` fails
`test_every_row_is_checked`.
"""
from __future__ import annotations

import importlib.util
import re
import textwrap
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import gradir
from child_process import run_python
from gradir.errors import GradirError
from hostile.cases_api import registered
from hostile.cases_run import (
    EXTERNAL_CALL,
    FAR_CAST,
    HUGE_ALLOCA,
    HUGE_TEMPORARY,
    LLVM_CALL,
    MASKED_LOAD,
    RUNTIME_LOOP_CACHE,
    RUNTIME_TEMPORARY,
    SELF_CALL,
    STORE_INTO_ARGUMENT,
    TOGETHER_TOO_LARGE,
    UNDEFINED_AT_RUN_TIME,
)
from hostile.cases_text import _nested_regions
from hostile.contract import LOCATED, CliCase, check_cli_contract, run_in_process, run_isolated, write_files
from hostile.files import A, B, PRODUCT, npy, npy_header_claiming, npz

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()

GIB = 2**30
MEMORY_CAP = 8 * GIB
"""The address-space limit of the runs whose messages show a figure of memory."""


# -- the table -------------------------------------------------------------------------


def error_table(text: str = README) -> dict[str, str]:
    """{situation: example cell} of the table under README's `### Errors`."""
    section = text.split("\n### Errors\n", 1)[1].split("\n#", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")]
    assert lines[:2] == ["| situation | example |", "| --- | --- |"], lines[:2]
    rows = {}
    for line in lines[2:]:
        assert line.startswith("| ") and line.endswith(" |"), line
        situation, example = line[2:-2].split(" | ", 1)
        assert situation not in rows, f"two rows for {situation!r}"
        rows[situation] = example
    return rows


SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
ERROR_LINE = re.compile(r"(?:^|: )error: ")


def spans(cell: str) -> list[str]:
    """The backticked spans of a cell (a `` ``double`` `` span may hold a backtick)."""
    return [match[2] for match in SPAN.finditer(cell)]


def pattern(span: str) -> re.Pattern:
    """`span` as a regular expression in which only `...` is a wildcard."""
    return re.compile(".*".join(re.escape(piece) for piece in span.split("...")), re.S)


def unmatched(cell: str, lines: list[str], prose: frozenset[str] = frozenset()) -> list[str]:
    """The spans of `cell` that no printed line bears out (see the module's docstring)."""
    missing = []
    for span in spans(cell):
        if ERROR_LINE.search(span):
            if not any(pattern(span).fullmatch(line) for line in lines):
                missing.append(span)
        elif span not in prose and not any(pattern(span).search(line) for line in lines):
            missing.append(span)
    return missing


# -- running -----------------------------------------------------------------------------


class Runs:
    """What one row's inputs printed, run in `tmp` (the working directory)."""

    def __init__(self, tmp: Path, capfd):
        self.tmp, self.capfd = tmp, capfd
        self.lines: list[str] = []

    def cli(self, tool: str, *argv: str, files=None, isolated: bool = False, memory_cap: int | None = None,
            absent: tuple[str, ...] = ()) -> str:  # fmt: skip
        """Run `tool` (`opt`, `run`, `gradcheck`) on `argv`, in this process or (`isolated`,
        always with a `memory_cap`) as a subprocess; check the contract; the error line."""
        write_files(self.tmp, files or {})
        case = CliCase("readme", tool, argv, "", absent=absent, isolated=isolated or memory_cap is not None,
                       memory_cap=memory_cap)  # fmt: skip
        if case.isolated:
            status, out, err = run_isolated(case, list(argv), self.tmp)
        else:
            self.capfd.readouterr()
            status, out, err = run_in_process(case, list(argv), self.capfd)
        located = replace(case, location=r"[^/]+:\d+:\d+" if LOCATED.match(err) else None)
        line = check_cli_contract(located, self.tmp, status, out, err)
        self.lines.append(line)
        return line

    def works(self, tool: str, *argv: str, files=None) -> str:
        """Run `tool` in this process where it must succeed; what it printed on stdout."""
        write_files(self.tmp, files or {})
        self.capfd.readouterr()
        status, out, err = run_in_process(CliCase("readme", tool, argv, ""), list(argv), self.capfd)
        assert status == 0, err
        return out

    def api(self, call) -> GradirError:
        """Call `call()`, which must raise a GradirError; the error."""
        with pytest.raises(GradirError) as caught:
            call()
        error = caught.value
        self.printed(f"gradir.{type(error).__name__}: {error}")
        assert getattr(gradir, type(error).__name__) is type(error), f"gradir does not export {type(error)}"
        return error

    def printed(self, line: str) -> None:
        """An API error as a traceback ends, and as `print(error)` prints it."""
        assert "\n" not in line, line
        self.lines += [line, line.split(": ", 1)[1]]

    def child(self, body: str, memory_cap: int | None = None) -> list[str]:
        """Run `body` in a child Python (what could end this process runs there), where
        `error_of(call)` prints the GradirError that `call()` must raise; the lines."""
        prelude = textwrap.dedent(f"""
            import resource
            import numpy as np
            if {memory_cap!r}:
                resource.setrlimit(resource.RLIMIT_AS, ({memory_cap!r}, {memory_cap!r}))
            import gradir

            def error_of(call):
                try:
                    call()
                except gradir.GradirError as error:
                    assert getattr(gradir, type(error).__name__) is type(error), type(error)
                    print(f"gradir.{{type(error).__name__}}: {{error}}")
                    return error
                raise AssertionError(f"no error from {{call}}")
        """)
        lines = run_python(prelude + textwrap.dedent(body), self.tmp).splitlines()
        for line in lines:
            self.printed(line)
        return lines


def opt(runs: Runs, program: str, *flags: str) -> str:
    return runs.cli("opt", "f.mlir", *flags, files={"f.mlir": program})


# -- programs --------------------------------------------------------------------------

SYNTAX_ERROR = """\
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = autodiff.exp %a : tensor<2xf32>
  return %0 tensor<2xf32>
}
"""

UNKNOWN_OP = SYNTAX_ERROR.replace("exp", "frobnicate").replace("%0 tensor", "%0 : tensor")

MATMUL = """\
func.func @f(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  %0 = autodiff.matmul %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}
"""

NOT_A_LOSS = """\
func.func @loss(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = autodiff.exp %x : tensor<4xf32>
  return %e : tensor<4xf32>
}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = autodiff.grad @loss(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

WRT_OUT_OF_RANGE = """\
func.func @loss(%x: tensor<4xf32>) -> tensor<f32> {
  %0 = autodiff.sum %x : tensor<4xf32> -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = autodiff.grad @loss(%x) {wrt = array<i64: 1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

WRONG_KIND = """\
func.func @scalar_for_tensor(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = autodiff.mul %a, %a : (tensor<4xf32>, tensor<4xf32>) -> f32
  return %0 : tensor<4xf32>
}
"""

REDEFINED = """\
func.func @twice(%a: tensor<f32>) -> tensor<f32> {
  return %a : tensor<f32>
}

func.func @twice(%a: tensor<f32>) -> tensor<f32> {
  return %a : tensor<f32>
}
"""

NO_BATCHING_RULE = """\
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %t = "test.op"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %t : tensor<4xf32>
}
func.func @g(%a: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %r = autodiff.vmap @f(%a) {in_axes = array<i64: 0>, out_axes = array<i64: 0>, size = 3 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}
"""

NO_RULE = """\
func.func @f(%a: tensor<4xf32>) -> tensor<f32> {
  %t = "test.op"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %s = autodiff.sum %t : tensor<4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @g(%a: tensor<4xf32>) -> tensor<4xf32> {
  %d = autodiff.grad @f(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}
"""

THROUGH_MEMORY = """\
func.func @through_memory(%x: f64, %buffer: memref<4xf64>) -> f64 {
  %zero = arith.constant 0.0 : f64
  %y = affine.for %i = 0 to 4 iter_args(%acc = %zero) -> (f64) {
    %b = affine.load %buffer[%i] : memref<4xf64>
    %m = arith.mulf %b, %x : f64
    affine.store %m, %buffer[%i] : memref<4xf64>
    %s = arith.addf %acc, %m : f64
    affine.yield %s : f64
  }
  return %y : f64
}
func.func @dthrough_memory(%x: f64, %buffer: memref<4xf64>) -> f64 {
  %g = autodiff.grad @through_memory(%x, %buffer) {wrt = array<i64: 0>} : (f64, memref<4xf64>) -> f64
  return %g : f64
}
"""

WHILE_IN_BODY = """\
#rows = affine_map<(i) -> (i)>
func.func @halve(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#rows, #rows], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%u: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %h = scf.while (%v = %u) : (f32) -> f32 {
      %big = arith.cmpf ogt, %v, %one : f32
      scf.condition(%big) %v : f32
    } do {
    ^bb0(%w: f32):
      %half = arith.constant 0.5 : f32
      %n = arith.mulf %w, %half : f32
      scf.yield %n : f32
    }
    linalg.yield %h : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @g(%x: tensor<4xf32>, %ct: tensor<4xf32>) -> tensor<4xf32> {
  %r, %d = autodiff.vjp @halve(%x, %ct) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %d : tensor<4xf32>
}
"""
"""A loop inside a generic body (reverse mode differentiates scf.while only as an op of its own)."""

CAPTURED = """\
func.func @f(%x: tensor<4xf32>) -> tensor<f32> {
  %c0 = arith.constant 0 : index
  %s = tensor.extract %x[%c0] : tensor<4xf32>
  %y = "test.op"(%x) ({
  ^bb0(%v: f32):
    %w = arith.mulf %v, %s : f32
    "test.termop"(%w) : (f32) -> ()
  }) : (tensor<4xf32>) -> tensor<4xf32>
  %l = autodiff.sum %y : tensor<4xf32> -> tensor<f32>
  return %l : tensor<f32>
}
"""
"""An op of another dialect whose region reads %s, with a registered rule that knows
nothing of what its region captures."""

MEMREF_VIEW = """\
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %m = memref.alloc() : memref<16xi8>
  %c0 = arith.constant 0 : index
  %v = memref.view %m[%c0][] : memref<16xi8> to memref<2xf64>
  %one = arith.constant 1.0 : f64
  memref.store %one, %v[%c0] : memref<2xf64>
  return %x : tensor<3xf64>
}
"""

DIFFERENTIATED_RECURSION = SELF_CALL + """\
func.func @dloss(%x: tensor<4xf32>) -> tensor<4xf32> {
  %d = autodiff.grad @loss(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %d : tensor<4xf32>
}
"""

SLICE = """\
func.func @slice(%x: tensor<8xf64>, %at: index) -> tensor<3xf64> {
  %s = tensor.extract_slice %x[%at] [3] [1] : tensor<8xf64> to tensor<3xf64>
  return %s : tensor<3xf64>
}
"""

EXPAND = """\
func.func @rows(%x: tensor<?xf64>, %a: index, %b: index) -> tensor<?x?xf64> {
  %e = tensor.expand_shape %x [[0, 1]] output_shape [%a, %b] : tensor<?xf64> into tensor<?x?xf64>
  return %e : tensor<?x?xf64>
}
"""
"""An expansion into two dynamic sizes, whose product must be the size it expands."""

ALLOCA_IN_A_LOOP = """\
func.func @f(%x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4096 = arith.constant 4096 : index
  %z = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> f64 {
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
  }
  return %s : f64
}
"""
"""x summed 4096 times in each of `n` iterations, through 32 KiB of new stack in each."""

DYNAMIC_ALLOCA_IN_A_SCOPE = """\
func.func @f(%x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f64
  %r = "memref.alloca_scope"() ({
    %m = memref.alloca(%n) : memref<?xf64>
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
  return %r : f64
}
"""

HUGE_TYPE = "tensor<4294967296x4294967296x4294967296xf32>"

CONSTANT_OUT_OF_RANGE = """\
func.func @f() -> index {
  %c = arith.constant 18446744073709551617 : index
  return %c : index
}
"""

CUBE = """\
func.func @f(%x: tensor<3xf32>) -> tensor<f32> {
  %y = "mydialect.cube"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %s = autodiff.sum %y : tensor<3xf32> -> tensor<f32>
  return %s : tensor<f32>
}
"""

MYMODULE = """\
def cube_vjp(builder, op, output_grads):
    raise ValueError("a bug in the rule")


def returns_none(builder, op, output_grads):
    return None


def returns_two(builder, op, output_grads):
    return [output_grads[0], output_grads[0]]


def returns_an_int(builder, op, output_grads):
    return [3]
"""
"""A user's module of rules for `mydialect.cube`, each wrong in its own way."""

BUFFERIZE_CONFLICT = """\
func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %z = arith.addf %y, %y : tensor<4xf32>
  %r = bufferization.materialize_in_destination %x in %z : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r, %z : tensor<4xf32>, tensor<4xf32>
}
"""
"""%z's buffer must receive %x in place and %z is read afterwards: one-shot bufferization cannot
order it. (Into an argument, `%x in %y`, it compiles: the argument is read-only, and
`written_arguments.materialize_into_arguments_as_values` returns %x as a value.)"""

BRANCH_SIZED_BUFFER = """\
func.func @f(%x: tensor<4xf32>, %n: index, %p: i1) -> f32 {
  %c0 = arith.constant 0 : index
  %r = scf.if %p -> tensor<?xf32> {
    %v = tensor.extract %x[%c0] : tensor<4xf32>
    %k = arith.fptosi %v : f32 to i64
    %m = arith.index_cast %k : i64 to index
    %e = tensor.empty(%m) : tensor<?xf32>
    %t = linalg.fill ins(%v : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %t : tensor<?xf32>
  } else {
    %e2 = tensor.empty(%n) : tensor<?xf32>
    scf.yield %e2 : tensor<?xf32>
  }
  %y = tensor.extract %r[%c0] : tensor<?xf32>
  %z = math.exp %y : f32
  return %z : f32
}
"""
"""A branch yields a tensor whose run-time size it reads from data: the GPU pipeline
allocates a buffer a branch yields before the branch (a size computed by integer arithmetic
on earlier values moves up with it; one read from data cannot)."""

PROGRAM = {"f.mlir": PRODUCT, "a.npy": A, "b.npy": B}
"""README's worked example (`@f`, its gradient `@df`) and two good inputs."""


# -- the rows --------------------------------------------------------------------------


def _gpu_targets(runs: Runs) -> None:
    gpu = ("f.mlir", "--pipeline", "gpu", "--emit", "ptx", "-o", "out.ptx")
    runs.cli("opt", *gpu, "--gpu-chip", "sm_1000", files=PROGRAM, absent=("out.ptx",))
    # LLVM ended the process on some of these: run apart (as tests/hostile does).
    runs.cli("opt", *gpu, "--gpu-features", "+bogus", files=PROGRAM, isolated=True, absent=("out.ptx",))
    runs.cli("opt", *gpu, "--gpu-chip", "sm_100", "--gpu-features", "+ptx80", files=PROGRAM, isolated=True,
             absent=("out.ptx",))  # fmt: skip


def _captured(runs: Runs) -> None:
    (runs.tmp / "f.mlir").write_text(CAPTURED)
    with registered(gradir.register_vjp, lambda builder, op, grads: [grads[0]]):
        runs.api(lambda: gradir.differentiate("f.mlir", "f"))


def _call_arguments(runs: Runs) -> None:
    (runs.tmp / "f.mlir").write_text(PRODUCT)
    exe = gradir.compile("f.mlir")
    runs.api(lambda: exe.df(np.ones(3, np.float32), np.ones(4, np.float32)))


def _nesting(runs: Runs) -> None:
    # Apart: how deep the parser gets before Python's recursion limit depends on the stack
    # below it, which pytest deepens.
    runs.cli("opt", "f.mlir", files={"f.mlir": _nested_regions(3000)}, isolated=True)
    runs.cli("opt", "f.mlir", files={"f.mlir": _nested_regions(101)}, isolated=True)
    deep = {
        "10k nested modules": "builtin.module {\n" * 10_000 + "}\n" * 10_000,
        "100k-deep attributes": "func.func @f() attributes {a = " + "[" * 100_000 + "]" * 100_000
        + "} {\n  return\n}\n",
        "5k-deep types": "func.func @f(%x: " + "tensor<4x" * 5000 + "f32" + ">" * 5000 + ") {\n  return\n}\n",
    }
    for what, text in deep.items():
        line = runs.cli("opt", "f.mlir", files={"f.mlir": text}, isolated=True)
        assert re.fullmatch(r"f\.mlir:\d+:\d+: error: nesting too deep to parse \(.*\)", line), (what, line)


def _calls_out(runs: Runs) -> None:
    x = {"x.npy": npy(np.ones(3))}
    for program in (EXTERNAL_CALL, LLVM_CALL, FAR_CAST, MEMREF_VIEW, MASKED_LOAD):
        runs.cli("run", "f.mlir", "--entry", "f", "--inputs", "x.npy", files={"f.mlir": program, **x}, isolated=True)
    runs.cli("gradcheck", "f.mlir", "--entry", "f", files={"f.mlir": EXTERNAL_CALL}, isolated=True)
    (runs.tmp / "f.mlir").write_text(EXTERNAL_CALL)
    runs.api(lambda: gradir.compile("f.mlir"))
    for program in (EXTERNAL_CALL, LLVM_CALL, FAR_CAST, MEMREF_VIEW):  # "autodiff-opt still transforms such programs"
        assert "@f" in runs.works("opt", "f.mlir", "-p", "cse", files={"f.mlir": program})


CONSTANT_GLOBAL = """\
"memref.global"() <{sym_name = "table", type = memref<4xf64>, initial_value = dense<1.0> : tensor<4xf64>, constant, sym_visibility = "private"}> : () -> ()
func.func @f(%x: f64) -> f64 {
  %m = memref.get_global @table : memref<4xf64>
  %c0 = arith.constant 0 : index
  memref.store %x, %m[%c0] : memref<4xf64>
  %v = memref.load %m[%c0] : memref<4xf64>
  return %v : f64
}
"""


def _read_only(runs: Runs) -> None:
    x = {"x.npy": npy(np.ones(3)), "s.npy": npy(np.array(2.0))}
    runs.cli("run", "f.mlir", "--entry", "f", "--inputs", "x.npy", files={"f.mlir": STORE_INTO_ARGUMENT, **x})
    runs.cli("run", "f.mlir", "--entry", "f", "--inputs", "s.npy", files={"f.mlir": CONSTANT_GLOBAL, **x})
    runs.api(lambda: gradir.compile("f.mlir"))


def _recursion(runs: Runs) -> None:
    files = {"f.mlir": SELF_CALL, "x.npy": npy(np.ones(4, np.float32))}
    runs.cli("run", "f.mlir", "--entry", "f", "--inputs", "x.npy", files=files, isolated=True)
    runs.cli("gradcheck", "f.mlir", "--entry", "loss", files=files, isolated=True)
    runs.api(lambda: gradir.compile("f.mlir"))
    # "differentiating one, `autodiff-opt -p autodiff-reverse`, still works"
    out = runs.works("opt", "f.mlir", "-p", "autodiff-reverse", files={"f.mlir": DIFFERENTIATED_RECURSION})
    assert "func.func @loss_vjp_0" in out and "autodiff.grad @" not in out


def _static_memory(runs: Runs) -> None:
    runs.cli("run", "f.mlir", "--entry", "f", "--inputs", "x4.npy", memory_cap=MEMORY_CAP,
             files={"f.mlir": HUGE_TEMPORARY, "x4.npy": npy(np.ones(4, np.float32))})  # fmt: skip
    runs.cli("run", "f.mlir", "--entry", "f", "--inputs", "x.npy", memory_cap=MEMORY_CAP,
             files={"f.mlir": TOGETHER_TOO_LARGE, "x.npy": npy(np.ones(36000, np.float32))})  # fmt: skip


def _run_time_memory(runs: Runs) -> None:
    write_files(runs.tmp, {"f.mlir": RUNTIME_LOOP_CACHE, "temporary.mlir": RUNTIME_TEMPORARY})
    runs.child(
        """
        exe = gradir.compile("f.mlir")
        x = np.full(1000, 0.5, np.float32)
        error = error_of(lambda: exe.g(x, 10**9))  # a cache of 10**9 states of 4,000 bytes
        assert isinstance(error, MemoryError)
        # "so the process, the executable and other threads go on"
        gradient = exe.g(x, 3)
        assert np.isfinite(gradient).all() and gradient.shape == (1000,)
        # Under the limit, but more than the address space the process has left under it.
        temporary = gradir.compile("temporary.mlir")
        error_of(lambda: temporary.f(np.ones(3, np.float32), 2_100_000_000))
        """,
        memory_cap=MEMORY_CAP,
    )


def _undefined_at_run_time(runs: Runs) -> None:
    write_files(runs.tmp, {"f.mlir": UNDEFINED_AT_RUN_TIME + SLICE + EXPAND})
    runs.child(
        """
        exe = gradir.compile("f.mlir")
        error_of(lambda: exe.pick(np.arange(4.0), 4))
        error_of(lambda: exe.divide(np.array([5, 7, 9]), 0))
        error_of(lambda: exe.divide(np.array([-2**63, 1, 2]), -1))
        error_of(lambda: exe.count(10, 0))
        error_of(lambda: exe.slice(np.arange(8.0), 6))
        error_of(lambda: exe.window(np.arange(4.0), 3))
        error_of(lambda: exe.lanes(np.array([5, 7, 9]), np.array([2, 0, 3])))
        error_of(lambda: exe.rows(np.arange(6.0), 2, 4))
        assert exe.pick(np.arange(4.0), 3) == 3.0  # the next call runs
        """
    )


ROOT_OF = """\
func.func @f(%x: tensor<3xf64>) -> tensor<f64> {
  %r = autodiff.sqrt %x : tensor<3xf64>
  %s = autodiff.sum %r : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
func.func @df(%x: tensor<3xf64>) -> tensor<3xf64> {
  %g = autodiff.grad @f(%x) : (tensor<3xf64>) -> tensor<3xf64>
  return %g : tensor<3xf64>
}
func.func @logs(%x: tensor<3xf64>) -> tensor<3xf64> {
  %l = autodiff.log %x : tensor<3xf64>
  return %l : tensor<3xf64>
}
"""
"""sqrt(0) is finite, its derivative is not."""


def _nan_or_inf(runs: Runs) -> None:
    files = {"f.mlir": ROOT_OF, "x.npy": npy(np.array([0.0, 1.0, 4.0])), "nan.npy": npy(np.array([np.nan, 1.0, 2.0]))}
    runs.cli("run", "f.mlir", "--entry", "df", "--inputs", "x.npy", "--check-numerics", files=files)
    runs.cli("run", "f.mlir", "--entry", "f", "--inputs", "nan.npy", "--check-numerics", files=files)
    assert "result0: float64 [3]\n[ inf" in runs.works("run", "f.mlir", "--entry", "df", "--inputs", "x.npy")
    exe = gradir.compile("f.mlir", check_numerics=True)
    error = runs.api(lambda: exe.logs(np.array([1.0, 0.0, 2.0])))
    assert isinstance(error, gradir.RunTimeCheckError) and error.location == "f.mlir:11:3"


UNUSED = """\
func.func @g(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<f64> {
  %s = autodiff.sum %x : tensor<3xf64> -> tensor<f64>
  return %s : tensor<f64>
}
func.func @f(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<f64> {
  %s = func.call @g(%x, %y) : (tensor<3xf64>, tensor<3xf64>) -> tensor<f64>
  return %s : tensor<f64>
}
"""


def _unused(runs: Runs) -> None:
    (runs.tmp / "f.mlir").write_text(UNUSED)
    runs.api(lambda: gradir.differentiate("f.mlir", "f", allow_unused=False))
    assert gradir.differentiate("f.mlir", "f").df_output_vjps == (0, 1)


def _allocas(runs: Runs) -> None:
    """No error: programs whose allocas ended the process with a segmentation fault run,
    and give the right numbers."""
    runs.child(
        f"""
        total = gradir.compile({HUGE_ALLOCA!r}).f(0.5)
        assert total == 0.5 * 100_000_000, total
        total = gradir.compile({ALLOCA_IN_A_LOOP!r}).f(0.25, 100_000)
        assert total == 0.25 * 4096 * 100_000, total
        total = gradir.compile({DYNAMIC_ALLOCA_IN_A_SCOPE!r}).f(1.5, 1000)
        assert total == 1.5 * 1000, total
        """
    )


def _npy_inputs(runs: Runs) -> None:
    for name, content in [
        ("a.npy", npy_header_claiming((10**12,))),
        ("empty.npy", b""),
        ("objects.npy", npy(np.array([1, "a"], dtype=object))),
        ("arrays.npy", npz(a=np.ones(4, np.float32))),
        ("missing.npy", None),
    ]:
        files = {**PROGRAM, name: content} if content is not None else PROGRAM
        runs.cli("run", "f.mlir", "--entry", "df", "--inputs", name, "b.npy", files=files)
        runs.cli("gradcheck", "f.mlir", "--entry", "f", "--inputs", name, "b.npy", files=files)
    # "all before anything is compiled": the inputs are read first, so a program that does
    # not even parse still gives the input's error.
    broken = {"f.mlir": "func.func @f( {\n"}
    line = runs.cli("run", "f.mlir", "--entry", "df", "--inputs", "empty.npy", "b.npy", files=broken)
    assert line == "error: cannot read input empty.npy: the file is empty, not a .npy array"


def _outputs(runs: Runs) -> None:
    run = ("f.mlir", "--entry", "df", "--inputs", "a.npy", "b.npy", "--output")
    runs.cli("run", *run, "res", files=PROGRAM, absent=("res", "res.npz"))
    runs.cli("run", *run, "d.npz", files={**PROGRAM, "d.npz/keep": ""}, absent=("d.npz.npz",))
    runs.cli("run", *run, "nowhere/r.npz", files=PROGRAM, absent=("nowhere",))


def _tolerances(runs: Runs) -> None:
    for flags in (["--eps", "0"], ["--atol=-1"], ["--rtol", "inf"], ["--seed=-1"]):
        runs.cli("gradcheck", "f.mlir", "--entry", "f", *flags, files=PROGRAM)
    assert runs.lines[1:] == ["error: --atol must be >= 0, got -1.0", "error: --rtol must be finite, got inf",
                              "error: --seed must be >= 0, got -1"]  # fmt: skip


def _api_values(runs: Runs) -> None:
    runs.api(lambda: gradir.gradcheck(PRODUCT, "f", modes=("bogus",)))
    runs.api(lambda: gradir.gradcheck(PRODUCT, "f", wrt=[0.5]))


LOSS_PY = """\
import jax.numpy as jnp

def loss(w, x):
    return jnp.sum(jnp.dot(w, x))
"""


def _untraceable(runs: Runs) -> None:
    """A JAX function whose shapes do not fit, defined in the user's `loss.py` (run by that
    relative name, as `python loss.py` runs a script)."""
    module: dict = {}
    exec(compile(LOSS_PY, "loss.py", "exec"), module)
    error = runs.api(lambda: gradir.from_jax(module["loss"], np.ones((2, 3)), np.ones(4)))
    assert isinstance(error.__cause__, TypeError), repr(error.__cause__)


def _planted_bug(runs: Runs) -> None:
    """A bug planted in `gradir.compile`'s first stage: the API raises an InternalError with
    the ValueError chained; the CLI that calls it says what it says of its own bugs."""
    from gradir import compilation

    def planted(*args, **kwargs):
        raise ValueError("a planted bug")

    original, compilation.runnable_linalg = compilation.runnable_linalg, planted
    try:
        error = runs.api(lambda: gradir.compile(PRODUCT))
        assert isinstance(error.__cause__, ValueError) and error.__cause__.__traceback__ is not None
        # runs.cli would refuse the line (an internal error breaks the contract): the rest of it, here
        write_files(runs.tmp, {"f.mlir": PRODUCT})
        argv = ["f.mlir", "--entry", "f"]
        runs.capfd.readouterr()
        status, out, err = run_in_process(CliCase("readme", "run", tuple(argv), ""), argv, runs.capfd)
        assert (status, out, len(err.splitlines())) == (1, "", 1), (status, out, err)
        runs.lines.append(err.strip())
    finally:
        compilation.runnable_linalg = original


def _rules(runs: Runs) -> None:
    """A rule of the user's module `mymodule` for an op of the user's dialect, parsed with
    gradir's context and that dialect."""
    from xdsl.dialects.builtin import TensorType
    from xdsl.ir import Dialect
    from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def

    from gradir.source import load_module, make_context

    @irdl_op_definition
    class CubeOp(IRDLOperation):
        name = "mydialect.cube"
        x = operand_def(TensorType)
        y = result_def(TensorType)

    ctx = make_context()
    ctx.load_dialect(Dialect("mydialect", [CubeOp]))
    write_files(runs.tmp, {"f.mlir": CUBE, "mymodule.py": MYMODULE})
    spec = importlib.util.spec_from_file_location("mymodule", runs.tmp / "mymodule.py")
    mymodule = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mymodule)
    for rule, says in [
        (mymodule.cube_vjp, "raised ValueError: a bug in the rule"),
        (mymodule.returns_none, "returned None"),
        (mymodule.returns_two, "returned 2 "),
        (mymodule.returns_an_int, "returned an int"),
    ]:
        module = load_module("f.mlir", ctx)  # (a failed `differentiate` leaves its module half-changed)
        with registered(gradir.register_vjp, rule, "mydialect.cube"):
            error = runs.api(lambda: gradir.differentiate(module, "f"))
        assert isinstance(error, gradir.RuleError) and str(error).startswith("f.mlir:2:3: error: "), error
        assert says in str(error), error
        if rule is mymodule.cube_vjp:  # "the original exception chained"
            assert isinstance(error.__cause__, ValueError) and str(error.__cause__) == "a bug in the rule"


CHECKS = {
    "syntax error": lambda runs: opt(runs, SYNTAX_ERROR),
    "unknown op": lambda runs: opt(runs, UNKNOWN_OP),
    "verifier failure": lambda runs: opt(runs, MATMUL),
    "entry op callee": lambda runs: opt(runs, NOT_A_LOSS),
    "`wrt`": lambda runs: opt(runs, WRT_OUT_OF_RANGE),
    "unknown pass": lambda runs: opt(runs, PRODUCT, "-p", "no-such-pass"),
    "malformed `-p` list": lambda runs: opt(runs, PRODUCT, "-p", "autodiff-reverse{checkpoint-every=2"),
    "bad pass option": lambda runs: (
        opt(runs, PRODUCT, "-p", "autodiff-reverse{checkpoint-every=x}"),
        opt(runs, PRODUCT, "-p", "autodiff-reverse{bogus=1}"),
    ),
    "unknown pipeline": lambda runs: opt(runs, PRODUCT, "--pipeline", "x"),
    "unknown flag": lambda runs: opt(runs, PRODUCT, "--x"),
    "option that does not apply": lambda runs: opt(runs, PRODUCT, "--gpu-chip", "sm_90"),
    "GPU target LLVM does not know": _gpu_targets,
    "wrong kind of type or attribute": lambda runs: opt(runs, WRONG_KIND),
    "redefined symbol": lambda runs: opt(runs, REDEFINED),
    "op without a rule on the active path": lambda runs: opt(runs, NO_RULE, "-p", "autodiff-reverse"),
    "op with a batched operand and no batching rule": lambda runs: opt(runs, NO_BATCHING_RULE, "-p", "autodiff-vmap"),
    "an active value stored to memory, or bitcast": lambda runs: opt(runs, THROUGH_MEMORY, "-p", "autodiff-reverse"),
    "unsupported generic": lambda runs: opt(runs, WHILE_IN_BODY, "-p", "autodiff-reverse"),
    "active value captured by a region whose rule ignores captures": _captured,
    "bad `.call` arguments": _call_arguments,
    "nesting too deep": _nesting,
    "call into the process, or raw memory (`gradir.compile`, `autodiff-run`, `autodiff-gradcheck`)": _calls_out,
    "write into read-only memory (`gradir.compile`, `autodiff-run`, `autodiff-gradcheck`)": _read_only,
    "recursive program (`gradir.compile`, `autodiff-run`, `autodiff-gradcheck`)": _recursion,
    "buffer larger than the process can hold (CPU)": _static_memory,
    "buffer sized at run time that cannot be had (CPU)": _run_time_memory,
    "index, divisor or loop step from the inputs that makes an op undefined (CPU)": _undefined_at_run_time,
    "a NaN or Inf at run time, with `check_numerics` (CPU)": _nan_or_inf,
    "`wrt` argument that does not influence the result, with `allow_unused=False`": _unused,
    "`memref.alloca` that could overflow the stack (CPU)": _allocas,
    "type too large for MLIR": lambda runs: runs.cli(
        "run", "f.mlir", "--entry", "f", isolated=True,  # MLIR's own check ended the process
        files={"f.mlir": f"func.func @f(%x: {HUGE_TYPE}) -> {HUGE_TYPE} {{\n  return %x : {HUGE_TYPE}\n}}\n"},
    ),
    "constant out of range": lambda runs: opt(runs, CONSTANT_OUT_OF_RANGE),
    "bad `.npy` input (`autodiff-run`, `autodiff-gradcheck`)": _npy_inputs,
    "`--output` NumPy would rename": _outputs,
    "bad tolerance": _tolerances,
    "bad API value": _api_values,
    "a Python rule that misbehaves": _rules,
    "a function JAX cannot trace (`gradir.from_jax`)": _untraceable,
    "a bug in gradir": _planted_bug,
    "pipeline stage failure": lambda runs: (
        opt(runs, BUFFERIZE_CONFLICT, "--pipeline", "cpu"),
        opt(runs, BRANCH_SIZED_BUFFER, "--pipeline", "gpu"),
    ),
}
"""{situation: a function that runs inputs producing it, into a `Runs`}."""

PROSE = {
    "call into the process, or raw memory (`gradir.compile`, `autodiff-run`, `autodiff-gradcheck`)": {
        "llvm.call", "autodiff-opt", "vector.maskedstore",
    },
    "recursive program (`gradir.compile`, `autodiff-run`, `autodiff-gradcheck`)": {"autodiff-opt -p autodiff-reverse"},
    "write into read-only memory (`gradir.compile`, `autodiff-run`, `autodiff-gradcheck`)": {
        "memref.store", "memref.copy", "outs", "vector.store", "scf.for",
    },
    "buffer larger than the process can hold (CPU)": {"memref.alloc", "ulimit -v"},
    "buffer sized at run time that cannot be had (CPU)": {
        "malloc", "aligned_alloc", "longjmp", "cpu_backend/checked_allocations.py", "MemoryError",
    },
    "index, divisor or loop step from the inputs that makes an op undefined (CPU)": {
        "generate-runtime-verification", "cpu_backend/run_time_checks.py", "vector.store", "vector.transfer_read", "insert",
        "transfer_write", "in_bounds", "expand_shape",
    },
    "`memref.alloca` that could overflow the stack (CPU)": {"memref.alloca_scope", "cpu_backend/heap_allocas.py"},
    "a NaN or Inf at run time, with `check_numerics` (CPU)": {
        "autodiff-run --check-numerics", "gradir.RunTimeCheckError", "gradir.compile(..., check_numerics=True)",
    },
    "`wrt` argument that does not influence the result, with `allow_unused=False`": {
        "gradir.differentiate(..., allow_unused=False)",
    },
    "`--output` NumPy would rename": {"savez", "res.npz"},
    "a bug in gradir": {
        "gradir.compile", ".call", "export", "load", "gradcheck", "differentiate", "vmap", "jacobian", "hessian",
        "from_jax", "register_*", "GradirError", "InternalError",
    },
}  # fmt: skip
"""{situation: backticked spans of its example cell that are no message: names in the
prose around the examples, each checked by the row's function where it makes a claim}."""

NOT_RUN: dict[str, str] = {}
"""{situation: why its example cannot be run here}."""


# -- the tests -------------------------------------------------------------------------

ROWS = error_table()


def test_every_row_is_checked():
    """A new row of the table needs a check here (or a reason in NOT_RUN); a check or
    reason whose row is gone is dropped."""
    assert not set(CHECKS) & set(NOT_RUN)
    assert sorted(ROWS) == sorted([*CHECKS, *NOT_RUN])
    for situation, names in PROSE.items():
        assert names <= set(spans(ROWS[situation])), f"{situation}: {names - set(spans(ROWS[situation]))}"


@pytest.mark.parametrize("situation", [s for s in ROWS if s in CHECKS])
def test_readme_error_example_is_what_gradir_prints(situation, tmp_path, capfd, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runs = Runs(tmp_path, capfd)
    CHECKS[situation](runs)
    missing = unmatched(ROWS[situation], runs.lines, frozenset(PROSE.get(situation, ())))
    printed = "\n".join(f"  {line}" for line in runs.lines)
    assert not missing, "README shows:\n" + "\n".join(f"  {span}" for span in missing) + f"\nprinted:\n{printed}"


def test_the_check_can_fail():
    """A column off by one, a word changed, a wildcard where there is none: each fails."""
    line = "f.mlir:3:13: error: Expected ':'"
    assert unmatched("`f.mlir:3:13: error: Expected ':'`", [line]) == []
    assert unmatched("`f.mlir:3:14: error: Expected ':'`", [line])
    assert unmatched("`f.mlir:3:13: error: Expected ';'`", [line])
    assert unmatched("`error: Expected ':'`", [line])  # a whole line, not its end
    assert unmatched("`f.mlir:3:1.: error: Expected ':'`", [line])  # `.` is no wildcard
    assert unmatched("`f.mlir:3:13: error: ...`", [line]) == []
    assert unmatched("`Expected ':'` and `Expected ';'`", [line]) == ["Expected ';'"]
    assert unmatched("`Expected ';'`", [line], frozenset({"Expected ';'"})) == []
    assert spans("``a `}` b``, `c`") == ["a `}` b", "c"]
