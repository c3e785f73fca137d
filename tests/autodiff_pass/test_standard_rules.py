"""Rules of standard MLIR ops (arith, math, linalg.generic) at the level of
the IR they emit: every arith/math rule applied to float scalars emits only
arith/math ops (what a linalg.generic body may hold), and evaluated by a small
scalar interpreter it matches central differences; on tensors the same rules
emit autodiff ops. The end-to-end numerics are in tests/numerics/test_standard_ops.py."""
from __future__ import annotations

import math as pymath

import numpy as np
import pytest
from xdsl.builder import Builder
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import FloatAttr, IntegerType, TensorType, f32, f64
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from gradir.autodiff_pass.rules import generic as generic_rules
from gradir.autodiff_pass.rules import registry
from gradir.autodiff_pass.rules.formula import Emitter, parse_formula
from gradir.dialects.mlir22_ops import ClampFOp, ErfcOp, RemFOp
from gradir.source import load_module, make_context

UNARY = {
    "math.exp": math.ExpOp, "math.log": math.LogOp, "math.log1p": math.Log1pOp,
    "math.sqrt": math.SqrtOp, "math.rsqrt": math.RsqrtOp, "math.sin": math.SinOp,
    "math.cos": math.CosOp, "math.tanh": math.TanhOp, "math.erf": math.ErfOp,
    "math.absf": math.AbsFOp, "arith.negf": arith.NegfOp,
    "math.tan": math.TanOp, "math.atan": math.AtanOp, "math.asin": math.AsinOp,
    "math.acos": math.AcosOp, "math.sinh": math.SinhOp, "math.cosh": math.CoshOp,
    "math.asinh": math.AsinhOp, "math.acosh": math.AcoshOp, "math.atanh": math.AtanhOp,
    "math.log2": math.Log2Op, "math.log10": math.Log10Op, "math.exp2": math.Exp2Op,
    "math.expm1": math.ExpM1Op, "math.cbrt": math.CbrtOp, "math.erfc": ErfcOp,
    "math.floor": math.FloorOp, "math.ceil": math.CeilOp, "math.round": math.RoundOp,
    "math.roundeven": math.RoundEvenOp, "math.trunc": math.TruncOp,
}  # fmt: skip
BINARY = {
    "arith.addf": arith.AddfOp, "arith.subf": arith.SubfOp, "arith.mulf": arith.MulfOp,
    "arith.divf": arith.DivfOp, "arith.maximumf": arith.MaximumfOp,
    "arith.minimumf": arith.MinimumfOp, "math.powf": math.PowFOp,
    "math.atan2": math.Atan2Op, "math.copysign": math.CopySignOp, "arith.remf": RemFOp,
    "arith.maxnumf": arith.MaxnumfOp, "arith.minnumf": arith.MinnumfOp,
}  # fmt: skip
TERNARY = {"math.fma": math.FmaOp, "math.clampf": ClampFOp}
POINTS = {  # inside each op's domain, away from kinks and ties
    "math.log": [0.7], "math.log1p": [0.4], "math.sqrt": [1.3], "math.rsqrt": [1.3],
    "math.absf": [-0.6], "math.powf": [1.4, 0.7], "arith.maximumf": [0.3, -0.2],
    "arith.minimumf": [0.3, -0.2], "math.acosh": [1.6], "math.cbrt": [-0.7],
    "math.atan2": [-0.4, 0.9], "math.copysign": [0.6, -0.3], "arith.remf": [2.7, -0.8],
    "arith.maxnumf": [0.3, -0.2], "arith.minnumf": [0.3, -0.2], "math.floor": [-1.3],
    "math.fma": [0.4, -0.7, 1.2], "math.clampf": [0.35, -0.5, 0.8],
}  # fmt: skip

# -- a scalar interpreter for arith/math -------------------------------------------------

_FUNCTIONS = {
    math.ExpOp: pymath.exp, math.LogOp: pymath.log, math.Log1pOp: pymath.log1p,
    math.SqrtOp: pymath.sqrt, math.RsqrtOp: lambda x: 1 / pymath.sqrt(x), math.SinOp: pymath.sin,
    math.CosOp: pymath.cos, math.TanhOp: pymath.tanh, math.ErfOp: pymath.erf,
    math.AbsFOp: abs, arith.NegfOp: lambda x: -x, arith.AddfOp: lambda a, b: a + b,
    arith.SubfOp: lambda a, b: a - b, arith.MulfOp: lambda a, b: a * b,
    arith.DivfOp: lambda a, b: a / b, arith.MaximumfOp: max, arith.MinimumfOp: min,
    math.PowFOp: pow, arith.SelectOp: lambda c, a, b: a if c else b,
    arith.ExtFOp: float, arith.TruncFOp: float,
    math.TanOp: pymath.tan, math.AtanOp: pymath.atan, math.AsinOp: pymath.asin,
    math.AcosOp: pymath.acos, math.SinhOp: pymath.sinh, math.CoshOp: pymath.cosh,
    math.AsinhOp: pymath.asinh, math.AcoshOp: pymath.acosh, math.AtanhOp: pymath.atanh,
    math.Log2Op: pymath.log2, math.Log10Op: pymath.log10, math.Exp2Op: lambda x: 2.0**x,
    math.ExpM1Op: pymath.expm1, math.CbrtOp: lambda x: float(np.cbrt(x)),
    ErfcOp: pymath.erfc, math.FloorOp: pymath.floor, math.CeilOp: pymath.ceil,
    math.RoundOp: lambda x: float(np.copysign(np.floor(abs(x) + 0.5), x)),
    math.RoundEvenOp: lambda x: float(np.round(x)), math.TruncOp: lambda x: float(pymath.trunc(x)),
    math.Atan2Op: pymath.atan2, math.CopySignOp: pymath.copysign, RemFOp: pymath.fmod,
    arith.MaxnumfOp: max, arith.MinnumfOp: min, math.FmaOp: lambda a, b, c: a * b + c,
    ClampFOp: lambda x, low, high: max(min(x, high), low),
}  # fmt: skip
_PREDICATES = {"ogt": float.__gt__, "oge": float.__ge__, "olt": float.__lt__,
               "ole": float.__le__, "oeq": float.__eq__, "une": float.__ne__}  # fmt: skip


def evaluate(ops: list[Operation], values: dict[SSAValue, float]) -> None:
    for op in ops:
        if isinstance(op, arith.ConstantOp):
            values[op.result] = float(op.value.value.data)  # type: ignore[attr-defined]
        elif isinstance(op, arith.CmpfOp):
            predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
            values[op.result] = _PREDICATES[predicate](*(float(values[v]) for v in op.operands))
        else:
            values[op.results[0]] = _FUNCTIONS[type(op)](*(values[v] for v in op.operands))


def scalar_op(name: str, type_=f64) -> tuple[Block, Operation]:
    op_class = {**UNARY, **BINARY, **TERNARY}[name]
    block = Block(arg_types=[type_] * (1 if name in UNARY else 2 if name in BINARY else 3))
    op = op_class(*block.args)
    block.add_op(op)
    return block, op


def emitted(block: Block, op: Operation) -> list[Operation]:
    ops = list(block.ops)
    return ops[ops.index(op) + 1 :]


# -- tests --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [*UNARY, *BINARY, *TERNARY])
def test_scalar_rules_emit_arith_math_and_match_finite_differences(name):
    """vjp with seed 1 is the derivative per input; jvp with one unit tangent
    is the same derivative; both against central differences of the op."""
    point = POINTS.get(name, [0.45, 0.8][: 1 if name in UNARY else 2])
    rule = registry.get_rule(name)
    assert rule is not None

    def primal(*xs: float) -> float:
        block, op = scalar_op(name)
        values: dict[SSAValue, float] = dict(zip(block.args, xs))
        evaluate([op], values)
        return values[op.results[0]]

    for k in range(len(point)):
        shifted = [list(point), list(point)]
        shifted[0][k] += 1e-6
        shifted[1][k] -= 1e-6
        numeric = (primal(*shifted[0]) - primal(*shifted[1])) / 2e-6

        block, op = scalar_op(name)
        builder = Builder(InsertPoint.at_end(block))
        seed = builder.insert(arith.ConstantOp(FloatAttr(1.0, f64))).result
        grads = rule.emit_vjp(builder, op, [seed])
        tangents = [builder.insert(arith.ConstantOp(FloatAttr(float(i == k), f64))).result for i in range(len(point))]
        (tangent,) = rule.emit_jvp(builder, op, tangents)
        new_ops = emitted(block, op)
        assert all(o.dialect_name() in ("arith", "math") for o in new_ops), [o.name for o in new_ops]
        assert all(r.type in (f64, IntegerType(1)) for o in new_ops for r in o.results)
        values: dict[SSAValue, float] = dict(zip(block.args, point))
        evaluate([op, *new_ops], values)
        # no gradient / tangent (floor, ...) is a zero one
        gradient = 0.0 if grads[k] is None else values[grads[k]]
        assert gradient == pytest.approx(numeric, rel=1e-6, abs=1e-8)
        assert (0.0 if tangent is None else values[tangent]) == pytest.approx(numeric, rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("name", ["math.tanh", "arith.mulf", "math.erf"])
def test_the_same_rules_emit_autodiff_ops_on_tensors(name):
    tensor = TensorType(f32, [2, 3])
    block, op = scalar_op(name, tensor)
    builder = Builder(InsertPoint.at_end(block))
    grads = registry.get_rule(name).emit_vjp(builder, op, [block.args[0]])
    names = {o.name for o in emitted(block, op)}
    assert any(n.startswith("autodiff.") for n in names)
    assert not names & {"arith.mulf", "math.tanh", "math.exp"}
    assert all(g is None or g.type == tensor for g in grads)


def test_select_condition_is_not_differentiable():
    rule = registry.get_rule("arith.select")
    assert rule is not None and not rule.differentiates(0) and rule.differentiates(1)
    block = Block(arg_types=[IntegerType(1), f64, f64])
    op = arith.SelectOp(*block.args)
    block.add_op(op)
    builder = Builder(InsertPoint.at_end(block))
    cond_grad, lhs_grad, rhs_grad = rule.emit_vjp(builder, op, [block.args[1]])
    assert cond_grad is None
    values: dict[SSAValue, object] = {block.args[0]: False, block.args[1]: 2.5, block.args[2]: 7.0}
    evaluate(emitted(block, op), values)  # type: ignore[arg-type]
    assert (values[lhs_grad], values[rhs_grad]) == (0.0, 2.5)


@pytest.mark.parametrize("source, target, cast", [(f32, f64, arith.TruncFOp), (f64, f32, arith.ExtFOp)])
def test_cast_gradients_convert_back_on_scalars(source, target, cast):
    block = Block(arg_types=[source])
    op = (arith.ExtFOp if cast is arith.TruncFOp else arith.TruncFOp)(block.args[0], target)
    block.add_op(op)
    seed = Block(arg_types=[target]).args[0]
    builder = Builder(InsertPoint.at_end(block))
    (grad,) = registry.get_rule(op.name).emit_vjp(builder, op, [seed])
    assert isinstance(grad.owner, cast) and grad.type == source


@pytest.mark.parametrize(
    "formula, op_class",
    [("neg(a)", arith.NegfOp), ("a + b", arith.AddfOp), ("a - b", arith.SubfOp),
     ("a * b", arith.MulfOp), ("a / b", arith.DivfOp), ("maximum(a, b)", arith.MaximumfOp),
     ("minimum(a, b)", arith.MinimumfOp), ("a ** b", math.PowFOp), ("exp(a)", math.ExpOp),
     ("log(a)", math.LogOp), ("sqrt(a)", math.SqrtOp), ("rsqrt(a)", math.RsqrtOp),
     ("sin(a)", math.SinOp), ("cos(a)", math.CosOp), ("tanh(a)", math.TanhOp),
     ("abs(a)", math.AbsFOp), ("select(gt(a, b), a, 0)", arith.SelectOp),
     ("relu(a)", arith.MaximumfOp), ("sigmoid(a)", arith.DivfOp)],
)  # fmt: skip
def test_emitter_functions_on_scalars(formula, op_class):
    block = Block(arg_types=[f32, f32])
    a, b = block.args
    value = Emitter(Builder(InsertPoint.at_end(block)), {"a": a, "b": b}).evaluate(parse_formula(formula))
    assert isinstance(value.owner, op_class) and value.type == f32


def test_shape_functions_are_the_identity_on_scalars():
    block = Block(arg_types=[f32, f32])
    a, b = block.args
    emitter = Emitter(Builder(InsertPoint.at_end(block)), {"a": a, "b": b})
    for text in ("reshape(a, b)", "broadcast_to(a, b)", "sum_to_size(a, b)"):
        assert emitter.evaluate(parse_formula(text)) is a
    assert not list(block.ops)
    one = emitter.evaluate(parse_formula("ones_like(a)"))
    assert isinstance(one.owner, arith.ConstantOp) and one.type == f32


def test_linalg_generic_rule_is_registered_from_python():
    rule = registry.get_rule("linalg.generic")
    assert rule is not None and rule.reverse is not None and rule.forward is not None
    assert rule is next(r for r in generic_rules.RULES if r.op_name == "linalg.generic")


def test_adjoint_generic_skips_unread_and_integer_operands():
    """The reverse rule gives no gradient to an input the body never reads
    and builds only the adjoint generics that are needed."""
    text = """
#id = affine_map<(i) -> (i)>
func.func @f(%x: tensor<4xf32>, %unused: tensor<4xf32>, %e: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %unused : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%u: f32, %v: f32, %o: f32):
    %s = math.sin %u : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""
    module = load_module(text, make_context())
    generic = next(o for o in module.walk() if o.name == "linalg.generic")
    function_block = generic.parent_block()
    builder = Builder(InsertPoint.before(function_block.last_op))
    seed = function_block.args[0]
    grads = registry.get_rule("linalg.generic").emit_vjp(builder, generic, [seed])
    assert grads[0] is not None and grads[1] is None and grads[2] is None
    adjoints = [o for o in function_block.ops if o.name == "linalg.generic" and o is not generic]
    assert len(adjoints) == 1
    body_ops = [o.name for o in adjoints[0].regions[0].block.ops]
    assert "math.cos" in body_ops and body_ops[-1] == "linalg.yield"
