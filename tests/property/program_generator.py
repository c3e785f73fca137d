"""A hypothesis strategy for random well-typed autodiff programs.

`programs()` draws a `Program`: a function `@loss` (a DAG of forward ops with
fan-out, broadcasting, reductions, matmul, softmax, shape ops and select, ending
in a 0-d loss) and a function `@loss_grad` that asks for its gradient with
`autodiff.grad`. Programs are small (at most 12 forward ops, dims at most 5) so
that shrunk counterexamples are readable.

Every value carries conservative bounds (interval arithmetic over inputs in
[-1, 1]); ops with a restricted domain (log, sqrt, rsqrt, div, pow, exp) only
take operands whose bounds keep them well away from singularities, so the
programs' derivatives can be checked by finite differences.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

MAX_FORWARD_OPS = 12
"""Forward ops in `@loss`, including the ones that reduce it to a scalar."""
MAX_DIM = 5
MAX_RANK = 4
MAX_ARGUMENTS = 6
INPUT_BOUND = 1.0
"""Float arguments take values in [-INPUT_BOUND, INPUT_BOUND]."""
MAX_MAGNITUDE = 1e3
"""No value may exceed this in magnitude (keeps finite differences accurate)."""
SAFE_POSITIVE = 0.2
"""Lower bound of operands of log, sqrt, rsqrt, of denominators and of pow bases."""

Shape = tuple[int, ...]

UNARY_OPS = ("neg", "exp", "log", "sqrt", "rsqrt", "sin", "cos", "tanh", "sigmoid", "relu", "abs")
BINARY_OPS = ("add", "sub", "mul", "div", "pow", "maximum", "minimum")
REDUCTION_OPS = ("sum", "mean", "max")
OP_FAMILIES = (
    "unary", "binary", "matmul", "transpose", "reshape", "broadcast_to",
    "sum_to_size", "reduction", "softmax", "select",
)  # fmt: skip


@dataclass(frozen=True)
class Bounds:
    """A closed interval containing every element of a value."""

    lo: float
    hi: float

    @property
    def magnitude(self) -> float:
        return max(abs(self.lo), abs(self.hi))

    def scaled(self, factor: float) -> Bounds:
        """Bounds of a sum of `factor` elements each in self."""
        return Bounds(self.lo * factor, self.hi * factor)

    def union(self, other: Bounds) -> Bounds:
        return Bounds(min(self.lo, other.lo), max(self.hi, other.hi))

    def times(self, other: Bounds) -> Bounds:
        products = [a * b for a in (self.lo, self.hi) for b in (other.lo, other.hi)]
        return Bounds(min(products), max(products))


@dataclass
class Value:
    """An SSA value of `@loss`: an argument or an op result."""

    name: str
    shape: Shape
    bounds: Bounds
    is_condition: bool = False
    """An i1 argument (only used as the condition of select)."""
    uses: int = 0


def tensor_type(shape: Shape, element: str) -> str:
    return "tensor<" + "".join(f"{size}x" for size in shape) + element + ">"


def i64_array(values) -> str:
    values = list(values)
    return "array<i64: " + ", ".join(map(str, values)) + ">" if values else "array<i64>"


def broadcast(*shapes: Shape) -> Shape | None:
    """NumPy broadcast of `shapes`, None when incompatible."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        return None


def element_count(shape: Shape) -> int:
    return math.prod(shape)


@dataclass
class Program:
    """A generated program; `text()` is its `.mlir` source."""

    element: str
    arguments: list[Value]
    lines: list[str]
    loss: Value
    wrt: tuple[int, ...] | None
    """`None`: the `autodiff.grad` op has no `wrt` (every float argument)."""
    forward_ops: int = 0

    @property
    def float_arguments(self) -> list[int]:
        return [i for i, a in enumerate(self.arguments) if not a.is_condition]

    @property
    def gradient_arguments(self) -> list[int]:
        return list(self.wrt) if self.wrt is not None else self.float_arguments

    def argument_type(self, index: int) -> str:
        argument = self.arguments[index]
        return tensor_type(argument.shape, "i1" if argument.is_condition else self.element)

    def __repr__(self) -> str:
        # Hypothesis shows this for a failing example: the program itself.
        return "Program:\n" + self.text()

    def _repr_pretty_(self, printer, cycle) -> None:
        printer.text(repr(self))  # hypothesis's pretty printer uses this hook

    def text(self) -> str:
        types = [self.argument_type(i) for i in range(len(self.arguments))]
        params = ", ".join(f"{a.name}: {t}" for a, t in zip(self.arguments, types))
        scalar = tensor_type((), self.element)
        body = "".join(f"  {line}\n" for line in self.lines)
        gradient_types = [types[i] for i in self.gradient_arguments]
        results = ", ".join(gradient_types)
        count = len(gradient_types)
        names = [f"%g#{i}" for i in range(count)] if count > 1 else ["%g"]
        result_name = f"%g:{count}" if count > 1 else "%g"
        wrt = "" if self.wrt is None else f" {{wrt = {i64_array(self.wrt)}}}"
        arguments = ", ".join(a.name for a in self.arguments)
        return (
            f"func.func @loss({params}) -> {scalar} {{\n"
            f"{body}"
            f"  func.return {self.loss.name} : {scalar}\n"
            "}\n"
            f"func.func @loss_grad({params}) -> ({results}) {{\n"
            f"  {result_name} = autodiff.grad @loss({arguments}){wrt} : "
            f"({', '.join(types)}) -> ({results})\n"
            f"  func.return {', '.join(names)} : {results}\n"
            "}\n"
        )

    def inputs(self, seed: int = 0) -> list[np.ndarray]:
        """Arguments inside the bounds the generator assumed."""
        rng = np.random.default_rng(seed)
        dtype = np.float64 if self.element == "f64" else np.float32
        arrays = []
        for argument in self.arguments:
            if argument.is_condition:
                arrays.append(rng.integers(0, 2, size=argument.shape).astype(np.bool_))
            else:
                values = rng.uniform(-INPUT_BOUND, INPUT_BOUND, size=argument.shape)
                arrays.append(values.astype(dtype))
        return arrays


def unary_bounds(op: str, x: Bounds) -> Bounds | None:
    """Bounds of `op(x)`, or None when `x` is outside the op's safe domain."""
    if op == "neg":
        return Bounds(-x.hi, -x.lo)
    if op == "exp":
        return Bounds(math.exp(x.lo), math.exp(x.hi)) if x.magnitude <= 3 else None
    if op in ("log", "sqrt", "rsqrt"):
        if x.lo < SAFE_POSITIVE:
            return None
        if op == "log":
            return Bounds(math.log(x.lo), math.log(x.hi))
        if op == "sqrt":
            return Bounds(math.sqrt(x.lo), math.sqrt(x.hi))
        return Bounds(1 / math.sqrt(x.hi), 1 / math.sqrt(x.lo))
    if op in ("sin", "cos"):
        return Bounds(-1.0, 1.0)
    if op == "tanh":
        return Bounds(math.tanh(x.lo), math.tanh(x.hi))
    if op == "sigmoid":
        return Bounds(_sigmoid(x.lo), _sigmoid(x.hi))
    if op == "relu":
        return Bounds(max(x.lo, 0.0), max(x.hi, 0.0))
    if op == "abs":
        if x.lo >= 0:
            return x
        if x.hi <= 0:
            return Bounds(-x.hi, -x.lo)
        return Bounds(0.0, x.magnitude)
    raise ValueError(op)


def binary_bounds(op: str, x: Bounds, y: Bounds) -> Bounds | None:
    """Bounds of `op(x, y)`, or None outside the safe domain."""
    if op == "add":
        return Bounds(x.lo + y.lo, x.hi + y.hi)
    if op == "sub":
        return Bounds(x.lo - y.hi, x.hi - y.lo)
    if op == "mul":
        return x.times(y)
    if op == "div":
        return x.times(Bounds(1 / y.hi, 1 / y.lo)) if y.lo >= SAFE_POSITIVE else None
    if op == "pow":
        if x.lo < SAFE_POSITIVE or x.hi > 10 or y.magnitude > 2:
            return None
        exponent = y.times(Bounds(math.log(x.lo), math.log(x.hi)))
        return Bounds(math.exp(exponent.lo), math.exp(exponent.hi))
    if op == "maximum":
        return Bounds(max(x.lo, y.lo), max(x.hi, y.hi))
    if op == "minimum":
        return Bounds(min(x.lo, y.lo), min(x.hi, y.hi))
    raise ValueError(op)


def _sigmoid(v: float) -> float:
    return 1 / (1 + math.exp(-v)) if v > -700 else 0.0


def within_limits(bounds: Bounds | None) -> bool:
    return bounds is not None and bounds.magnitude <= MAX_MAGNITUDE


class ProgramBuilder:
    """Builds one program from hypothesis draws; each `add_*` method appends an op."""

    def __init__(self, draw, element: str):
        self.draw = draw
        self.element = element
        self.arguments: list[Value] = []
        self.values: list[Value] = []
        self.lines: list[str] = []
        self.forward_ops = 0

    # -- values ----------------------------------------------------------------

    def type_of(self, value: Value) -> str:
        return tensor_type(value.shape, "i1" if value.is_condition else self.element)

    def new_argument(self, shape: Shape, condition: bool = False) -> Value:
        prefix = "%c" if condition else "%a"
        name = f"{prefix}{len(self.arguments)}"
        value = Value(name, shape, Bounds(-INPUT_BOUND, INPUT_BOUND), is_condition=condition)
        self.arguments.append(value)
        if not condition:
            self.values.append(value)
        return value

    def can_add_argument(self) -> bool:
        return len(self.arguments) < MAX_ARGUMENTS

    def pick(self, candidates: list[Value]) -> Value:
        """One of `candidates`; reusing values is what gives the DAG its fan-out."""
        value = self.draw(st.sampled_from(candidates))
        value.uses += 1
        return value

    def emit(self, text: str, shape: Shape, bounds: Bounds) -> Value:
        value = Value(f"%v{self.forward_ops}", shape, bounds)
        self.lines.append(f"{value.name} = {text}")
        self.values.append(value)
        self.forward_ops += 1
        return value

    def draw_shape(self, min_rank: int = 0) -> Shape:
        rank = self.draw(st.integers(min_rank, 3))
        return tuple(self.draw(st.lists(st.integers(1, MAX_DIM), min_size=rank, max_size=rank)))

    def partner_shape(self, shape: Shape) -> Shape:
        """A shape that broadcasts with `shape`: a suffix of it with some dims set to 1
        (or, where `shape` has a 1, widened), possibly with new leading dims."""
        keep = self.draw(st.integers(0, len(shape)))
        partner = list(shape[len(shape) - keep:])
        for axis, size in enumerate(partner):
            choice = self.draw(st.sampled_from(("same", "one", "widen")))
            if choice == "one":
                partner[axis] = 1
            elif choice == "widen" and size == 1:
                partner[axis] = self.draw(st.integers(1, MAX_DIM))
        if keep == len(shape) and len(shape) < MAX_RANK and self.draw(st.booleans()):
            partner.insert(0, self.draw(st.integers(1, MAX_DIM)))
        return tuple(partner)

    # -- ops -------------------------------------------------------------------

    def add_unary(self) -> Value:
        op = self.draw(st.sampled_from(UNARY_OPS))
        candidates = [v for v in self.values if within_limits(unary_bounds(op, v.bounds))]
        x = self.pick(candidates) if candidates else self.positive_value()
        return self.add_named_unary(op, x)

    def add_named_unary(self, op: str, x: Value) -> Value:
        bounds = unary_bounds(op, x.bounds)
        assert bounds is not None
        x.uses += 1
        return self.emit(f"autodiff.{op} {x.name} : {self.type_of(x)}", x.shape, bounds)

    def positive_value(self, shape_of: Value | None = None) -> Value:
        """A new value in [0.2, 0.8] (the domain of log, sqrt, div, pow), made from an
        existing one (of `shape_of`'s shape if given) by sigmoid, after tanh if needed."""
        x = shape_of or self.pick(self.values)
        if x.bounds.lo < -1.3:
            x = self.add_named_unary("tanh", x)
        return self.add_named_unary("sigmoid", x)

    def add_binary(self) -> Value:
        op = self.draw(st.sampled_from(BINARY_OPS))
        if op == "pow":
            bases = [v for v in self.values if SAFE_POSITIVE <= v.bounds.lo and v.bounds.hi <= 10]
            x = self.pick(bases) if bases else self.positive_value()
        else:
            x = self.pick(self.values)
        partners = [
            v
            for v in self.values
            if broadcast(x.shape, v.shape) is not None
            and within_limits(binary_bounds(op, x.bounds, v.bounds))
        ]
        if partners and (not self.can_add_argument() or self.draw(st.booleans())):
            y = self.pick(partners)
        elif self.can_add_argument():
            y = self.new_argument(self.partner_shape(x.shape))
            if not within_limits(binary_bounds(op, x.bounds, y.bounds)):
                y = self.positive_value(y)
            y.uses += 1
        else:
            y = x
        bounds = binary_bounds(op, x.bounds, y.bounds)
        if not within_limits(bounds):
            op, bounds = "add", binary_bounds("add", x.bounds, y.bounds)
            if not within_limits(bounds):
                return self.add_named_unary("tanh", x)
        shape = broadcast(x.shape, y.shape)
        assert shape is not None
        return self.emit(
            f"autodiff.{op} {x.name}, {y.name} : ({self.type_of(x)}, {self.type_of(y)}) "
            f"-> {tensor_type(shape, self.element)}",
            shape,
            bounds,
        )

    def add_matmul(self) -> Value:
        lhs_candidates = [v for v in self.values if len(v.shape) in (2, 3)]
        if lhs_candidates and (not self.can_add_argument() or self.draw(st.booleans())):
            a = self.pick(lhs_candidates)
        elif self.can_add_argument():
            a = self.new_argument(self.draw_shape(min_rank=2)[-3:])
            a.uses += 1
        else:
            return self.add_unary()
        batch, contraction = a.shape[:-2], a.shape[-1]
        rhs_candidates = [
            v
            for v in self.values
            if len(v.shape) == len(a.shape)
            and v.shape[:-2] == batch
            and v.shape[-2] == contraction
        ]
        if rhs_candidates and (not self.can_add_argument() or self.draw(st.booleans())):
            b = self.pick(rhs_candidates)
        elif self.can_add_argument():
            b = self.new_argument((*batch, contraction, self.draw(st.integers(1, MAX_DIM))))
            b.uses += 1
        else:
            return self.add_unary()
        bounds = a.bounds.times(b.bounds).scaled(contraction)
        if not within_limits(bounds):
            return self.add_named_unary("tanh", a)
        shape = (*a.shape[:-1], b.shape[-1])
        return self.emit(
            f"autodiff.matmul {a.name}, {b.name} : ({self.type_of(a)}, {self.type_of(b)}) "
            f"-> {tensor_type(shape, self.element)}",
            shape,
            bounds,
        )

    def add_transpose(self) -> Value:
        x = self.pick(self.values)
        permutation = self.draw(st.permutations(range(len(x.shape))))
        shape = tuple(x.shape[p] for p in permutation)
        return self.emit(
            f"autodiff.transpose {x.name} {{permutation = {i64_array(permutation)}}} : "
            f"{self.type_of(x)} -> {tensor_type(shape, self.element)}",
            shape,
            x.bounds,
        )

    def add_reshape(self) -> Value:
        x = self.pick(self.values)
        factors = _prime_factors(element_count(x.shape))
        factors = self.draw(st.permutations(factors))
        shape: list[int] = []
        for factor in factors:
            if shape and shape[-1] * factor <= MAX_DIM and self.draw(st.booleans()):
                shape[-1] *= factor
            else:
                shape.append(factor)
        for _ in range(self.draw(st.integers(0, 1))):
            shape.insert(self.draw(st.integers(0, len(shape))), 1)
        if len(shape) > MAX_RANK:
            shape = [element_count(x.shape)]
        shape_tuple = tuple(shape)
        return self.emit(
            f"autodiff.reshape {x.name} : {self.type_of(x)} -> "
            f"{tensor_type(shape_tuple, self.element)}",
            shape_tuple,
            x.bounds,
        )

    def add_broadcast_to(self) -> Value:
        x = self.pick(self.values)
        shape = [
            self.draw(st.integers(1, MAX_DIM)) if size == 1 else size for size in x.shape
        ]
        for _ in range(self.draw(st.integers(0, max(0, min(2, MAX_RANK - len(shape)))))):
            shape.insert(0, self.draw(st.integers(1, MAX_DIM)))
        return self.emit(
            f"autodiff.broadcast_to {x.name} : {self.type_of(x)} -> "
            f"{tensor_type(tuple(shape), self.element)}",
            tuple(shape),
            x.bounds,
        )

    def add_sum_to_size(self) -> Value:
        x = self.pick(self.values)
        drop = self.draw(st.integers(0, len(x.shape)))
        shape = tuple(
            1 if self.draw(st.booleans()) else size for size in x.shape[drop:]
        )
        factor = element_count(x.shape) // element_count(shape)
        bounds = x.bounds.scaled(factor)
        if not within_limits(bounds):
            return self.add_named_unary("tanh", x)
        return self.emit(
            f"autodiff.sum_to_size {x.name} : {self.type_of(x)} -> "
            f"{tensor_type(shape, self.element)}",
            shape,
            bounds,
        )

    def add_reduction(self, op: str | None = None, x: Value | None = None,
                      reduce_all: bool = False) -> Value:
        op = op or self.draw(st.sampled_from(REDUCTION_OPS))
        if x is None:
            x = self.pick(self.values)
        else:
            x.uses += 1
        rank = len(x.shape)
        dims: list[int] | None = None
        if not reduce_all and rank > 0 and self.draw(st.booleans()):
            dims = sorted(self.draw(st.sets(st.integers(0, rank - 1), min_size=1)))
        keepdim = False if reduce_all else self.draw(st.booleans())
        reduced = set(range(rank) if dims is None else dims)
        shape = tuple(
            1 if axis in reduced else size
            for axis, size in enumerate(x.shape)
            if keepdim or axis not in reduced
        )
        bounds = x.bounds
        if op == "sum":
            bounds = x.bounds.scaled(element_count(x.shape) // max(1, element_count(shape)))
            if not within_limits(bounds):
                op, bounds = "mean", x.bounds
        attributes = []
        if dims is not None:
            attributes.append(f"dims = {i64_array(dims)}")
        if keepdim:
            attributes.append("keepdim = true")
        attribute_text = f" {{{', '.join(attributes)}}}" if attributes else ""
        return self.emit(
            f"autodiff.{op} {x.name}{attribute_text} : {self.type_of(x)} -> "
            f"{tensor_type(shape, self.element)}",
            shape,
            bounds,
        )

    def add_softmax(self) -> Value:
        candidates = [v for v in self.values if v.shape]
        if not candidates:
            return self.add_unary()
        op = self.draw(st.sampled_from(("softmax", "log_softmax")))
        x = self.pick(candidates)
        dim = self.draw(st.integers(0, len(x.shape) - 1))
        spread = x.bounds.hi - x.bounds.lo + math.log(x.shape[dim])
        bounds = Bounds(-spread, 0.0) if op == "log_softmax" else Bounds(math.exp(-spread), 1.0)
        return self.emit(
            f"autodiff.{op} {x.name} {{dim = {dim} : i64}} : {self.type_of(x)}",
            x.shape,
            bounds,
        )

    def add_select(self) -> Value:
        a = self.pick(self.values)
        partners = [v for v in self.values if broadcast(a.shape, v.shape) is not None]
        b = self.pick(partners)
        shape = broadcast(a.shape, b.shape)
        assert shape is not None
        conditions = [
            v for v in self.arguments if v.is_condition and broadcast(shape, v.shape) == shape
        ]
        if conditions and (not self.can_add_argument() or self.draw(st.booleans())):
            condition = self.pick(conditions)
        elif self.can_add_argument():
            keep = self.draw(st.integers(0, len(shape)))
            condition_shape = tuple(
                1 if self.draw(st.booleans()) else size for size in shape[len(shape) - keep:]
            )
            condition = self.new_argument(condition_shape, condition=True)
        else:
            return self.add_unary()
        return self.emit(
            f"autodiff.select {condition.name}, {a.name}, {b.name} : "
            f"({self.type_of(condition)}, {self.type_of(a)}, {self.type_of(b)}) -> "
            f"{tensor_type(shape, self.element)}",
            shape,
            a.bounds.union(b.bounds),
        )

    def add_op(self, family: str) -> Value:
        return getattr(self, f"add_{family}")()

    # -- the loss ----------------------------------------------------------------

    def finish(self) -> Value:
        """Reduce the last result and (at most) one other unused result to one 0-d loss."""
        results = [v for v in self.values if v.name.startswith("%v")]
        leaves = [v for v in results[:-1] if v.uses == 0]
        outputs = [results[-1]] if results else [self.pick(self.values)]
        if leaves and self.forward_ops + 3 <= MAX_FORWARD_OPS:
            outputs.append(self.draw(st.sampled_from(leaves)))
        scalars = []
        for value in outputs:
            if value.shape:
                op = self.draw(st.sampled_from(("sum", "mean")))
                value = self.add_reduction(op, value, reduce_all=True)
            scalars.append(value)
        loss = scalars[0]
        if len(scalars) == 2:
            scalar_type = tensor_type((), self.element)
            bounds = binary_bounds("add", scalars[0].bounds, scalars[1].bounds)
            for scalar in scalars:
                scalar.uses += 1
            loss = self.emit(
                f"autodiff.add {scalars[0].name}, {scalars[1].name} : "
                f"({scalar_type}, {scalar_type}) -> {scalar_type}",
                (),
                bounds,
            )
        if not loss.name.startswith("%v"):
            # A 0-d argument is the loss: give @loss at least one op.
            loss = self.add_named_unary("neg", loss)
        return loss


def _prime_factors(count: int) -> list[int]:
    factors, divisor = [], 2
    while count > 1:
        while count % divisor == 0:
            factors.append(divisor)
            count //= divisor
        divisor += 1
    return factors


@st.composite
def programs(draw, elements=("f32", "f64"), families=OP_FAMILIES) -> Program:
    """A random well-typed program: `@loss` (<= 12 forward ops) and `@loss_grad`."""
    builder = ProgramBuilder(draw, draw(st.sampled_from(elements)))
    for _ in range(draw(st.integers(1, 3))):
        builder.new_argument(builder.draw_shape())
    body_ops = draw(st.integers(1, MAX_FORWARD_OPS - 4))
    while builder.forward_ops < body_ops:
        builder.add_op(draw(st.sampled_from(families)))
    loss = builder.finish()
    float_arguments = [i for i, a in enumerate(builder.arguments) if not a.is_condition]
    wrt = None
    if draw(st.booleans()):
        wrt = tuple(
            sorted(draw(st.sets(st.sampled_from(float_arguments), min_size=1)))
        )
    return Program(builder.element, builder.arguments, builder.lines, loss, wrt,
                   builder.forward_ops)  # fmt: skip
