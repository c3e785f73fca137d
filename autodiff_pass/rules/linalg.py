"""Derivative rules of linalg named ops (built-in Python rules, loaded by the
registry through `RULES`).

The gradients are written as formulas of `derivatives.yaml`'s language over
the op's operands (`formula`), so they emit autodiff ops that lower like any
other derivative:

- `linalg.matmul` and `linalg.batch_matmul` (C + A B): A gets g Bᵀ, B gets
  Aᵀ g, the accumulator C gets g, also with `indexing_maps` that read A or B
  transposed; any other maps (a broadcast operand, a transposed output) and
  inputs of another element type than C go through the op's generic view
  (`linalg_structured`). The formulas are kept because they are faster on the
  CPU: their products are plain matmuls (256x256: 0.66 ms for both gradients,
  against 64 ms for the adjoint generics, which MLIR names matmuls reading an
  operand transposed, left to loops), and a batch matmul becomes a loop of
  vectorised matmuls (16x128x128x128: 3.2 ms against 104 ms).
- `linalg.transpose`: the inverse transpose.
- `linalg.broadcast` (new `dimensions`): the sum over those dimensions.
- `linalg.fill`: the scalar gets the sum of g; the init is overwritten.
- `linalg.copy`: g to the input.
- the elementwise named ops (`linalg.add sub mul div negf powf exp log sqrt
  rsqrt tanh erf abs floor ceil round max min select`): the rule of their
  scalar op in `derivatives.yaml` (`arith.addf`, `math.exp`, ...), applied to
  the whole tensors; the init is overwritten. An op with a scalar input
  (`ins(%x, %s : tensor<4xf32>, f32)`) goes through the generic view.
- `linalg.reduce` with an `arith.addf` combiner: like `autodiff.sum` (the init
  gets g); with `arith.maximumf`/`arith.minimumf`: like `autodiff.max`, the
  init being one more candidate (tied candidates share the gradient). Any
  other body goes through the generic view: forward mode takes any body,
  reverse mode the combiners of the generic rule (`generic_reductions`: a sum,
  difference, product, max or min of any expression, `max(x * x, acc)`); other
  combiners are its located error, naming `linalg.reduce`.
- `linalg.softmax`: `autodiff.softmax`'s formula; on tensors of dynamic shape the same
  (dx = y * (g - sum(g * y, dim))) as two generics sized by the result's `tensor.dim`s.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import wraps

from xdsl.builder import Builder
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import DenseArrayBase, TensorType
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineMap

from gradir.autodiff_pass.ir_building import empty_of
from gradir.autodiff_pass.rules.formula import Emitter, Zero, parse_formula
from gradir.autodiff_pass.rules.interface import DerivativeRule
from gradir.autodiff_pass.rules.linalg_structured import contraction_jvp, view_jvp, view_vjp
from gradir.autodiff_pass.rules.registry import get_rule
from gradir.dialects.autodiff import SumOp, TransposeOp
from gradir.dialects.linalg_structured import element_type
from gradir.dialects.type_checks import dynamic_dims
from gradir.lowering.linalg_builders import filled_tensor, generic, projection_map
from gradir.lowering.standard_ops import extents

_PARSED: dict[str, object] = {}


def formula(builder: Builder, text: str, **environment) -> SSAValue:
    """Evaluate a formula of the rule language over `environment`."""
    if text not in _PARSED:
        _PARSED[text] = parse_formula(text)
    environment = {"true": True, "false": False, **environment}
    return Emitter(builder, environment).evaluate(_PARSED[text])  # type: ignore[return-value, arg-type]


def _zero_if_none(value: SSAValue | None, like: SSAValue) -> SSAValue | Zero:
    return Zero(like.type) if value is None else value


def _or_none(value) -> SSAValue | None:
    return None if isinstance(value, Zero) else value


# -- matmul -------------------------------------------------------------------

_MATMUL_OPERAND_MAPS = {
    # indexing map -> whether the operand is stored transposed (its last two dimensions)
    "linalg.matmul": {
        "a": {"affine_map<(d0, d1, d2) -> (d0, d2)>": False, "affine_map<(d0, d1, d2) -> (d2, d0)>": True},
        "b": {"affine_map<(d0, d1, d2) -> (d2, d1)>": False, "affine_map<(d0, d1, d2) -> (d1, d2)>": True},
        "c": {"affine_map<(d0, d1, d2) -> (d0, d1)>": False},
    },
    "linalg.batch_matmul": {
        "a": {"affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>": False, "affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>": True},
        "b": {"affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>": False, "affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>": True},
        "c": {"affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>": False},
    },
}  # fmt: skip


def _matmul_layout(op: Operation) -> tuple[bool, bool] | None:
    """Whether A and B are read transposed (`indexing_maps`, which MLIR uses
    for the former matmul_transpose_a/b); None for any other maps, or inputs
    whose element type is not the output's (the generic view serves those)."""
    if len({element_type(v.type) for v in op.operands}) != 1:
        return None
    maps = op.properties.get("indexing_maps")
    if maps is None:
        return False, False
    layout = [
        _MATMUL_OPERAND_MAPS[op.name][name].get(str(m)) for name, m in zip("abc", maps.data)  # type: ignore[attr-defined]
    ]
    if None in layout:
        return None
    return bool(layout[0]), bool(layout[1])


def _transposed(text: str) -> str:
    """`matrix_transpose(text)`, cancelling a transpose `text` already has."""
    prefix = "matrix_transpose("
    return text[len(prefix) : -1] if text.startswith(prefix) else f"{prefix}{text})"


def matmul_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue], captured: Sequence[SSAValue] = ()):
    # With A' and B' the matrices as multiplied (A' = Aᵀ when A is stored
    # transposed): A' gets g B'ᵀ and B' gets A'ᵀ g, transposed back to A and B.
    layout = _matmul_layout(op)
    if layout is None:
        return view_vjp(builder, op, grads, captured)
    a_transposed, b_transposed = layout
    a, b, _ = op.operands
    (g,) = grads
    a_used = _transposed("a") if a_transposed else "a"
    b_used = _transposed("b") if b_transposed else "b"
    grad_a = f"matmul(grad, {_transposed(b_used)})"
    grad_b = f"matmul({_transposed(a_used)}, grad)"
    if a_transposed:  # (g B'ᵀ)ᵀ = B' gᵀ
        grad_a = f"matmul({b_used}, matrix_transpose(grad))"
    if b_transposed:  # (A'ᵀ g)ᵀ = gᵀ A'
        grad_b = f"matmul(matrix_transpose(grad), {a_used})"
    return [formula(builder, grad_a, grad=g, b=b), formula(builder, grad_b, grad=g, a=a), g]


def matmul_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None], captured=None):
    layout = _matmul_layout(op)
    if layout is None:
        return contraction_jvp(builder, op, tangents, captured)
    a_transposed, b_transposed = layout
    a, b, c = op.operands
    t = [_zero_if_none(v, like) for v, like in zip(tangents, (a, b, c))]
    a_used, a_t = (_transposed("a"), _transposed("a_t")) if a_transposed else ("a", "a_t")
    b_used, b_t = (_transposed("b"), _transposed("b_t")) if b_transposed else ("b", "b_t")
    result = formula(
        builder,
        f"matmul({a_t}, {b_used}) + matmul({a_used}, {b_t}) + c_t",
        a=a, b=b, a_t=t[0], b_t=t[1], c_t=t[2],
    )  # fmt: skip
    return [_or_none(result)]


# -- transpose and broadcast ----------------------------------------------------


def _permutation(op: Operation) -> list[int]:
    permutation = op.properties["permutation"]
    assert isinstance(permutation, DenseArrayBase)
    return [int(v) for v in permutation.get_values()]


def transpose_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    permutation = _permutation(op)
    inverse = [permutation.index(axis) for axis in range(len(permutation))]
    return [builder.insert(TransposeOp(grads[0], inverse)).result, None]


def transpose_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    if tangents[0] is None:
        return [None]
    return [builder.insert(TransposeOp(tangents[0], _permutation(op))).result]


def _dimensions(op: Operation) -> list[int]:
    dimensions = op.properties["dimensions"]
    assert isinstance(dimensions, DenseArrayBase)
    return [int(v) for v in dimensions.get_values()]


def broadcast_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    return [builder.insert(SumOp(grads[0], _dimensions(op), False)).result, None]


def broadcast_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    tangent = tangents[0]
    if tangent is None:
        return [None]
    result = op.results[0]
    return [formula(builder, "expand_reduced(t, like, dims, false)", t=tangent, like=result, dims=tuple(_dimensions(op)))]


# -- fill ------------------------------------------------------------------------


def fill_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    value = op.operands[0]
    total = builder.insert(SumOp(grads[0], None, False)).result
    return [builder.insert(tensor.ExtractOp(total, [], value.type)).result, None]


def fill_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    tangent = tangents[0]
    if tangent is None:
        return [None]
    init = op.operands[1]
    return [builder.insert(linalg.FillOp((tangent,), (init,), (op.results[0].type,))).results[0]]


# -- copy and the elementwise named ops -----------------------------------------


def copy_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    return [grads[0], None]


def copy_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    return [tangents[0]]


ELEMENTWISE_SCALAR_OPS = {
    "linalg.add": "arith.addf", "linalg.sub": "arith.subf", "linalg.mul": "arith.mulf",
    "linalg.div": "arith.divf", "linalg.negf": "arith.negf", "linalg.powf": "math.powf",
    "linalg.exp": "math.exp", "linalg.log": "math.log", "linalg.sqrt": "math.sqrt",
    "linalg.rsqrt": "math.rsqrt", "linalg.tanh": "math.tanh", "linalg.erf": "math.erf",
    "linalg.abs": "math.absf", "linalg.floor": "math.floor", "linalg.ceil": "math.ceil",
    "linalg.round": "math.round",
    "linalg.max": "arith.maximumf", "linalg.min": "arith.minimumf", "linalg.select": "arith.select",
}  # fmt: skip
"""Elementwise named op -> the scalar op its body applies, whose rule it reuses.
(`linalg.square` and `linalg.reciprocal`, whose bodies are `x * x` and `1 / x`,
go through the generic view: `linalg_structured.BODY_OPS`.)"""

_SCALAR_RULE_DECLARATIONS = {
    # The declarations of each scalar rule in derivatives.yaml (differentiable
    # inputs, saved inputs, saved outputs), needed before the rule file is
    # loaded; a test checks them against the loaded rules.
    "arith.addf": ((0, 1), (), ()), "arith.subf": ((0, 1), (), ()), "arith.mulf": ((0, 1), (0, 1), ()),
    "math.exp": ((0,), (), (0,)), "math.log": ((0,), (0,), ()), "math.sqrt": ((0,), (), (0,)),
    "arith.maximumf": ((0, 1), (0, 1), ()), "arith.minimumf": ((0, 1), (0, 1), ()),
    "arith.select": ((1, 2), (0,), ()),
    "arith.divf": ((0, 1), (1,), (0,)), "arith.negf": ((0,), (), ()), "math.powf": ((0, 1), (0, 1), (0,)),
    "math.rsqrt": ((0,), (), (0,)), "math.tanh": ((0,), (), (0,)), "math.erf": ((0,), (0,), ()),
    "math.absf": ((0,), (0,), ()),
    "math.floor": ((), (), ()), "math.ceil": ((), (), ()), "math.round": ((), (), ()),
}  # fmt: skip


def _scalar_rule(op: Operation) -> DerivativeRule:
    rule = get_rule(ELEMENTWISE_SCALAR_OPS[op.name])
    assert rule is not None and rule.reverse is not None and rule.forward is not None
    return rule


def _whole_tensors(op: Operation) -> bool:
    """Whether every operand is a tensor of the result's shape, as the scalar
    formulas assume; MLIR also accepts a scalar input (`ins(%x, %s :
    tensor<4xf32>, f32)`), read in every iteration, which the generic view serves."""
    if not op.results or not isinstance(result := op.results[0].type, TensorType):
        return False
    shape = result.get_shape()
    return all(isinstance(v.type, TensorType) and v.type.get_shape() == shape for v in op.operands)


def elementwise_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    if not _whole_tensors(op):
        return view_vjp(builder, op, grads)
    # The scalar rule binds its input names to the leading operands (the
    # `ins`); the `outs` init is overwritten and gets nothing.
    gradients = _scalar_rule(op).reverse(builder, op, grads)  # type: ignore[misc]
    return [*gradients, *[None] * (len(op.operands) - len(gradients))]


def elementwise_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    if not _whole_tensors(op):
        return view_jvp(builder, op, tangents)
    return _scalar_rule(op).forward(builder, op, tangents)  # type: ignore[misc]


def _elementwise_rule(name: str) -> DerivativeRule:
    differentiable, saved_inputs, saved_outputs = _SCALAR_RULE_DECLARATIONS[ELEMENTWISE_SCALAR_OPS[name]]
    return DerivativeRule(name, differentiable_inputs=differentiable, saved_inputs=frozenset(saved_inputs),
                          saved_outputs=frozenset(saved_outputs), reverse=elementwise_vjp,
                          forward=elementwise_jvp)  # fmt: skip


# -- reduce ----------------------------------------------------------------------


def _combiner(op: Operation) -> str | None:
    """`add` or `max`/`min`: what the reduce's body does with (element,
    accumulator) when it is that one op; None for any other body."""
    block = op.regions[0].block
    body = list(block.ops)
    if len(op.operands) == 2 and len(body) == 2 and isinstance(body[1], linalg.YieldOp):
        combine = body[0]
        operands = set(combine.operands)
        if operands == set(block.args) and len(block.args) == 2 and body[1].operands[0] == combine.results[0]:
            kinds = {arith.AddfOp: "add", arith.MaximumfOp: "max", arith.MinimumfOp: "min"}
            for kind, name in kinds.items():
                if isinstance(combine, kind):
                    return name
    return None


_MAX_SHARES = {
    # Candidates equal to the result (the init is one more) share its gradient.
    "is_x": "select(eq(x, expand_reduced(result, x, dims, false)), ones_like(x), 0)",
    "is_init": "select(eq(init, result), ones_like(init), 0)",
}


def _max_environment(builder: Builder, op: Operation) -> dict:
    x, init = op.operands
    result = op.results[0]
    dims = tuple(_dimensions(op))
    is_x = formula(builder, _MAX_SHARES["is_x"], x=x, result=result, dims=dims)
    is_init = formula(builder, _MAX_SHARES["is_init"], init=init, result=result)
    count = formula(builder, "sum(is_x, dims, false) + is_init", is_x=is_x, is_init=is_init, dims=dims)
    return {"x": x, "init": init, "dims": dims, "is_x": is_x, "is_init": is_init, "count": count}


def reduce_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue], captured: Sequence[SSAValue] = ()):
    combiner = _combiner(op)
    if combiner is None:
        return view_vjp(builder, op, grads, captured)
    x, init = op.operands
    (g,) = grads
    dims = tuple(_dimensions(op))
    if combiner == "add":
        return [formula(builder, "expand_reduced(grad, x, dims, false)", grad=g, x=x, dims=dims), g]
    env = _max_environment(builder, op)
    share = formula(builder, "grad / count", grad=g, **env)
    return [
        formula(builder, "expand_reduced(share, x, dims, false) * is_x", share=share, **env),
        formula(builder, "share * is_init", share=share, **env),
    ]


def reduce_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None], captured=None):
    combiner = _combiner(op)
    if combiner is None:
        return view_jvp(builder, op, tangents, captured)
    x, init = op.operands
    x_t, init_t = (_zero_if_none(t, like) for t, like in zip(tangents, (x, init)))
    dims = tuple(_dimensions(op))
    if combiner == "add":
        return [_or_none(formula(builder, "sum(x_t, dims, false) + init_t", x_t=x_t, init_t=init_t, dims=dims))]
    env = _max_environment(builder, op)
    total = formula(builder, "(sum(x_t * is_x, dims, false) + init_t * is_init) / count", x_t=x_t, init_t=init_t, **env)
    return [_or_none(total)]


# -- softmax ---------------------------------------------------------------------


def softmax_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    dims = (op.properties["dimension"].value.data,)  # type: ignore[attr-defined]
    if _any_dynamic(op):
        return [_softmax_linearised(builder, op, grads[0]), None]
    text = "result * (grad - sum(grad * result, dims, true))"
    return [formula(builder, text, grad=grads[0], result=op.results[0], dims=dims), None]


def softmax_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    if tangents[0] is None:
        return [None]
    if _any_dynamic(op):
        return [_softmax_linearised(builder, op, tangents[0])]
    dims = (op.properties["dimension"].value.data,)  # type: ignore[attr-defined]
    text = "result * (x_t - sum(x_t * result, dims, true))"
    return [_or_none(formula(builder, text, x_t=tangents[0], result=op.results[0], dims=dims))]


def _softmax_linearised(builder: Builder, op: Operation, v: SSAValue) -> SSAValue:
    """`y * (v - sum(v * y, dim))` (y the softmax's result; both the gradient of its input
    and its tangent) for tensors of dynamic shape, where the formulas' autodiff ops, of
    static shapes, cannot go: two generics (the sum along the dimension, then the
    elementwise part) sized by the result's extents (`tensor.dim`)."""
    y = op.results[0]
    y_type = y.type
    assert isinstance(y_type, TensorType)
    dim = op.properties["dimension"].value.data  # type: ignore[attr-defined]
    rank = y_type.get_num_dims()
    sizes = extents(builder, y)
    kept = [k for k in range(rank) if k != dim]
    reduced_type = TensorType(y_type.element_type, [y_type.get_shape()[k] for k in kept])
    init = filled_tensor(builder, reduced_type, 0.0, [sizes[k] for k in kept if isinstance(sizes[k], SSAValue)])
    identity, projection = AffineMap.identity(rank), projection_map(rank, kept)
    iterators = [IteratorTypeAttr.reduction() if k == dim else IteratorTypeAttr.parallel() for k in range(rank)]
    total = generic(
        builder, [v, y], [identity, identity], init, projection, iterators,
        lambda a: arith.AddfOp(arith.MulfOp(a[0], a[1]).result, a[2]).result,
    )  # fmt: skip
    return generic(
        builder, [y, v, total], [identity, identity, projection], empty_of(builder, y_type, sizes), identity,
        [IteratorTypeAttr.parallel()] * rank, lambda a: arith.MulfOp(a[0], arith.SubfOp(a[1], a[2]).result).result,
    )  # fmt: skip


def _any_dynamic(op: Operation) -> bool:
    return any(dynamic_dims(value.type) for value in (*op.operands, *op.results))


def _view_when_dynamic(rule: DerivativeRule, forward_view=view_jvp) -> DerivativeRule:
    """`rule`, taking tensors of dynamic shape through the op's generic view (the formulas
    emit autodiff ops, whose shapes are static; the generic rules size what they build from
    the op's values)."""
    reverse, forward = rule.reverse, rule.forward

    @wraps(reverse)  # the reference page names the formula rule, not this dispatch
    def reverse_any(builder, op, grads, *captured):
        if _any_dynamic(op):
            return view_vjp(builder, op, grads, *captured)
        return reverse(builder, op, grads, *captured)  # type: ignore[misc]

    @wraps(forward)
    def forward_any(builder, op, tangents, *captured):
        if _any_dynamic(op):
            return forward_view(builder, op, tangents, *captured)
        return forward(builder, op, tangents, *captured)  # type: ignore[misc]

    return replace(rule, reverse=reverse_any, forward=forward_any, dynamic_shapes=True)


_STATIC_RULES = (
    DerivativeRule("linalg.matmul", differentiable_inputs=(0, 1, 2), saved_inputs=frozenset({0, 1}),
                   saved_outputs=frozenset(), reverse=matmul_vjp, forward=matmul_jvp, captures=True),
    DerivativeRule("linalg.batch_matmul", differentiable_inputs=(0, 1, 2), saved_inputs=frozenset({0, 1}),
                   saved_outputs=frozenset(), reverse=matmul_vjp, forward=matmul_jvp, captures=True),
    DerivativeRule("linalg.transpose", differentiable_inputs=(0,), saved_inputs=frozenset(),
                   saved_outputs=frozenset(), reverse=transpose_vjp, forward=transpose_jvp),
    DerivativeRule("linalg.broadcast", differentiable_inputs=(0,), saved_inputs=frozenset(),
                   saved_outputs=frozenset(), reverse=broadcast_vjp, forward=broadcast_jvp),
    DerivativeRule("linalg.fill", differentiable_inputs=(0,), saved_inputs=frozenset(),
                   saved_outputs=frozenset(), reverse=fill_vjp, forward=fill_jvp),
    DerivativeRule("linalg.copy", differentiable_inputs=(0,), saved_inputs=frozenset(),
                   saved_outputs=frozenset(), reverse=copy_vjp, forward=copy_jvp),
    *(_elementwise_rule(name) for name in ELEMENTWISE_SCALAR_OPS),
    DerivativeRule("linalg.reduce", reverse=reduce_vjp, forward=reduce_jvp, captures=True),
    DerivativeRule("linalg.softmax", differentiable_inputs=(0,), saved_inputs=frozenset(),
                   saved_outputs=frozenset({0}), reverse=softmax_vjp, forward=softmax_jvp, dynamic_shapes=True),
)  # fmt: skip

_CONTRACTION_RULES = ("linalg.matmul", "linalg.batch_matmul")

RULES = tuple(
    rule if rule.op_name == "linalg.softmax"
    else _view_when_dynamic(rule, contraction_jvp if rule.op_name in _CONTRACTION_RULES else view_jvp)
    for rule in _STATIC_RULES
)
"""The rules; on tensors of dynamic shape each goes through the op's generic view
(`linalg.softmax`, which has none, builds two generics sized by its result's extents)."""
