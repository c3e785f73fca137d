"""Helpers of the AD pass tests: contexts, running passes, finding functions,
the example programs several test files differentiate."""
from __future__ import annotations

import pathlib
import random

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.passes import PassPipeline

from gradir.cpu_backend.cpu_runtime import CpuExecutable
from gradir.tools.autodiff_opt import AutodiffOptMain
from gradir.pipelines import LINALG_PASSES
from gradir.source import parse_module

REPO = pathlib.Path(__file__).resolve().parents[2]

# f(a, b) = a*b*a + b, the running example of the issue.
ABA_PLUS_B = """
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %ab = autodiff.mul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %aba = autodiff.mul %ab, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %r = autodiff.add %aba, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""


def fresh_context() -> Context:
    """The `ctx` fixture's context, for module-scoped fixtures and hypothesis tests."""
    return AutodiffOptMain(args=[]).ctx


def run_passes(ctx: Context, module: ModuleOp, passes: str) -> ModuleOp:
    available = AutodiffOptMain(args=[]).available_passes
    PassPipeline.parse_spec(available, passes).apply(ctx, module)
    module.verify()
    return module


def function(module: ModuleOp, name: str) -> FuncOp:
    found = [op for op in module.ops if isinstance(op, FuncOp) and op.sym_name.data == name]
    assert found, f"no @{name} in\n{module}"
    return found[0]


def function_names(module: ModuleOp) -> list[str]:
    return [op.sym_name.data for op in module.ops if isinstance(op, FuncOp)]


def compile_for_cpu(ctx: Context, text: str) -> CpuExecutable:
    module = parse_module(ctx, text)
    run_passes(ctx, module, ",".join(LINALG_PASSES))
    return CpuExecutable(module)


# Inputs with loops, branches, linalg bodies, calls and memory effects: every
# chunk of them parses and differentiates, so a failure there is a failure.
VALID_INPUTS = sorted(
    path
    for folder in ("examples", "lit_tests/autodiff_pass", "lit_tests/lowering")
    for path in (REPO / folder).rglob("*.mlir")
    if "invalid" not in path.name
)


def chunks(path: pathlib.Path) -> list[str]:
    """The `// -----` chunks of an input file."""
    return path.read_text().split("// -----")


def input_id(path: pathlib.Path) -> str:
    return str(path.relative_to(REPO))


# ----------------------------------------------------------------------------
# A loss for numbers on the CPU: finite differences, jvp/vjp agreement, second order
# ----------------------------------------------------------------------------

LOSS = """
func.func @loss(%w: tensor<3x2xf64>, %x: tensor<4x3xf64>, %b: tensor<2xf64>) -> tensor<f64> {
  %h = autodiff.matmul %x, %w : (tensor<4x3xf64>, tensor<3x2xf64>) -> tensor<4x2xf64>
  %hb = autodiff.add %h, %b : (tensor<4x2xf64>, tensor<2xf64>) -> tensor<4x2xf64>
  %t = autodiff.tanh %hb : tensor<4x2xf64>
  %e = autodiff.exp %t : tensor<4x2xf64>
  %p = autodiff.mul %e, %t : (tensor<4x2xf64>, tensor<4x2xf64>) -> tensor<4x2xf64>
  %s = autodiff.sum %p : tensor<4x2xf64> -> tensor<f64>
  return %s : tensor<f64>
}
"""

ENTRIES = """
func.func @grad(%w: tensor<3x2xf64>, %x: tensor<4x3xf64>, %b: tensor<2xf64>) -> (tensor<3x2xf64>, tensor<4x3xf64>, tensor<2xf64>) {
  %dw, %dx, %db = autodiff.grad @loss(%w, %x, %b) : (tensor<3x2xf64>, tensor<4x3xf64>, tensor<2xf64>) -> (tensor<3x2xf64>, tensor<4x3xf64>, tensor<2xf64>)
  return %dw, %dx, %db : tensor<3x2xf64>, tensor<4x3xf64>, tensor<2xf64>
}
func.func @jvp(%w: tensor<3x2xf64>, %x: tensor<4x3xf64>, %b: tensor<2xf64>, %tw: tensor<3x2xf64>, %tx: tensor<4x3xf64>, %tb: tensor<2xf64>) -> tensor<f64> {
  %s, %ts = autodiff.jvp @loss(%w, %x, %b, %tw, %tx, %tb) : (tensor<3x2xf64>, tensor<4x3xf64>, tensor<2xf64>, tensor<3x2xf64>, tensor<4x3xf64>, tensor<2xf64>) -> (tensor<f64>, tensor<f64>)
  return %ts : tensor<f64>
}
func.func @grad_w(%w: tensor<3x2xf64>, %x: tensor<4x3xf64>, %b: tensor<2xf64>) -> tensor<3x2xf64> {
  %dw = autodiff.grad @loss(%w, %x, %b) {wrt = array<i64: 0>} : (tensor<3x2xf64>, tensor<4x3xf64>, tensor<2xf64>) -> tensor<3x2xf64>
  return %dw : tensor<3x2xf64>
}
// Hessian-vector products w.r.t. w, forward over reverse and reverse over reverse.
func.func @hvp_forward(%w: tensor<3x2xf64>, %x: tensor<4x3xf64>, %b: tensor<2xf64>, %v: tensor<3x2xf64>) -> tensor<3x2xf64> {
  %dw, %hv = autodiff.jvp @grad_w(%w, %x, %b, %v) {wrt = array<i64: 0>} : (tensor<3x2xf64>, tensor<4x3xf64>, tensor<2xf64>, tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<3x2xf64>)
  return %hv : tensor<3x2xf64>
}
func.func @grad_dot_v(%w: tensor<3x2xf64>, %x: tensor<4x3xf64>, %b: tensor<2xf64>, %v: tensor<3x2xf64>) -> tensor<f64> {
  %dw = func.call @grad_w(%w, %x, %b) : (tensor<3x2xf64>, tensor<4x3xf64>, tensor<2xf64>) -> tensor<3x2xf64>
  %p = autodiff.mul %dw, %v : (tensor<3x2xf64>, tensor<3x2xf64>) -> tensor<3x2xf64>
  %s = autodiff.sum %p : tensor<3x2xf64> -> tensor<f64>
  return %s : tensor<f64>
}
func.func @hvp_reverse(%w: tensor<3x2xf64>, %x: tensor<4x3xf64>, %b: tensor<2xf64>, %v: tensor<3x2xf64>) -> tensor<3x2xf64> {
  %hv = autodiff.grad @grad_dot_v(%w, %x, %b, %v) {wrt = array<i64: 0>} : (tensor<3x2xf64>, tensor<4x3xf64>, tensor<2xf64>, tensor<3x2xf64>) -> tensor<3x2xf64>
  return %hv : tensor<3x2xf64>
}
"""

SHAPES = [(3, 2), (4, 3), (2,)]


def random_point(seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.normal(size=shape) for shape in SHAPES]


def central_difference(function, point: list[np.ndarray], direction: list[np.ndarray]):
    """The derivative of one-result `function` (`exe.f`, which returns its result itself) at
    `point` along `direction`."""
    eps = 1e-6
    plus = function(*[p + eps * d for p, d in zip(point, direction)])
    minus = function(*[p - eps * d for p, d in zip(point, direction)])
    return (plus - minus) / (2 * eps)


# ----------------------------------------------------------------------------
# Random differentiated programs
# ----------------------------------------------------------------------------

UNARY = ("exp", "sin", "neg")
BINARY = ("add", "mul", "sub")


def random_program(seed: int, size: int) -> str:
    """A DAG with fan-out, repeated subexpressions and dead values, differentiated."""
    rng = random.Random(seed)
    t = "tensor<4xf32>"
    lines = [f"func.func @f(%a: {t}, %b: {t}) -> {t} {{"]
    values = ["%a", "%b"]
    for index in range(size):
        if rng.random() < 0.5:
            op, operands, signature = rng.choice(UNARY), [rng.choice(values)], t
        else:
            op, signature = rng.choice(BINARY), f"({t}, {t}) -> {t}"
            operands = [rng.choice(values), rng.choice(values)]
        line = f"autodiff.{op} {', '.join(operands)} : {signature}"
        lines.append(f"  %v{index} = {line}")
        if rng.random() < 0.3:  # the same expression again, for CSE
            lines.append(f"  %w{index} = {line}")
            values.append(f"%w{index}")
        values.append(f"%v{index}")
    lines.append(f"  return {values[-1]} : {t}\n}}")
    lines.append(
        f"func.func @main(%a: {t}, %b: {t}, %c: {t}) -> ({t}, {t}, {t}) {{\n"
        f"  %r, %da, %db = autodiff.vjp @f(%a, %b, %c) : ({t}, {t}, {t}) -> ({t}, {t}, {t})\n"
        f"  return %r, %da, %db : {t}, {t}, {t}\n}}"
    )
    return "\n".join(lines)


def raw_reverse(ctx: Context, seed: int, size: int) -> ModuleOp:
    """Reverse mode's output (not cleaned: CSE and DCE have work to do)."""
    module = parse_module(ctx, random_program(seed, size))
    run_passes(ctx, module, "autodiff-reverse")
    return module
