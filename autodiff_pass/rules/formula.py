"""The formula language of `derivatives.yaml`: parse, check, analyse, emit.

A formula is one expression in Python syntax over identifiers (inputs,
`grad`/`grads[i]`, `result`/`results[i]`, the op's properties, `x_p`/`x_t` in
forward formulas), numbers, int lists and calls of the functions in
`FUNCTIONS`: the autodiff dialect's forward ops by name plus a few helpers.
`+ - * / **` and unary `-` are spelled-out calls of add/sub/mul/div/pow/neg.

Formulas are checked once, when the rule file loads (`check_formula`): every
name must exist and every argument must have the right kind. The same pass
records which identifiers are read *by value*; an argument that is only used
for its static shape (the `like` of `sum_to_size(grad, x)`) is not a read,
so `add` saves nothing while `mul` saves both inputs.

`Emitter` turns a formula into ops with an xDSL `Builder`. In forward
formulas a tangent may be `Zero` (an inactive input): sums drop zero terms,
`select` materialises a zero branch, and every other function is linear in
its tangent argument (tangent formulas are), so a zero argument gives zero.
"""
from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import NoReturn, Union

from xdsl.builder import Builder
from xdsl.dialects import arith, math, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.dialects.linalg.ops import YieldOp as LinalgYieldOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from gradir.dialects import autodiff
from gradir.dialects.shape_rules import broadcast_shapes, element_count, reduced_shape
from gradir.dialects.type_checks import FLOAT_ELEMENT_TYPES, tensor_type


class FormulaError(Exception):
    """A formula that does not parse or check; the loader adds where it is."""


class Kind(Enum):
    """What an expression denotes; checked at load time."""

    TENSOR = "a tensor"
    NUMBER = "a number"
    INTS = "an int list"
    INT = "an int"
    BOOL = "a bool"


# ----------------------------------------------------------------------------
# Syntax
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Name:
    id: str


@dataclass(frozen=True)
class Indexed:
    """`grads[i]` or `results[i]`."""

    base: str
    index: int


@dataclass(frozen=True)
class Number:
    value: float


@dataclass(frozen=True)
class IntList:
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class Call:
    function: str
    args: tuple[Expr, ...]
    keywords: tuple[tuple[str, Expr], ...] = ()


Expr = Union[Name, Indexed, Number, IntList, Call]

_INFIX = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.Pow: "pow"}


def parse_formula(text: str, bindings: Mapping[str, Expr] = {}) -> Expr:
    """Parse `text`; identifiers bound in `bindings` (an entry's `let`) are
    replaced by their expressions."""
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as error:
        raise FormulaError(f"syntax error in '{text.strip()}': {error.msg}") from None
    return _convert(tree, bindings)


def _convert(node: ast.expr, bindings: Mapping[str, Expr]) -> Expr:
    if isinstance(node, ast.Name):
        return bindings.get(node.id, Name(node.id))
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool):
            return Name("true" if node.value else "false")
        if isinstance(node.value, (int, float)):
            return Number(float(node.value))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand = _convert(node.operand, bindings)
        if isinstance(node.op, ast.UAdd):
            return operand
        return Number(-operand.value) if isinstance(operand, Number) else Call("neg", (operand,))
    if isinstance(node, ast.BinOp) and type(node.op) in _INFIX:
        operands = (_convert(node.left, bindings), _convert(node.right, bindings))
        return Call(_INFIX[type(node.op)], operands)
    if isinstance(node, ast.List):
        return IntList(tuple(_convert(item, bindings) for item in node.elts))
    if (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and isinstance(node.slice, ast.Constant)
        and type(node.slice.value) is int
    ):
        return Indexed(node.value.id, node.slice.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if any(keyword.arg is None for keyword in node.keywords):
            raise FormulaError(f"'**' arguments are not supported in '{ast.unparse(node)}'")
        return Call(
            node.func.id,
            tuple(_convert(arg, bindings) for arg in node.args),
            tuple((kw.arg, _convert(kw.value, bindings)) for kw in node.keywords),  # type: ignore[misc]
        )
    raise FormulaError(f"unsupported syntax '{ast.unparse(node)}'")


# ----------------------------------------------------------------------------
# Values during emission
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Zero:
    """A zero tangent; `type` is known for an input's tangent, None for derived ones."""

    type: Attribute | None = None


Value = Union[SSAValue, Zero, float, tuple, int, bool]


def _shape(value: SSAValue | Zero) -> tuple[int, ...]:
    type_ = value.type
    if not isinstance(type_, TensorType):
        raise FormulaError(f"expected a tensor, got {type_}")
    return tuple(type_.get_shape())


def _element_type(value: SSAValue) -> Attribute:
    assert isinstance(value.type, TensorType)
    return value.type.element_type


def _tensor_like(value: SSAValue, shape: tuple[int, ...]) -> TensorType:
    return tensor_type(_element_type(value), shape)


# ----------------------------------------------------------------------------
# Functions
# ----------------------------------------------------------------------------

_REQUIRED = object()


@dataclass(frozen=True)
class Param:
    name: str
    kind: Kind = Kind.TENSOR
    shape_only: bool = False
    """A tensor read only for its static shape: not a saved value."""
    literal: bool = False
    """A number may stand here; it becomes a constant of a sibling tensor's type."""
    default: object = _REQUIRED


@dataclass(frozen=True)
class Function:
    params: tuple[Param, ...]
    emit: Callable[..., Value]
    """`emit(emitter, *arguments)`, the arguments in parameter order."""
    result: Kind = Kind.TENSOR
    zeros: str = "linear"
    """How zero tangents pass: "linear" (any zero argument gives zero),
    "add"/"sub" (zero terms drop), "select" (a zero branch is materialised),
    "none" (a tangent must not reach this function)."""
    any_shape: bool = False
    """`emit` handles float scalars as well as tensors (the op it emits is
    elementwise in MLIR: math ops, integer helpers), so no scalar form is needed."""


X, LIKE = Param("x"), Param("like", shape_only=True)
LITERAL_PAIR = (Param("x", literal=True), Param("y", literal=True))
Tensor = Union[SSAValue, Zero]
"""A shape-only argument may be a zero tangent: it still has a type."""


def _op(op_class: type[Operation], params: tuple[Param, ...] = (X,), zeros: str = "linear"):
    """A forward op whose constructor takes exactly the formula's arguments."""
    return Function(params, lambda e, *args: e.insert(op_class(*args)), zeros=zeros)


def _select(e: Emitter, cond: SSAValue, a: SSAValue, b: SSAValue) -> Value:
    """Per element (`autodiff.select`), or of whole tensors on one `i1`: `arith.select`
    takes both, and canonicalization makes an `scf.if` yielding tensors the latter."""
    if not isinstance(cond.type, TensorType):
        return e.insert(arith.SelectOp(cond, a, b))
    return e.insert(autodiff.SelectOp(cond, a, b))


def _reduction(op_class: type[Operation]) -> Function:
    def emit(e: Emitter, x: SSAValue, dims: tuple[int, ...] | None, keepdim: bool) -> Value:
        return e.insert(op_class(x, None if dims is None else list(dims), keepdim))

    dims, keepdim = Param("dims", Kind.INTS, default=None), Param("keepdim", Kind.BOOL, default=False)
    return Function((X, dims, keepdim), emit)


def _reshaping(op_class: type[Operation]) -> Function:
    """reshape / broadcast_to / sum_to_size to `like`'s shape; nothing is
    emitted when the shapes already match."""

    def emit(e: Emitter, x: SSAValue, like: Tensor) -> Value:
        shape = _shape(like)
        return x if _shape(x) == shape else e.insert(op_class(x, _tensor_like(x, shape)))

    return Function((X, LIKE), emit)


def _compare(predicate: str) -> Function:
    return Function(
        LITERAL_PAIR, lambda e, x, y: e.compare(predicate, x, y), zeros="none"
    )


def _matrix_transpose(e: Emitter, x: SSAValue) -> Value:
    rank = len(_shape(x))
    return e.insert(autodiff.TransposeOp(x, [*range(rank - 2), rank - 1, rank - 2]))


def _expand_reduced(
    e: Emitter, x: SSAValue, like: Tensor, dims: tuple[int, ...], keepdim: bool
) -> Value:
    """Undo a reduction's shape change: put the reduced dims back as size 1
    (unless keepdim) and broadcast to `like`'s shape."""
    target = _shape(like)
    kept = reduced_shape(target, dims, True)
    if not keepdim and _shape(x) != kept:
        x = e.insert(autodiff.ReshapeOp(x, _tensor_like(x, kept)))
    if kept != target:
        x = e.insert(autodiff.BroadcastToOp(x, _tensor_like(x, target)))
    return x


def _reduced_count(e: Emitter, like: Tensor, dims: tuple[int, ...]) -> Value:
    shape = _shape(like)
    return float(element_count([shape[d] for d in dims]))


def _inverse_permutation(e: Emitter, permutation: tuple[int, ...]) -> Value:
    return tuple(permutation.index(axis) for axis in range(len(permutation)))


def _math(op_class: type[Operation], params: tuple[Param, ...] = (X,)) -> Function:
    """A math op that is the same op on tensors and on float scalars (MLIR's math
    ops are elementwise); its own rule in derivatives.yaml differentiates it."""
    return Function(params, lambda e, *args: e.insert(op_class(*args)), any_shape=True)


def _integer_constant(e: Emitter, type_: Attribute, value: int) -> SSAValue:
    element = type_.element_type if isinstance(type_, TensorType) else type_
    if not isinstance(element, IntegerType):
        raise FormulaError(f"expected an integer operand, got {type_}")
    attr = (
        DenseIntOrFPElementsAttr.from_list(type_, [value])
        if isinstance(type_, TensorType)
        else IntegerAttr(value, element)
    )
    return e.insert(arith.ConstantOp(attr))


def _int_add(e: Emitter, n: SSAValue, k: float) -> Value:
    """Integer `n + k` (`k` an int literal), for exponents: `fpowi(x, int_add(n, -1))`."""
    if not float(k).is_integer():
        raise FormulaError(f"int_add needs an integer, got {k}")
    return e.insert(arith.AddiOp(n, _integer_constant(e, n.type, int(k))))


def _to_float(e: Emitter, n: SSAValue, like: Tensor) -> Value:
    """Integer `n` (signed) converted to the float element type of `like`:
    `arith.sitofp` on scalars, inside a `linalg.generic` on tensors (xDSL 0.74's
    `arith.sitofp` only verifies on scalars)."""
    element = like.type.element_type if isinstance(like.type, TensorType) else like.type
    if not isinstance(n.type, TensorType):
        return e.insert(arith.SIToFPOp(n, element))  # type: ignore[arg-type]
    return e.map_elements([n], element, lambda args: arith.SIToFPOp(args[0], element))  # type: ignore[arg-type]


def _constant_like(value: float) -> Function:
    return Function((LIKE,), lambda e, like: e.constant(like.type, value))


def is_scalar(value: object) -> bool:
    """A float scalar SSA value (an element inside a `linalg.generic` body)."""
    return isinstance(value, SSAValue | Zero) and isinstance(value.type, FLOAT_ELEMENT_TYPES)


SCALAR_OPS: dict[str, Callable[..., Operation]] = {
    "neg": arith.NegfOp, "exp": math.ExpOp, "log": math.LogOp, "sqrt": math.SqrtOp,
    "rsqrt": math.RsqrtOp, "sin": math.SinOp, "cos": math.CosOp, "tanh": math.TanhOp,
    "abs": math.AbsFOp, "add": arith.AddfOp, "sub": arith.SubfOp, "mul": arith.MulfOp,
    "div": arith.DivfOp, "pow": math.PowFOp, "maximum": arith.MaximumfOp,
    "minimum": arith.MinimumfOp,
}  # fmt: skip
"""The arith/math op a function is on float scalars."""

COMPARISONS = {"gt": "ogt", "ge": "oge", "lt": "olt", "le": "ole", "eq": "oeq", "ne": "une"}


def _cast(e: Emitter, x: SSAValue, like: Tensor) -> Value:
    """`x` converted (`arith.extf`/`arith.truncf`) to the element type of `like`."""
    source = x.type.element_type if isinstance(x.type, TensorType) else x.type
    target_element = like.type.element_type if isinstance(like.type, TensorType) else like.type
    if source == target_element:
        return x
    if isinstance(x.type, TensorType):
        target: Attribute = tensor_type(target_element, x.type.get_shape())
    else:
        target = target_element
    widen = source.bitwidth < target_element.bitwidth  # type: ignore[union-attr]
    return e.insert(arith.ExtFOp(x, target) if widen else arith.TruncFOp(x, target))


FUNCTIONS: dict[str, Function] = {
    "neg": _op(autodiff.NegOp), "exp": _op(autodiff.ExpOp), "log": _op(autodiff.LogOp),
    "sqrt": _op(autodiff.SqrtOp), "rsqrt": _op(autodiff.RsqrtOp), "sin": _op(autodiff.SinOp),
    "cos": _op(autodiff.CosOp), "tanh": _op(autodiff.TanhOp),
    "sigmoid": _op(autodiff.SigmoidOp), "relu": _op(autodiff.ReluOp), "abs": _op(autodiff.AbsOp),
    "add": _op(autodiff.AddOp, LITERAL_PAIR, "add"),
    "sub": _op(autodiff.SubOp, LITERAL_PAIR, "sub"),
    "mul": _op(autodiff.MulOp, LITERAL_PAIR),
    "div": _op(autodiff.DivOp, LITERAL_PAIR),
    "pow": _op(autodiff.PowOp, LITERAL_PAIR),
    "maximum": _op(autodiff.MaximumOp, LITERAL_PAIR),
    "minimum": _op(autodiff.MinimumOp, LITERAL_PAIR),
    "matmul": _op(autodiff.MatmulOp, (Param("a"), Param("b"))),
    "transpose": Function(
        (X, Param("permutation", Kind.INTS)),
        lambda e, x, permutation: e.insert(autodiff.TransposeOp(x, permutation)),
    ),
    "matrix_transpose": Function((X,), _matrix_transpose),
    "reshape": _reshaping(autodiff.ReshapeOp),
    "broadcast_to": _reshaping(autodiff.BroadcastToOp),
    "sum_to_size": _reshaping(autodiff.SumToSizeOp),
    "sum": _reduction(autodiff.SumOp),
    "mean": _reduction(autodiff.MeanOp),
    "max": _reduction(autodiff.MaxOp),
    "softmax": _op(autodiff.SoftmaxOp, (X, Param("dim", Kind.INT))),
    "log_softmax": _op(autodiff.LogSoftmaxOp, (X, Param("dim", Kind.INT))),
    "select": Function(
        (Param("cond"), Param("a", literal=True), Param("b", literal=True)), _select, zeros="select"
    ),
    "gt": _compare("ogt"), "ge": _compare("oge"), "lt": _compare("olt"),
    "le": _compare("ole"), "eq": _compare("oeq"), "ne": _compare("une"),
    "cast": Function((X, LIKE), _cast),
    "zeros_like": _constant_like(0.0),
    "ones_like": _constant_like(1.0),
    "full_like": Function(
        (LIKE, Param("value", Kind.NUMBER)), lambda e, like, value: e.constant(like.type, value)
    ),
    "expand_reduced": Function(
        (X, LIKE, Param("dims", Kind.INTS), Param("keepdim", Kind.BOOL)), _expand_reduced
    ),
    "reduced_count": Function((LIKE, Param("dims", Kind.INTS)), _reduced_count, Kind.NUMBER),
    "inverse_permutation": Function(
        (Param("permutation", Kind.INTS),), _inverse_permutation, Kind.INTS
    ),
    # math ops with no autodiff op, emitted as themselves on tensors and scalars
    "sinh": _math(math.SinhOp), "cosh": _math(math.CoshOp), "trunc": _math(math.TruncOp),
    "fpowi": _math(math.FPowIOp, (X, Param("n"))),
    "int_add": Function((Param("n"), Param("k", Kind.NUMBER)), _int_add, any_shape=True),
    "to_float": Function((Param("n"), LIKE), _to_float, any_shape=True),
}  # fmt: skip
"""Every function a formula may call, by name."""


def _bind(call: Call) -> dict[str, Expr | None]:
    """Match a call's arguments to its function's parameters (None: default)."""
    function = FUNCTIONS.get(call.function)
    if function is None:
        raise FormulaError(f"unknown function '{call.function}'")
    names = [param.name for param in function.params]
    if len(call.args) > len(names):
        plural = "" if len(names) == 1 else "s"
        raise FormulaError(
            f"'{call.function}' takes at most {len(names)} argument{plural}, got {len(call.args)}"
        )
    bound: dict[str, Expr | None] = dict(zip(names, call.args))
    for keyword, expr in call.keywords:
        if keyword not in names:
            raise FormulaError(f"'{call.function}' has no parameter '{keyword}'")
        if keyword in bound:
            raise FormulaError(f"'{call.function}' got parameter '{keyword}' twice")
        bound[keyword] = expr
    for param in function.params:
        if param.name not in bound:
            if param.default is _REQUIRED:
                raise FormulaError(f"'{call.function}' is missing argument '{param.name}'")
            bound[param.name] = None
    return bound


# ----------------------------------------------------------------------------
# Checking and saved-value analysis
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Scope:
    """The identifiers a formula may use and their kinds."""

    names: Mapping[str, Kind]
    indexed: Mapping[str, int]
    """`grads`/`results` and how many entries each has."""
    hints: Mapping[str, str] = field(default_factory=dict)
    """Why a tempting but invalid identifier is not available."""


def check_formula(expr: Expr, scope: Scope) -> tuple[Kind, set[str]]:
    """The kind of `expr` and the identifiers it reads by value (`grads[1]`
    and `results[0]` are reported as such strings)."""
    reads: set[str] = set()
    kind = _check(expr, scope, reads, by_value=True)
    return kind, reads


def _check(expr: Expr, scope: Scope, reads: set[str], by_value: bool) -> Kind:
    if isinstance(expr, Number):
        return Kind.NUMBER
    if isinstance(expr, Name):
        kind = scope.names.get(expr.id)
        if kind is None:
            _unknown(expr.id, scope)
        if by_value and kind is Kind.TENSOR:
            reads.add(expr.id)
        return kind
    if isinstance(expr, Indexed):
        count = scope.indexed.get(expr.base)
        if count is None:
            _unknown(expr.base, scope)
        if not 0 <= expr.index < count:
            raise FormulaError(
                f"{expr.base}[{expr.index}] is out of range: the op has {count} "
                f"{'result' if count == 1 else 'results'}"
            )
        if by_value:
            reads.add(f"{expr.base}[{expr.index}]")
        return Kind.TENSOR
    if isinstance(expr, IntList):
        for item in expr.items:
            if _check(item, scope, reads, by_value) is not Kind.INT and not (
                isinstance(item, Number) and item.value.is_integer()
            ):
                raise FormulaError("an int list may hold only ints")
        return Kind.INTS
    return _check_call(expr, scope, reads, by_value)


def _unknown(name: str, scope: Scope) -> NoReturn:
    hint = scope.hints.get(name)
    raise FormulaError(f"unknown identifier '{name}'" + (f" ({hint})" if hint else ""))


def _check_call(call: Call, scope: Scope, reads: set[str], by_value: bool) -> Kind:
    function = FUNCTIONS.get(call.function)
    bound = _bind(call)
    assert function is not None
    literal_tensor_seen, literal_numbers = False, []
    for param in function.params:
        expr = bound[param.name]
        if expr is None:
            continue
        kind = _check(expr, scope, reads, by_value and not param.shape_only)
        if param.literal and kind is Kind.NUMBER:
            literal_numbers.append(param.name)
            continue
        if param.kind is Kind.INT and kind is Kind.NUMBER and isinstance(expr, Number):
            if expr.value.is_integer():
                continue
        if kind is not param.kind:
            raise FormulaError(
                f"argument '{param.name}' of '{call.function}' must be {param.kind.value}, "
                f"got {kind.value}"
            )
        literal_tensor_seen |= param.literal
    if literal_numbers and not literal_tensor_seen:
        raise FormulaError(
            f"'{call.function}' needs a tensor operand to give its number a type"
        )
    return function.result


# ----------------------------------------------------------------------------
# Emission
# ----------------------------------------------------------------------------


class Emitter:
    """Evaluates checked formulas into ops inserted with `builder`."""

    def __init__(self, builder: Builder, environment: Mapping[str, Value]):
        self.builder = builder
        self.environment = environment
        self._emitted: dict[Call, Value] = {}
        """Calls already emitted: a `let` used twice, or by two formulas, is emitted once."""
        self._constants: dict[tuple[Attribute, float], SSAValue] = {}

    def insert(self, op: Operation) -> SSAValue:
        return self.builder.insert(op).results[0]

    def constant(self, type_: Attribute, value: float) -> SSAValue:
        """A splat `arith.constant` of tensor type `type_`, or a scalar one."""
        key = (type_, float(value))
        if key not in self._constants:
            if isinstance(type_, TensorType):
                attr = DenseIntOrFPElementsAttr.from_list(type_, [float(value)])
                self._constants[key] = self.insert(arith.ConstantOp(attr))
            elif isinstance(type_, FLOAT_ELEMENT_TYPES):
                self._constants[key] = self.insert(arith.ConstantOp(FloatAttr(float(value), type_)))
            else:
                raise FormulaError(f"a constant needs a tensor or float type, got {type_}")
        return self._constants[key]

    def compare(self, predicate: str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        """An i1 mask `lhs <predicate> rhs` (broadcasting): one `linalg.generic`
        around `arith.cmpf`, since xDSL 0.74's `arith.cmpf` only verifies on scalars."""
        if is_scalar(lhs) and is_scalar(rhs):
            return self.insert(arith.CmpfOp(lhs, rhs, predicate))
        return self.map_elements(
            [lhs, rhs], IntegerType(1), lambda args: arith.CmpfOp(args[0], args[1], predicate)
        )

    def map_elements(
        self,
        operands: Sequence[SSAValue],
        element_type: Attribute,
        scalar_op: Callable[[Sequence[SSAValue]], Operation],
    ) -> SSAValue:
        """`scalar_op` applied to each element of `operands` (NumPy broadcasting),
        as one `linalg.generic` giving a tensor of `element_type`."""
        shapes = [_shape(operand) for operand in operands]
        shape: tuple[int, ...] | None = shapes[0]
        for other in shapes[1:]:
            shape = None if shape is None else broadcast_shapes(shape, other)
        if shape is None:
            raise FormulaError(f"cannot broadcast shapes {' and '.join(map(str, shapes))}")
        result_type = tensor_type(element_type, shape)
        init = self.insert(tensor.EmptyOp([], result_type))
        body = Block(arg_types=[*[_element_type(operand) for operand in operands], element_type])
        op = scalar_op(body.args[: len(operands)])
        body.add_ops([op, LinalgYieldOp(op.results[0])])
        maps = [_broadcast_map(operand_shape, shape) for operand_shape in shapes]
        maps.append(AffineMapAttr(AffineMap.identity(len(shape))))
        generic = GenericOp(
            list(operands), [init], Region(body), maps,
            [IteratorTypeAttr.parallel()] * len(shape), [result_type],
        )  # fmt: skip
        return self.insert(generic)

    def evaluate(self, expr: Expr) -> Value:
        if isinstance(expr, Number):
            return expr.value
        if isinstance(expr, Name):
            return self.environment[expr.id]
        if isinstance(expr, Indexed):
            values = self.environment[expr.base]
            assert isinstance(values, (list, tuple))
            return values[expr.index]
        if isinstance(expr, IntList):
            return tuple(int(self.evaluate(item)) for item in expr.items)  # type: ignore[arg-type]
        if expr not in self._emitted:
            self._emitted[expr] = self._emit_call(expr)
        return self._emitted[expr]

    def _emit_call(self, call: Call) -> Value:
        function = FUNCTIONS[call.function]
        bound = _bind(call)
        arguments: dict[str, Value] = {}
        for param in function.params:
            expr = bound[param.name]
            value = param.default if expr is None else self.evaluate(expr)
            if param.kind is Kind.INT and isinstance(value, float):
                value = int(value)
            arguments[param.name] = value  # type: ignore[assignment]
        decided = self._pass_zeros(call.function, function, arguments)
        if decided is not None:
            return decided
        self._type_numbers(function, arguments)
        values = [arguments[param.name] for param in function.params]
        if not function.any_shape and any(is_scalar(v) for v in values if isinstance(v, SSAValue)):
            return self._emit_scalar(call.function, values)
        return function.emit(self, *values)

    def _emit_scalar(self, name: str, values: list[Value]) -> Value:
        """`name` on float scalars (inside a `linalg.generic` body): arith/math ops."""
        if name in SCALAR_OPS:
            return self.insert(SCALAR_OPS[name](*values))
        if name in ("reshape", "broadcast_to", "sum_to_size"):
            return values[0]
        if name in ("zeros_like", "ones_like"):
            return self.constant(values[0].type, 0.0 if name == "zeros_like" else 1.0)  # type: ignore[union-attr]
        if name == "full_like":
            return self.constant(values[0].type, values[1])  # type: ignore[arg-type, union-attr]
        if name in COMPARISONS:
            return self.compare(COMPARISONS[name], values[0], values[1])  # type: ignore[arg-type]
        if name == "select":
            return self.insert(arith.SelectOp(*values))
        if name == "sigmoid":
            x = values[0]
            one = self.constant(x.type, 1.0)  # type: ignore[union-attr]
            exp = self.insert(math.ExpOp(self.insert(arith.NegfOp(x))))
            return self.insert(arith.DivfOp(one, self.insert(arith.AddfOp(one, exp))))
        if name == "relu":
            x = values[0]
            return self.insert(arith.MaximumfOp(x, self.constant(x.type, 0.0)))  # type: ignore[union-attr]
        if name == "cast":
            return _cast(self, values[0], values[1])  # type: ignore[arg-type]
        raise FormulaError(f"'{name}' has no scalar form (it needs tensors)")

    def _pass_zeros(
        self, name: str, function: Function, arguments: dict[str, Value]
    ) -> Value | None:
        """The result when a zero tangent decides it; None to emit normally.
        A zero `select` branch is turned into the number 0 in `arguments`."""
        zeros = [
            p.name
            for p in function.params
            if not p.shape_only and isinstance(arguments[p.name], Zero)
        ]
        if not zeros:
            return None
        if function.zeros == "none":
            raise FormulaError(f"a tangent cannot flow into '{name}'")
        if function.zeros == "select":
            for branch in zeros:
                arguments[branch] = 0.0
            return Zero() if arguments["a"] == arguments["b"] == 0.0 else None
        if function.zeros in ("add", "sub") and len(zeros) == 1:
            x, y = arguments["x"], arguments["y"]
            if zeros == ["y"]:
                return x
            if function.zeros == "add" or not isinstance(y, SSAValue):
                return y
            return self.insert(arith.NegfOp(y) if is_scalar(y) else autodiff.NegOp(y))
        return Zero()

    def _type_numbers(self, function: Function, arguments: dict[str, Value]) -> None:
        """Turn each number in a literal parameter into a splat constant of the
        type of its first tensor sibling (checking made sure there is one)."""
        literal = [p.name for p in function.params if p.literal]
        tensors = [arguments[n] for n in literal if isinstance(arguments[n], SSAValue)]
        for name in literal:
            value = arguments[name]
            if isinstance(value, float):
                if not tensors:
                    raise FormulaError("a number has no tensor operand to take its type from")
                arguments[name] = self.constant(tensors[0].type, value)  # type: ignore[union-attr]


def _broadcast_map(operand: tuple[int, ...], result: tuple[int, ...]) -> AffineMapAttr:
    """The indexing map reading `operand` broadcast (NumPy rules) to `result`."""
    offset = len(result) - len(operand)
    exprs = [
        AffineExpr.constant(0) if size == 1 and result[offset + axis] != 1
        else AffineExpr.dimension(offset + axis)
        for axis, size in enumerate(operand)
    ]  # fmt: skip
    return AffineMapAttr(AffineMap(len(result), 0, tuple(exprs)))

