"""convert-autodiff-to-linalg: for every op, MLIR 22 accepts the lowered module
(all four element types) and the CPU runtime's results match NumPy (f16, f32, f64),
on shapes that exercise broadcasting, size-1 and 0-d tensors, keepdim and
batched matmul."""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from io import StringIO

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mlir import ir
from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, ModuleOp
from xdsl.printer import Printer
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
from xdsl.transforms.dead_code_elimination import DeadCodeElimination

from gradir.errors import PipelineError
from gradir.cpu_backend.cpu_runtime import CpuExecutable
from gradir.lowering.convert_autodiff_to_linalg import ConvertAutodiffToLinalgPass
from gradir.lowering.reshapes import matching_segments
from gradir.tools.autodiff_opt import AutodiffOptMain
from gradir.source import parse_module

Shape = tuple[int, ...]


@functools.cache
def _context() -> Context:
    return AutodiffOptMain(args=[]).ctx


def tensor_type(shape: Shape, dtype: str) -> str:
    return "tensor<" + "".join(f"{size}x" for size in shape) + dtype + ">"


def program(op: str, argument_types: Sequence[str], result_type: str) -> str:
    """`func.func @f(%a0, %a1, ...)` returning `%r = <op>`."""
    arguments = ", ".join(f"%a{i}: {t}" for i, t in enumerate(argument_types))
    return (
        f"func.func @f({arguments}) -> {result_type} {{\n"
        f"  %r = {op}\n"
        f"  return %r : {result_type}\n"
        "}\n"
    )


def lower(text: str) -> ModuleOp:
    module = parse_module(_context(), text, "case.mlir")
    ConvertAutodiffToLinalgPass().apply(_context(), module)
    module.verify()
    leftovers = {op.name for op in module.walk() if op.dialect_name() == "autodiff"}
    assert not leftovers, f"not lowered: {leftovers}"
    return module


def assert_mlir_verifies(module: ModuleOp) -> None:
    stream = StringIO()
    Printer(stream=stream, print_generic_format=True).print_op(module)
    with ir.Context():
        assert ir.Module.parse(stream.getvalue()).operation.verify()


# ----------------------------------------------------------------------------
# The cases: one autodiff op, its operands, and a NumPy reference
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    name: str
    op: str
    """The op's text over `%a0, %a1, ...`; `$T0`, `$T1`, ... and `$R` stand for the types."""
    argument_shapes: tuple[Shape, ...]
    result_shape: Shape
    reference: Callable[..., np.ndarray]
    positive: bool = False
    """Draw inputs from [0.5, 2.5) (for log, sqrt, pow, the divisor of div)."""
    condition_first: bool = False
    """The first argument is an i1 tensor (select's condition)."""

    def text(self, dtype: str) -> str:
        types = [tensor_type(s, dtype) for s in self.argument_shapes]
        if self.condition_first:
            types[0] = tensor_type(self.argument_shapes[0], "i1")
        result = tensor_type(self.result_shape, dtype)
        op = self.op.replace("$R", result)
        for index, argument_type in enumerate(types):
            op = op.replace(f"$T{index}", argument_type)
        return program(op, types, result)

    def inputs(self, dtype: np.dtype, seed: int = 0) -> list[np.ndarray]:
        rng = np.random.default_rng(seed)
        arrays = []
        for index, shape in enumerate(self.argument_shapes):
            if index == 0 and self.condition_first:
                arrays.append(rng.random(shape) < 0.5)
                continue
            values = rng.standard_normal(shape)
            if self.positive:
                values = np.abs(values) + 0.5
            arrays.append(np.asarray(values, dtype=dtype))
        return arrays


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


UNARY = {
    "neg": (np.negative, False),
    "exp": (np.exp, False),
    "log": (np.log, True),
    "sqrt": (np.sqrt, True),
    "rsqrt": (lambda x: 1 / np.sqrt(x), True),
    "sin": (np.sin, False),
    "cos": (np.cos, False),
    "tanh": (np.tanh, False),
    "sigmoid": (_sigmoid, False),
    "relu": (lambda x: np.maximum(x, 0), False),
    "abs": (np.abs, False),
    "stop_gradient": (lambda x: x, False),
}

BINARY = {
    "add": (np.add, False),
    "sub": (np.subtract, False),
    "mul": (np.multiply, False),
    "div": (np.divide, True),
    "pow": (np.power, True),
    "maximum": (np.maximum, False),
    "minimum": (np.minimum, False),
}

BROADCAST_PAIRS = [((4, 1, 3), (5, 3)), ((), (2, 3)), ((2, 3), ()), ((3, 1), (1, 4)), ((1,), (1,))]


def _sum_to_size(x: np.ndarray, shape: Shape) -> np.ndarray:
    x = x.sum(axis=tuple(range(x.ndim - len(shape))))
    axes = tuple(i for i, size in enumerate(shape) if size == 1 and x.shape[i] != 1)
    return x.sum(axis=axes, keepdims=True).reshape(shape)


def _softmax(x: np.ndarray, dim: int) -> np.ndarray:
    exp = np.exp(x - x.max(axis=dim, keepdims=True))
    return exp / exp.sum(axis=dim, keepdims=True)


def _reduced_shape(shape: Shape, dims: Sequence[int] | None, keepdim: bool) -> Shape:
    reduced = set(range(len(shape)) if dims is None else dims)
    if keepdim:
        return tuple(1 if i in reduced else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in reduced)


def _cases() -> list[Case]:
    cases = []
    for name, (fn, positive) in UNARY.items():
        for shape in [(3, 4), (), (2, 1, 5)]:
            cases.append(
                Case(f"{name}-{shape}", f"autodiff.{name} %a0 : $T0", (shape,), shape, fn, positive)
            )
    for name, (fn, positive) in BINARY.items():
        for lhs, rhs in BROADCAST_PAIRS + [((2, 3), (2, 3))]:
            result = np.broadcast_shapes(lhs, rhs)
            op = f"autodiff.{name} %a0, %a1 : ($T0, $T1) -> $R"
            cases.append(Case(f"{name}-{lhs}-{rhs}", op, (lhs, rhs), result, fn, positive))
    for shapes in [((5, 1), (5, 3), (3,)), ((), (2, 2), (2, 2)), ((2, 3), (), (1, 3))]:
        op = "autodiff.select %a0, %a1, %a2 : ($T0, $T1, $T2) -> $R"
        result = np.broadcast_shapes(*shapes)
        cases.append(Case(f"select-{shapes}", op, shapes, result, np.where, condition_first=True))
    for lhs, rhs in [((4, 5), (5, 3)), ((2, 4, 5), (2, 5, 3)), ((1, 1), (1, 1))]:
        result = np.broadcast_shapes(lhs[:-2], rhs[:-2]) + (lhs[-2], rhs[-1])
        op = "autodiff.matmul %a0, %a1 : ($T0, $T1) -> $R"
        cases.append(Case(f"matmul-{lhs}-{rhs}", op, (lhs, rhs), result, np.matmul))
    for shape, perm in [((2, 3, 4), (2, 0, 1)), ((3, 4), (1, 0)), ((2, 3), (0, 1))]:
        result = tuple(shape[p] for p in perm)
        op = f"autodiff.transpose %a0 {{permutation = array<i64: {', '.join(map(str, perm))}>}} : $T0 -> $R"
        cases.append(
            Case(f"transpose-{shape}-{perm}", op, (shape,), result, lambda x, p=perm: x.transpose(p))
        )
    for source, target in [
        ((2, 3, 4), (6, 4)), ((2, 3, 4), (2, 1, 3, 4)), ((2, 3, 4), (3, 8)), ((6,), (2, 3)),
        ((), (1, 1)), ((1, 1), ()), ((1, 6), (3, 2, 1)), ((4, 1, 3), (2, 6)), ((2, 3), (2, 3)),
    ]:  # fmt: skip
        cases.append(
            Case(
                f"reshape-{source}-{target}",
                "autodiff.reshape %a0 : $T0 -> $R",
                (source,),
                target,
                lambda x, t=target: x.reshape(t),
            )
        )
    for source, target in [((3, 1), (2, 3, 4)), ((), (2, 2)), ((4,), (3, 4)), ((1,), (5,)), ((2, 2), (2, 2))]:
        cases.append(
            Case(
                f"broadcast_to-{source}-{target}",
                "autodiff.broadcast_to %a0 : $T0 -> $R",
                (source,),
                target,
                lambda x, t=target: np.broadcast_to(x, t),
            )
        )
    for source, target in [((2, 3, 4), (3, 1)), ((2, 3, 4), (4,)), ((2, 3, 4), ()), ((2, 3, 4), (1, 1, 1)), ((5,), (1,)), ((3, 4), (3, 4))]:
        cases.append(
            Case(
                f"sum_to_size-{source}-{target}",
                "autodiff.sum_to_size %a0 : $T0 -> $R",
                (source,),
                target,
                lambda x, t=target: _sum_to_size(x, t),
            )
        )
    reductions = {"sum": np.sum, "mean": np.mean, "max": np.max}
    for name, fn in reductions.items():
        for shape, dims, keepdim in [
            ((2, 3, 4), None, False), ((2, 3, 4), (1,), True), ((2, 3, 4), (0, 2), False),
            ((2, 3, 4), (0, 2), True), ((2, 3, 4), None, True), ((), None, False), ((5,), (0,), False),
        ]:  # fmt: skip
            properties = []
            if dims is not None:
                properties.append(f"dims = array<i64: {', '.join(map(str, dims))}>")
            if keepdim:
                properties.append("keepdim = true")
            attributes = f" {{{', '.join(properties)}}}" if properties else ""
            axis = None if dims is None else tuple(dims)
            cases.append(
                Case(
                    f"{name}-{shape}-{dims}-{keepdim}",
                    f"autodiff.{name} %a0{attributes} : $T0 -> $R",
                    (shape,),
                    _reduced_shape(shape, dims, keepdim),
                    lambda x, f=fn, a=axis, k=keepdim: f(x, axis=a, keepdims=k),
                )
            )
    for shape, dim in [((2, 3), 0), ((2, 3), 1), ((4,), 0), ((2, 3, 4), 1)]:
        for name, fn in [("softmax", _softmax), ("log_softmax", lambda x, d: np.log(_softmax(x, d)))]:
            cases.append(
                Case(
                    f"{name}-{shape}-{dim}",
                    f"autodiff.{name} %a0 {{dim = {dim} : i64}} : $T0",
                    (shape,),
                    shape,
                    lambda x, f=fn, d=dim: f(x, d),
                )
            )
    return cases


CASES = _cases()
TOLERANCES = {
    "f16": dict(rtol=1e-3, atol=1e-3),
    "f32": dict(rtol=2e-5, atol=2e-6),
    "f64": dict(rtol=1e-12, atol=1e-13),
}
NUMPY_DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64}


@pytest.mark.parametrize("dtype", ["f16", "bf16", "f32", "f64"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_lowering_verifies_in_mlir(case: Case, dtype: str):
    """Straight out of the pass, and after the cleanups of the `linalg` pipeline."""
    module = lower(case.text(dtype))
    assert_mlir_verifies(module)
    for cleanup in (CanonicalizePass(), CommonSubexpressionElimination(), DeadCodeElimination()):
        cleanup.apply(_context(), module)
    assert_mlir_verifies(module)


@pytest.mark.parametrize("dtype", ["f16", "f32", "f64"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_lowering_matches_numpy(case: Case, dtype: str):
    inputs = case.inputs(np.dtype(NUMPY_DTYPES[dtype]))
    (result,) = CpuExecutable(lower(case.text(dtype))).call("f", *inputs)
    expected = case.reference(*[x if x.dtype == np.bool_ else x.astype(np.float64) for x in inputs])
    assert result.shape == case.result_shape
    np.testing.assert_allclose(result, expected, **TOLERANCES[dtype])


def test_every_forward_op_has_a_case():
    from gradir.dialects.autodiff import FORWARD_OPS

    assert {op.name for op in FORWARD_OPS} <= {case.op.split()[0] for case in CASES}


# ----------------------------------------------------------------------------
# Numerics beyond one op
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["f32", "f64"])
def test_softmax_is_stable_for_large_logits(dtype):
    """exp(1000) overflows; subtracting the max first keeps softmax finite."""
    logits_type = tensor_type((3, 5), dtype)
    text = program(f"autodiff.softmax %a0 {{dim = 1 : i64}} : {logits_type}", [logits_type], logits_type)
    logits = (np.random.default_rng(1).standard_normal((3, 5)) * 1000).astype(NUMPY_DTYPES[dtype])
    (result,) = CpuExecutable(lower(text)).call("f", logits)
    assert np.all(np.isfinite(result))
    np.testing.assert_allclose(result, _softmax(logits.astype(np.float64), 1), rtol=1e-5, atol=1e-7)


def test_half_precision_sums_accumulate_in_f32():
    """In f16, 2048 + 1 rounds back to 2048: an f16 accumulator would stop there."""
    text = program("autodiff.sum %a0 : tensor<4096xf16> -> tensor<f16>", ["tensor<4096xf16>"], "tensor<f16>")
    (total,) = CpuExecutable(lower(text)).call("f", np.ones(4096, np.float16))
    assert total == 4096


def test_autograd_add_and_zero_values():
    text = """
    func.func @f(%g: tensor<2x3xf64>, %h: tensor<3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>) {
      %z = autodiff.autograd_zero : tensor<2x3xf64>
      %b = autodiff.broadcast_to %h : tensor<3xf64> -> tensor<2x3xf64>
      %0 = autodiff.autograd_add %g, %z : tensor<2x3xf64>
      %1 = autodiff.autograd_add %0, %b : tensor<2x3xf64>
      return %0, %1, %z : tensor<2x3xf64>, tensor<2x3xf64>, tensor<2x3xf64>
    }
    """
    g, h = np.arange(6.0).reshape(2, 3), np.array([10.0, 20.0, 30.0])
    same, total, zero = CpuExecutable(lower(text)).call("f", g, h)
    np.testing.assert_array_equal(same, g)
    np.testing.assert_array_equal(total, g + h)
    np.testing.assert_array_equal(zero, np.zeros((2, 3)))


def test_zero_that_only_feeds_additions_is_never_materialised():
    text = """
    func.func @f(%g: tensor<4xf32>) -> tensor<4xf32> {
      %z = autodiff.autograd_zero : tensor<4xf32>
      %0 = autodiff.autograd_add %z, %g : tensor<4xf32>
      %1 = autodiff.autograd_add %0, %z : tensor<4xf32>
      return %1 : tensor<4xf32>
    }
    """
    function = lower(text).body.block.first_op
    assert [op.name for op in function.walk()] == ["func.func", "func.return"]


def test_a_gradient_zero_outside_a_slice_is_added_on_the_slice_alone():
    text = """
    func.func @f(%acc: tensor<5x3xf64>, %g: tensor<3xf64>, %s: f64, %i: index) -> tensor<5x3xf64> {
      %zero = arith.constant dense<0.0> : tensor<5x3xf64>
      %row = tensor.insert_slice %g into %zero[%i, 0] [1, 3] [1, 1] : tensor<3xf64> into tensor<5x3xf64>
      %0 = autodiff.autograd_add %acc, %row : tensor<5x3xf64>
      %c2 = arith.constant 2 : index
      %element = tensor.insert %s into %zero[%i, %c2] : tensor<5x3xf64>
      %1 = autodiff.autograd_add %element, %0 : tensor<5x3xf64>
      return %1 : tensor<5x3xf64>
    }
    """
    module = lower(text)
    adds = [op for op in module.walk() if op.name == "linalg.generic"]
    assert [add.results[0].type.get_shape() for add in adds] == [(3,)]  # the row; the element is an addf
    acc, g = np.arange(15.0).reshape(5, 3), np.array([10.0, 20.0, 30.0])
    (total,) = CpuExecutable(module).call("f", acc, g, 100.0, 3)
    expected = acc.copy()
    expected[3] += g
    expected[3, 2] += 100.0
    np.testing.assert_array_equal(total, expected)


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_broadcasting_add_matches_numpy(data):
    """Random NumPy-compatible shape pairs: each dim of each side is the result's or 1,
    and either side may lack leading dims."""
    result = data.draw(st.lists(st.integers(1, 4), min_size=0, max_size=4).map(tuple))
    shapes = []
    for _ in range(2):
        rank = data.draw(st.integers(0, len(result)))
        tail = result[len(result) - rank :]
        shapes.append(tuple(size if data.draw(st.booleans()) else 1 for size in tail))
    lhs, rhs = shapes
    full = np.broadcast_shapes(lhs, rhs)
    op = f"autodiff.add %a0, %a1 : ({tensor_type(lhs, 'f64')}, {tensor_type(rhs, 'f64')}) -> {tensor_type(full, 'f64')}"
    text = program(op, [tensor_type(lhs, "f64"), tensor_type(rhs, "f64")], tensor_type(full, "f64"))
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(lhs), rng.standard_normal(rhs)
    (result_array,) = CpuExecutable(lower(text)).call("f", x, y)
    np.testing.assert_array_equal(result_array, x + y)


def _factorizations(count: int) -> st.SearchStrategy[Shape]:
    """Shapes with `count` elements, size-1 dims sprinkled in."""

    @st.composite
    def draw(draw_) -> Shape:
        sizes, rest = [], count
        while rest > 1:
            divisors = [d for d in range(2, rest + 1) if rest % d == 0]
            size = draw_(st.sampled_from(divisors))
            sizes.append(size)
            rest //= size
        for _ in range(draw_(st.integers(0, 2))):
            sizes.insert(draw_(st.integers(0, len(sizes))), 1)
        return tuple(draw_(st.permutations(sizes)))

    return draw()


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_reshape_matches_numpy(data):
    count = data.draw(st.sampled_from([1, 6, 12, 24]))
    source = data.draw(_factorizations(count))
    target = data.draw(_factorizations(count))
    op = f"autodiff.reshape %a0 : {tensor_type(source, 'f32')} -> {tensor_type(target, 'f32')}"
    text = program(op, [tensor_type(source, "f32")], tensor_type(target, "f32"))
    module = lower(text)
    assert_mlir_verifies(module)
    x = np.arange(count, dtype=np.float32).reshape(source)
    (result,) = CpuExecutable(module).call("f", x)
    np.testing.assert_array_equal(result, x.reshape(target))


# ----------------------------------------------------------------------------
# Structure
# ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source, target, expected",
    [
        ((2, 3, 4), (6, 4), ([[0, 1], [2]], [[0], [1]])),
        ((6, 4), (2, 3, 4), ([[0], [1]], [[0, 1], [2]])),
        ((2, 1, 3), (2, 3), ([[0, 1], [2]], [[0], [1]])),
        ((1, 6), (6,), ([[0, 1]], [[0]])),
        ((1, 2), (1, 2), ([[0], [1]], [[0], [1]])),
        ((3,), (1, 3, 1), ([[0]], [[0, 1, 2]])),
        ((2, 3, 4), (3, 8), ([[0, 1, 2]], [[0, 1]])),
        ((2, 3), (4,), None),
    ],
)
def test_matching_segments(source, target, expected):
    assert matching_segments(source, target) == expected


def test_lowered_ops_keep_the_source_location():
    text = program("autodiff.softmax %a0 {dim = 0 : i64} : tensor<4xf32>", ["tensor<4xf32>"], "tensor<4xf32>")
    function = lower(text).body.block.first_op
    lines = {
        op.location.line.data
        for op in function.walk()
        if op.name not in ("func.func", "func.return")
    }
    assert lines == {2}
    assert all(
        isinstance(op.location, FileLineColLoc)
        for op in function.walk()
        if op.name not in ("func.func", "func.return")
    )


@pytest.mark.parametrize(
    "entry, pass_name",
    [
        ("%r:2 = autodiff.vjp @g(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)", "autodiff-reverse"),
        ("%r:2 = autodiff.jvp @g(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)", "autodiff-forward"),
    ],
)
def test_entry_ops_are_rejected_with_their_location(entry, pass_name):
    text = (
        "func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {\n  return %x : tensor<4xf32>\n}\n"
        "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        f"  {entry}\n"
        "  return %r#1 : tensor<4xf32>\n}\n"
    )
    module = parse_module(_context(), text, "entry.mlir")
    with pytest.raises(PipelineError) as raised:
        ConvertAutodiffToLinalgPass().apply(_context(), module)
    op_name = entry.split()[2]
    assert str(raised.value) == (
        f"entry.mlir:5:3: error: '{op_name}' must be removed by {pass_name} "
        "before convert-autodiff-to-linalg"
    )
