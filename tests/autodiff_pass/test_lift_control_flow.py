"""`lift-control-flow`: programs that branch between blocks (`cf.br`, `cf.cond_br`,
`cf.switch`) and `scf.index_switch`, differentiated in both modes and checked against
central differences in float64 through the CPU pipeline (`gradir.gradcheck`), batched,
and run with the GPU kernels emulated; plus what the lifting keeps (locations, argument
names) and what it cleans up first (unreachable blocks)."""
import math

import numpy as np
import pytest
from xdsl.dialects import cf, scf

import gradir
from gradir.errors import DifferentiationError

from child_process import run_python
from pass_support import function, run_passes

# A loop written with branches, two exits (the counter runs out; the state passes 3)
# and a result computed on the early exit only.
EARLY_EXIT_LOOP = """
func.func @loop(%x0: f64, %w: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %three = arith.constant 3.0 : f64
  cf.br ^head(%c0, %x0 : index, f64)
^head(%i: index, %x: f64):
  %more = arith.cmpi slt, %i, %n : index
  cf.cond_br %more, ^body, ^exit(%x : f64)
^body:
  %s = math.sin %x : f64
  %t = arith.mulf %s, %w : f64
  %x1 = arith.addf %t, %x : f64
  %big = arith.cmpf ogt, %x1, %three : f64
  %i1 = arith.addi %i, %c1 : index
  cf.cond_br %big, ^early, ^head(%i1, %x1 : index, f64)
^early:
  %d = arith.mulf %x1, %w : f64
  return %d : f64
^exit(%r: f64):
  return %r : f64
}
func.func @grad_loop(%x: f64, %w: f64, %n: index) -> (f64, f64) {
  %g:2 = autodiff.grad @loop(%x, %w, %n) {wrt = array<i64: 0, 1>} : (f64, f64, index) -> (f64, f64)
  return %g#0, %g#1 : f64, f64
}
"""


def early_exit_loop(x: float, w: float, n: int) -> float:
    for _ in range(n):
        x1 = math.sin(x) * w + x
        if x1 > 3:
            return x1 * w
        x = x1
    return x


# A three-way switch whose case 5 branches again, to a block that returns on its own.
SWITCH = """
func.func @switch(%x: f64, %k: i32) -> f64 {
  cf.switch %k : i32, [ default: ^join(%x : f64), 0: ^sine, 5: ^cosine ]
^sine:
  %s = math.sin %x : f64
  cf.br ^join(%s : f64)
^cosine:
  %c = math.cos %x : f64
  %below = arith.cmpf olt, %c, %x : f64
  cf.cond_br %below, ^join(%c : f64), ^square
^square:
  %y = arith.mulf %x, %x : f64
  return %y : f64
^join(%r: f64):
  %t = arith.mulf %r, %x : f64
  return %t : f64
}
"""

# The same switch as `scf.index_switch` on tensors, its selector read from a float so
# that vmap can give each example its own case.
INDEX_SWITCH = """
func.func @pick(%x: tensor<4xf64>, %k: tensor<f64>) -> tensor<4xf64> {
  %kf = tensor.extract %k[] : tensor<f64>
  %ki = arith.fptosi %kf : f64 to i64
  %i = arith.index_cast %ki : i64 to index
  %r = scf.index_switch %i -> tensor<4xf64>
  case 0 {
    %a = math.sin %x : tensor<4xf64>
    scf.yield %a : tensor<4xf64>
  }
  case 2 {
    %b = arith.mulf %x, %x : tensor<4xf64>
    scf.yield %b : tensor<4xf64>
  }
  default {
    %c = math.exp %x : tensor<4xf64>
    scf.yield %c : tensor<4xf64>
  }
  return %r : tensor<4xf64>
}
func.func @pick_batched(%x: tensor<3x4xf64>, %k: tensor<3xf64>) -> tensor<3x4xf64> {
  %r = autodiff.vmap @pick(%x, %k) {in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>, size = 3 : i64}
      : (tensor<3x4xf64>, tensor<3xf64>) -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}
func.func @pick_vjp(%x: tensor<4xf64>, %k: tensor<f64>, %ct: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %r:2 = autodiff.vjp @pick(%x, %k, %ct) {wrt = array<i64: 0>} : (tensor<4xf64>, tensor<f64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
  return %r#0, %r#1 : tensor<4xf64>, tensor<4xf64>
}
"""


def passed(result) -> None:
    assert result.ok, result.report()


@pytest.mark.parametrize("x, w, n", [(0.5, 0.7, 4), (2.0, 0.9, 5), (1.0, 1.5, 6), (0.5, 0.7, 0)])
def test_loop_with_two_exits(x, w, n):
    """Both exits taken (n = 6 leaves early, 4 and 5 run out), and no iteration at all."""
    program = gradir.compile(EARLY_EXIT_LOOP, target="cpu")
    assert float(program.loop(x, w, n)) == pytest.approx(early_exit_loop(x, w, n), rel=1e-14)
    step = 1e-6
    dx = (early_exit_loop(x + step, w, n) - early_exit_loop(x - step, w, n)) / (2 * step)
    dw = (early_exit_loop(x, w + step, n) - early_exit_loop(x, w - step, n)) / (2 * step)
    gx, gw = program.grad_loop(x, w, n)
    assert float(gx) == pytest.approx(dx, rel=1e-6, abs=1e-8)
    assert float(gw) == pytest.approx(dw, rel=1e-6, abs=1e-8)
    arguments = [np.float64(x), np.float64(w), np.int64(n)]
    passed(gradir.gradcheck(EARLY_EXIT_LOOP, "loop", arguments, wrt=[0, 1], allow_vacuous=n == 0))


def test_loop_with_two_exits_on_the_gpu():
    cpu = gradir.compile(EARLY_EXIT_LOOP, target="cpu")
    gpu = gradir.compile(EARLY_EXIT_LOOP, target="cuda")
    for x, w, n in [(0.5, 0.7, 4), (1.0, 1.5, 6)]:
        assert gpu.emulate("loop", x, w, n)[0] == pytest.approx(early_exit_loop(x, w, n), rel=1e-14)
        np.testing.assert_allclose(gpu.emulate("grad_loop", x, w, n), cpu.grad_loop(x, w, n), rtol=1e-13)


@pytest.mark.parametrize("k", [0, 5, 3, -1])
@pytest.mark.parametrize("x", [0.3, 1.2])
def test_switch(k, x):
    """Each case: 0 (sin x * x), 5 (cos x * x where cos x < x, else x * x), the default."""
    passed(gradir.gradcheck(SWITCH, "switch", [np.float64(x), np.int32(k)], wrt=[0]))
    want = {0: math.sin(x) * x, 5: math.cos(x) * x if math.cos(x) < x else x * x}.get(k, x * x)
    assert float(gradir.compile(SWITCH, target="cpu").switch(x, np.int32(k))) == pytest.approx(want, rel=1e-14)


def test_index_switch_in_both_modes_and_batched():
    rng = np.random.default_rng(5)
    x = rng.uniform(0.2, 1.0, (3, 4))
    for k in (0.0, 2.0, 7.0):
        passed(gradir.gradcheck(INDEX_SWITCH, "pick", [x[0], np.array(k)], wrt=[0]))
    want = np.stack([np.sin(x[0]), x[1] ** 2, np.exp(x[2])])
    selectors = np.array([0.0, 2.0, 7.0])  # a case each
    cpu = gradir.compile(INDEX_SWITCH, target="cpu")
    gpu = gradir.compile(INDEX_SWITCH, target="cuda")
    np.testing.assert_allclose(cpu.pick_batched(x, selectors), want, rtol=1e-15)
    np.testing.assert_allclose(gpu.emulate("pick_batched", x, selectors)[0], want, rtol=1e-15)
    cotangent = rng.uniform(-1, 1, 4)
    for k, derivative in ((0.0, np.cos(x[0])), (2.0, 2 * x[0]), (5.0, np.exp(x[0]))):
        np.testing.assert_allclose(cpu.pick_vjp(x[0], np.array(k), cotangent)[1], cotangent * derivative, rtol=1e-14)
        np.testing.assert_allclose(gpu.emulate("pick_vjp", x[0], np.array(k), cotangent)[1], cotangent * derivative, rtol=1e-14)


def test_index_switch_becomes_a_chain_of_ifs(ctx):
    module = run_passes(ctx, gradir.source.parse_module(ctx, INDEX_SWITCH), "lift-control-flow")
    pick = function(module, "pick")
    assert not [op for op in pick.walk() if isinstance(op, scf.IndexSwitchOp)]
    branches = [op for op in pick.walk() if isinstance(op, scf.IfOp)]
    assert len(branches) == 2  # case 0, else case 2, else the default
    compared = sorted(op.rhs.owner.value.value.data for op in pick.walk() if op.name == "arith.cmpi")
    assert compared == [0, 2]


def test_branches_are_lifted_and_keep_names_and_locations(ctx):
    module = run_passes(ctx, gradir.source.parse_module(ctx, SWITCH, "f.mlir"), "lift-control-flow")
    switch = function(module, "switch")
    assert len(switch.body.blocks) == 1
    assert not [op for op in switch.walk() if op.name.startswith("cf.")]
    assert [argument.name_hint for argument in switch.args] == ["x", "k"]
    sine = next(op for op in switch.walk() if op.name == "math.sin")
    assert gradir.errors.location_of(sine) == "f.mlir:5:3"


def test_an_error_inside_a_branch_points_at_the_users_line():
    source = """func.func @f(%x: f64, %c: i1) -> f64 {
  cf.cond_br %c, ^a, ^b
^a:
  %s = arith.bitcast %x : f64 to i64
  %one = arith.constant 1 : i64
  %s2 = arith.addi %s, %one : i64
  %t = arith.bitcast %s2 : i64 to f64
  cf.br ^m(%t : f64)
^b:
  cf.br ^m(%x : f64)
^m(%r: f64):
  return %r : f64
}
func.func @g(%x: f64, %c: i1) -> f64 {
  %r = autodiff.grad @f(%x, %c) {wrt = array<i64: 0>} : (f64, i1) -> f64
  return %r : f64
}
"""
    with pytest.raises(DifferentiationError) as caught:
        gradir.compile(source, target="cpu")
    assert caught.value.location == "<string>:4:3"
    assert "%x" in str(caught.value)


def test_unreachable_blocks_irreducible_loops_and_execute_region():
    unreachable = """
func.func @f(%x: tensor<4xf64>, %c: i1) -> tensor<4xf64> {
  cf.cond_br %c, ^a, ^b
^a:
  %t = autodiff.tanh %x : tensor<4xf64>
  cf.br ^m(%t : tensor<4xf64>)
^b:
  %s = autodiff.mul %x, %x : (tensor<4xf64>, tensor<4xf64>) -> tensor<4xf64>
  cf.br ^m(%s : tensor<4xf64>)
^dead:
  %u = autodiff.exp %x : tensor<4xf64>
  cf.br ^m(%u : tensor<4xf64>)
^m(%r: tensor<4xf64>):
  return %r : tensor<4xf64>
}"""
    # Two loops entered at either head: no single entry, which lift-cf-to-scf still takes.
    # From x = 0.5 either way ends after three blocks (near 0.7 they cycle for ever).
    irreducible = """
func.func @f(%x: f64, %c: i1) -> f64 {
  cf.cond_br %c, ^a(%x : f64), ^b(%x : f64)
^a(%u: f64):
  %u1 = math.sin %u : f64
  %k = arith.cmpf olt, %u1, %x : f64
  cf.cond_br %k, ^b(%u1 : f64), ^out(%u1 : f64)
^b(%v: f64):
  %v1 = math.cos %v : f64
  %k2 = arith.cmpf ogt, %v1, %x : f64
  cf.cond_br %k2, ^a(%v1 : f64), ^out(%v1 : f64)
^out(%r: f64):
  return %r : f64
}"""
    execute_region = """
func.func @f(%x: f64, %c: i1) -> f64 {
  %r = scf.execute_region -> f64 {
    cf.cond_br %c, ^a, ^b
  ^a:
    %s = math.sin %x : f64
    scf.yield %s : f64
  ^b:
    %m = arith.mulf %x, %x : f64
    scf.yield %m : f64
  }
  return %r : f64
}"""
    for condition in (True, False):
        passed(gradir.gradcheck(unreachable, "f", [np.linspace(0.2, 0.8, 4), np.bool_(condition)], wrt=[0]))
        for source in (irreducible, execute_region):
            passed(gradir.gradcheck(source, "f", [np.float64(0.5), np.bool_(condition)], wrt=[0]))


def test_a_program_without_branches_never_loads_mlir(tmp_path):
    code = """
import sys
from gradir.source import make_context, parse_module
from gradir.autodiff_pass.lift_control_flow import LiftControlFlowPass
ctx = make_context()
module = parse_module(ctx, '''
func.func @f(%x: f64, %k: index) -> f64 {
  %r = scf.index_switch %k -> f64
  case 1 {
    %s = math.sin %x : f64
    scf.yield %s : f64
  }
  default {
    scf.yield %x : f64
  }
  return %r : f64
}''')
LiftControlFlowPass().apply(ctx, module)
assert "scf.if" in str(module), module
print("mlir loaded" if "mlir.ir" in sys.modules else "mlir not loaded")
"""
    assert run_python(code, cwd=tmp_path, timeout=120).strip() == "mlir not loaded"


def test_the_backends_lift_branches_themselves():
    """Text given to the CPU backend directly: MLIR 22's value-bounds analysis asserted on
    a tensor carried around a loop of blocks, which ended the process (signal 6)."""
    from gradir.cpu_backend.cpu_runtime import CpuExecutable

    columns = """
func.func @columns(%a: tensor<5x3xf64>, %b: tensor<3x2xf64>) -> tensor<5x2xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f64
  %empty = tensor.empty() : tensor<5x2xf64>
  %init = linalg.fill ins(%zero : f64) outs(%empty : tensor<5x2xf64>) -> tensor<5x2xf64>
  cf.br ^head(%c0, %init : index, tensor<5x2xf64>)
^head(%j: index, %c: tensor<5x2xf64>):
  %more = arith.cmpi slt, %j, %c2 : index
  cf.cond_br %more, ^body, ^done
^body:
  %column = tensor.extract_slice %b[0, %j] [3, 1] [1, 1] : tensor<3x2xf64> to tensor<3xf64>
  %out = tensor.extract_slice %c[0, %j] [5, 1] [1, 1] : tensor<5x2xf64> to tensor<5xf64>
  %product = linalg.matvec ins(%a, %column : tensor<5x3xf64>, tensor<3xf64>) outs(%out : tensor<5xf64>) -> tensor<5xf64>
  %next = tensor.insert_slice %product into %c[0, %j] [5, 1] [1, 1] : tensor<5xf64> into tensor<5x2xf64>
  %j1 = arith.addi %j, %c1 : index
  cf.br ^head(%j1, %next : index, tensor<5x2xf64>)
^done:
  return %c : tensor<5x2xf64>
}"""
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((5, 3)), rng.standard_normal((3, 2))
    (got,) = CpuExecutable(columns).call("columns", a, b)
    np.testing.assert_allclose(got, a @ b, rtol=1e-14)
    passed(gradir.gradcheck(columns, "columns", [a, b]))


def test_cf_ops_are_gone_after_every_pipeline(ctx):
    module = run_passes(ctx, gradir.source.parse_module(ctx, EARLY_EXIT_LOOP), "lift-control-flow")
    assert not [op for op in module.walk() if isinstance(op, cf.BranchOp | cf.ConditionalBranchOp | cf.SwitchOp)]
    assert not [op for op in module.walk() if op.name == "ub.poison"]  # a zero where lifting left poison


@pytest.mark.parametrize("k", [2**63 - 1, -(2**63), -5, 3])
def test_switch_on_the_extreme_i64_values(k):
    """Cases at the largest and smallest i64 (MLIR 22's hash set of cases reserves both:
    lifting such a switch aborted the process), a negative case and the default."""
    source = """
func.func @f(%x: f64, %k: i64) -> f64 {
  cf.switch %k : i64, [ default: ^join(%x : f64), 9223372036854775807: ^sine, -9223372036854775808: ^cube, -5: ^sine ]
^sine:
  %s = math.sin %x : f64
  cf.br ^join(%s : f64)
^cube:
  %sq = arith.mulf %x, %x : f64
  %c = arith.mulf %sq, %x : f64
  cf.br ^join(%c : f64)
^join(%r: f64):
  return %r : f64
}"""
    x = 0.8
    want = {2**63 - 1: math.sin(x), -5: math.sin(x), -(2**63): x**3}.get(k, x)
    assert float(gradir.compile(source, target="cpu").f(x, np.int64(k))) == pytest.approx(want, rel=1e-15)
    passed(gradir.gradcheck(source, "f", [np.float64(x), np.int64(k)], wrt=[0]))


@pytest.mark.parametrize("condition", [True, False])
def test_whole_tensors_selected_on_one_condition(condition):
    """`arith.select` of two tensors on one `i1`: written so, and what canonicalization
    makes of a branch between blocks passing one tensor or the other (random program 129
    rewritten with branches: its reverse rule raised AttributeError)."""
    written = """
func.func @f(%a: tensor<4xf64>, %b: tensor<4xf64>, %c: i1) -> tensor<4xf64> {
  %e = math.exp %a : tensor<4xf64>
  %s = arith.select %c, %e, %b : tensor<4xf64>
  %t = arith.mulf %s, %a : tensor<4xf64>
  return %t : tensor<4xf64>
}"""
    branched = """
func.func @f(%a: tensor<4xf64>, %b: tensor<4xf64>, %c: i1) -> tensor<4xf64> {
  %e = math.exp %a : tensor<4xf64>
  cf.cond_br %c, ^join(%e : tensor<4xf64>), ^join(%b : tensor<4xf64>)
^join(%s: tensor<4xf64>):
  %t = arith.mulf %s, %a : tensor<4xf64>
  return %t : tensor<4xf64>
}"""
    rng = np.random.default_rng(3)
    inputs = [rng.uniform(0.2, 1.0, 4), rng.uniform(-1.0, 1.0, 4), np.bool_(condition)]
    for source in (written, branched):  # b matters only where it is selected
        passed(gradir.gradcheck(source, "f", inputs, wrt=[0] if condition else [0, 1]))


@pytest.mark.parametrize("cases", [5, 200])
def test_a_switch_with_many_cases_is_a_balanced_tree(ctx, cases):
    """More than `CHAIN_CASES` cases: a tree of depth log2(cases + 1), each region once.
    A chain of 200 ifs reached Python's recursion limit in gradir's passes."""
    arms = "\n".join(
        f"  case {3 * i} {{\n    %c{i} = arith.constant {i + 2}.0 : f64\n"
        f"    %m{i} = arith.mulf %x, %c{i} : f64\n    scf.yield %m{i} : f64\n  }}"
        for i in range(cases)
    )
    source = f"""func.func @f(%x: f64, %k: index) -> f64 {{
  %r = scf.index_switch %k -> f64
{arms}
  default {{
    %e = math.exp %x : f64
    scf.yield %e : f64
  }}
  return %r : f64
}}"""
    module = run_passes(ctx, gradir.source.parse_module(ctx, source), "lift-control-flow")
    branches = [op for op in module.walk() if isinstance(op, scf.IfOp)]
    assert len(branches) == cases  # a binary tree over cases + 1 leaves
    deepest = 0
    for branch in branches:
        level, parent = 0, branch
        while parent is not None:
            level += isinstance(parent, scf.IfOp)
            parent = parent.parent_op()
        deepest = max(deepest, level)
    assert deepest == math.ceil(math.log2(cases + 1))
    program = gradir.compile(source, target="cpu")
    for k in (0, 3, 3 * (cases - 1), 1, 3 * cases):  # first, second, last case, two defaults
        position = k // 3 if k % 3 == 0 and k < 3 * cases else None
        want = 0.7 * (position + 2) if position is not None else math.exp(0.7)
        assert float(program.f(0.7, k)) == pytest.approx(want, rel=1e-15)
    for k in (3 * (cases - 1), 1):  # the deepest case, a default
        passed(gradir.gradcheck(source, "f", [np.float64(0.7), np.int64(k)], wrt=[0]))


def test_nesting_a_pass_makes_too_deep_is_a_gradir_error():
    """A pass that reaches Python's recursion limit (as the passes after a chain of 200 ifs
    did) is a PipelineError, not a bare RecursionError out of the Python API."""
    from dataclasses import dataclass

    from xdsl.passes import ModulePass

    from gradir.instrumentation import apply_passes
    from gradir.source import make_context, parse_module

    @dataclass(frozen=True)
    class Bottomless(ModulePass):
        name = "bottomless"

        def apply(self, ctx, op):
            def down(level):
                return down(level + 1)

            down(0)

    ctx = make_context()
    module = parse_module(ctx, "func.func @f() {\n  return\n}")
    with pytest.raises(gradir.PipelineError, match="nesting too deep for gradir's passes"):
        apply_passes(ctx, module, [Bottomless()])
