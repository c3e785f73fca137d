"""One small program per (forward op, shapes) case, for numerical gradient checks."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gradir.dialects.shape_rules import broadcast_shapes, matmul_shape, reduced_shape

UNARY = ["neg", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "relu", "abs"]
BINARY = ["add", "sub", "mul", "div", "pow", "maximum", "minimum"]
SIGNED_INPUTS = {"neg", "sin", "cos", "tanh", "sigmoid", "relu", "abs", "add", "sub", "mul",
                 "maximum", "minimum", "matmul", "softmax", "log_softmax", "max", "sum", "mean",
                 "select", "transpose", "reshape", "broadcast_to", "sum_to_size"}  # fmt: skip


def tensor(shape, element="f64") -> str:
    dims = "x".join(str(s) for s in shape)
    return f"tensor<{dims}x{element}>" if shape else f"tensor<{element}>"


@dataclass
class OpCase:
    id: str
    source: str
    """A module with one function, `@f`."""
    inputs: list[np.ndarray]
    wrt: list[int]
    function: str = "f"

    def renamed(self, function: str) -> "OpCase":
        source = self.source.replace("func.func @f(", f"func.func @{function}(", 1)
        return OpCase(self.id, source, self.inputs, self.wrt, function)


def _inputs(op: str, shapes, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    arrays = []
    for shape in shapes:
        if op in SIGNED_INPUTS:
            # Mixed signs, kept away from the kinks at 0 (relu, abs) and from ties.
            magnitude = rng.uniform(0.2, 1.5, size=shape)
            arrays.append(magnitude * rng.choice([-1.0, 1.0], size=shape))
        else:
            arrays.append(rng.uniform(0.3, 1.5, size=shape))
    return arrays


def _function(params, body: str, result_type: str) -> str:
    args = ", ".join(f"%{name}: {type_}" for name, type_ in params)
    return f"func.func @f({args}) -> {result_type} {{\n{body}\n  func.return %r : {result_type}\n}}\n"


def unary_case(op: str, shape) -> OpCase:
    t = tensor(shape)
    source = _function([("x", t)], f"  %r = autodiff.{op} %x : {t}", t)
    return OpCase(f"{op}-{shape}", source, _inputs(op, [shape], 1), [0])


def binary_case(op: str, lhs, rhs) -> OpCase:
    out = broadcast_shapes(lhs, rhs)
    tl, tr, to = tensor(lhs), tensor(rhs), tensor(out)
    body = f"  %r = autodiff.{op} %x, %y : ({tl}, {tr}) -> {to}"
    return OpCase(f"{op}-{lhs}-{rhs}", _function([("x", tl), ("y", tr)], body, to), _inputs(op, [lhs, rhs], 2), [0, 1])


def matmul_case(lhs, rhs) -> OpCase:
    out = matmul_shape(lhs, rhs)
    tl, tr, to = tensor(lhs), tensor(rhs), tensor(out)
    body = f"  %r = autodiff.matmul %x, %y : ({tl}, {tr}) -> {to}"
    return OpCase(f"matmul-{lhs}-{rhs}", _function([("x", tl), ("y", tr)], body, to), _inputs("matmul", [lhs, rhs], 3), [0, 1])


def shape_case(op: str, shape, out, attrs: str = "") -> OpCase:
    t, to = tensor(shape), tensor(out)
    body = f"  %r = autodiff.{op} %x {attrs} : {t} -> {to}"
    return OpCase(f"{op}-{shape}-{out}{attrs}", _function([("x", t)], body, to), _inputs(op, [shape], 4), [0])


def reduction_case(op: str, shape, dims, keepdim: bool) -> OpCase:
    all_dims = tuple(range(len(shape))) if dims is None else dims
    out = reduced_shape(shape, all_dims, keepdim)
    attrs = []
    if dims is not None:
        attrs.append("dims = array<i64: " + ", ".join(map(str, dims)) + ">")
    if keepdim:
        attrs.append("keepdim = true")
    attr_text = "{" + ", ".join(attrs) + "}" if attrs else ""
    return shape_case(op, shape, out, attr_text)


def softmax_case(op: str, shape, dim: int) -> OpCase:
    t = tensor(shape)
    body = f"  %r = autodiff.{op} %x {{dim = {dim} : i64}} : {t}"
    return OpCase(f"{op}-{shape}-dim{dim}", _function([("x", t)], body, t), _inputs(op, [shape], 5), [0])


def select_case(cond, a, b) -> OpCase:
    out = broadcast_shapes(cond, a, b)
    tc, ta, tb, to = tensor(cond, "i1"), tensor(a), tensor(b), tensor(out)
    body = f"  %r = autodiff.select %c, %x, %y : ({tc}, {ta}, {tb}) -> {to}"
    rng = np.random.default_rng(6)
    inputs = [rng.integers(0, 2, size=cond).astype(np.bool_), *_inputs("select", [a, b], 7)]
    return OpCase(f"select-{cond}-{a}-{b}", _function([("c", tc), ("x", ta), ("y", tb)], body, to), inputs, [1, 2])


def all_cases() -> list[OpCase]:
    cases = []
    for op in UNARY:
        for shape in [(), (3,), (2, 3)]:
            cases.append(unary_case(op, shape))
    for op in BINARY:
        for lhs, rhs in [((2, 3), (2, 3)), ((2, 3), (3,)), ((4, 1), (1, 5)), ((), (2, 2)), ((2, 1, 3), (4, 3))]:
            cases.append(binary_case(op, lhs, rhs))
    cases += [matmul_case((3, 4), (4, 2)), matmul_case((2, 3, 4), (2, 4, 5)), matmul_case((1, 1), (1, 3))]
    cases += [
        shape_case("transpose", (3, 4), (4, 3), "{permutation = array<i64: 1, 0>}"),
        shape_case("transpose", (2, 3, 4), (4, 2, 3), "{permutation = array<i64: 2, 0, 1>}"),
        shape_case("reshape", (2, 6), (3, 4)),
        shape_case("reshape", (2, 3, 4), (6, 4)),
        shape_case("reshape", (4,), (2, 1, 2)),
        shape_case("broadcast_to", (3,), (2, 3)),
        shape_case("broadcast_to", (2, 1), (2, 4)),
        shape_case("broadcast_to", (), (2, 2)),
        shape_case("sum_to_size", (2, 3), (3,)),
        shape_case("sum_to_size", (2, 4), (2, 1)),
        shape_case("sum_to_size", (2, 3), ()),
        shape_case("sum_to_size", (3, 2, 4), (2, 1)),
    ]
    for op in ["sum", "mean", "max"]:
        for shape, dims, keepdim in [((3, 4), (1,), False), ((3, 4), (0,), True), ((2, 3, 4), (0, 2), False),
                                     ((2, 3, 4), (1,), True), ((3, 4), None, False), ((5,), None, True), ((), None, False)]:  # fmt: skip
            cases.append(reduction_case(op, shape, dims, keepdim))
    for op in ["softmax", "log_softmax"]:
        cases += [softmax_case(op, (3, 4), 1), softmax_case(op, (3, 4), 0), softmax_case(op, (2, 3, 4), 2)]
    cases += [select_case((2, 1), (2, 3), (3,)), select_case((3,), (3,), (3,)), select_case((1,), (2, 2), ())]
    return [case.renamed(f"case{i}") for i, case in enumerate(cases)]


def combined_module(cases: list[OpCase]) -> str:
    """Every case's function in one module, so they compile once."""
    return "".join(case.source for case in cases)
