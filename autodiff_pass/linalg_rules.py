"""Derivative rules of linalg named ops (built-in Python rules, loaded by the
registry through `RULES`).

The gradients are written as formulas of `derivatives.yaml`'s language over
the op's operands (`formula`), so they emit autodiff ops that lower like any
other derivative:

- `linalg.matmul` (C + A B): A gets g Bᵀ, B gets Aᵀ g, the accumulator C gets g.
- `linalg.transpose`: the inverse transpose.
- `linalg.broadcast` (new `dimensions`): the sum over those dimensions.
- `linalg.fill`: the scalar gets the sum of g; the init is overwritten.
- `linalg.reduce` with an `arith.addf` combiner: like `autodiff.sum` (the init
  gets g); with `arith.maximumf`/`arith.minimumf`: like `autodiff.max`, the
  init being one more candidate (tied candidates share the gradient). Other
  combiners are a located error.
"""
from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import DenseArrayBase
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Operation, SSAValue

from gradir.autodiff_pass.formula import Emitter, Zero, parse_formula
from gradir.autodiff_pass.registry import DerivativeRule
from gradir.errors import DifferentiationError, error_at

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

_DEFAULT_MATMUL_MAPS = (
    "affine_map<(d0, d1, d2) -> (d0, d2)>",
    "affine_map<(d0, d1, d2) -> (d2, d1)>",
    "affine_map<(d0, d1, d2) -> (d0, d1)>",
)


def _check_matmul(op: Operation) -> None:
    maps = op.properties.get("indexing_maps")
    if maps is not None and tuple(str(m) for m in maps.data) != _DEFAULT_MATMUL_MAPS:  # type: ignore[attr-defined]
        raise error_at(
            DifferentiationError, op, "differentiation of 'linalg.matmul' with indexing_maps is not supported"
        )


def matmul_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    _check_matmul(op)
    a, b, _ = op.operands
    (g,) = grads
    return [
        formula(builder, "matmul(grad, matrix_transpose(b))", grad=g, b=b),
        formula(builder, "matmul(matrix_transpose(a), grad)", grad=g, a=a),
        g,
    ]


def matmul_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    _check_matmul(op)
    a, b, c = op.operands
    t = [_zero_if_none(v, like) for v, like in zip(tangents, (a, b, c))]
    result = formula(
        builder, "matmul(a_t, b) + matmul(a, b_t) + c_t", a=a, b=b, a_t=t[0], b_t=t[1], c_t=t[2]
    )
    return [_or_none(result)]


# -- transpose and broadcast ----------------------------------------------------


def _permutation(op: Operation) -> list[int]:
    permutation = op.properties["permutation"]
    assert isinstance(permutation, DenseArrayBase)
    return [int(v) for v in permutation.get_values()]


def transpose_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    permutation = _permutation(op)
    inverse = [permutation.index(axis) for axis in range(len(permutation))]
    from gradir.dialects.autodiff import TransposeOp

    return [builder.insert(TransposeOp(grads[0], inverse)).result, None]


def transpose_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    from gradir.dialects.autodiff import TransposeOp

    if tangents[0] is None:
        return [None]
    return [builder.insert(TransposeOp(tangents[0], _permutation(op))).result]


def _dimensions(op: Operation) -> list[int]:
    dimensions = op.properties["dimensions"]
    assert isinstance(dimensions, DenseArrayBase)
    return [int(v) for v in dimensions.get_values()]


def broadcast_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    from gradir.dialects.autodiff import SumOp

    return [builder.insert(SumOp(grads[0], _dimensions(op), False)).result, None]


def broadcast_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    tangent = tangents[0]
    if tangent is None:
        return [None]
    result = op.results[0]
    return [formula(builder, "expand_reduced(t, like, dims, false)", t=tangent, like=result, dims=tuple(_dimensions(op)))]


# -- fill ------------------------------------------------------------------------


def fill_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    from gradir.dialects.autodiff import SumOp

    value = op.operands[0]
    total = builder.insert(SumOp(grads[0], None, False)).result
    return [builder.insert(tensor.ExtractOp(total, [], value.type)).result, None]


def fill_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    tangent = tangents[0]
    if tangent is None:
        return [None]
    init = op.operands[1]
    return [builder.insert(linalg.FillOp((tangent,), (init,), (op.results[0].type,))).results[0]]


# -- reduce ----------------------------------------------------------------------


def _combiner(op: Operation) -> str:
    """`add` or `max`/`min`: what the reduce's body does with (element, accumulator)."""
    block = op.regions[0].block
    body = list(block.ops)
    if len(body) == 2 and isinstance(body[1], linalg.YieldOp):
        combine = body[0]
        operands = set(combine.operands)
        if operands == set(block.args) and len(block.args) == 2 and body[1].operands[0] == combine.results[0]:
            kinds = {arith.AddfOp: "add", arith.MaximumfOp: "max", arith.MinimumfOp: "min"}
            for kind, name in kinds.items():
                if isinstance(combine, kind):
                    return name
    raise error_at(
        DifferentiationError,
        op,
        "differentiation of 'linalg.reduce' needs a body combining element and accumulator "
        "with one arith.addf, arith.maximumf or arith.minimumf",
    )


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


def reduce_vjp(builder: Builder, op: Operation, grads: Sequence[SSAValue]):
    x, init = op.operands
    (g,) = grads
    dims = tuple(_dimensions(op))
    if _combiner(op) == "add":
        return [formula(builder, "expand_reduced(grad, x, dims, false)", grad=g, x=x, dims=dims), g]
    env = _max_environment(builder, op)
    share = formula(builder, "grad / count", grad=g, **env)
    return [
        formula(builder, "expand_reduced(share, x, dims, false) * is_x", share=share, **env),
        formula(builder, "share * is_init", share=share, **env),
    ]


def reduce_jvp(builder: Builder, op: Operation, tangents: Sequence[SSAValue | None]):
    x, init = op.operands
    x_t, init_t = (_zero_if_none(t, like) for t, like in zip(tangents, (x, init)))
    dims = tuple(_dimensions(op))
    if _combiner(op) == "add":
        return [_or_none(formula(builder, "sum(x_t, dims, false) + init_t", x_t=x_t, init_t=init_t, dims=dims))]
    env = _max_environment(builder, op)
    total = formula(builder, "(sum(x_t * is_x, dims, false) + init_t * is_init) / count", x_t=x_t, init_t=init_t, **env)
    return [_or_none(total)]


RULES = (
    DerivativeRule("linalg.matmul", differentiable_inputs=(0, 1, 2), saved_inputs=frozenset({0, 1}),
                   saved_outputs=frozenset(), reverse=matmul_vjp, forward=matmul_jvp),
    DerivativeRule("linalg.transpose", differentiable_inputs=(0,), saved_inputs=frozenset(),
                   saved_outputs=frozenset(), reverse=transpose_vjp, forward=transpose_jvp),
    DerivativeRule("linalg.broadcast", differentiable_inputs=(0,), saved_inputs=frozenset(),
                   saved_outputs=frozenset(), reverse=broadcast_vjp, forward=broadcast_jvp),
    DerivativeRule("linalg.fill", differentiable_inputs=(0,), saved_inputs=frozenset(),
                   saved_outputs=frozenset(), reverse=fill_vjp, forward=fill_jvp),
    DerivativeRule("linalg.reduce", differentiable_inputs=(0, 1), saved_inputs=frozenset({0, 1}),
                   saved_outputs=frozenset({0}), reverse=reduce_vjp, forward=reduce_jvp),
)  # fmt: skip
