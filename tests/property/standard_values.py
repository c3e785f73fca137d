"""What the standard-MLIR program generator (`standard_programs.py`) builds
with: values with the interval that bounds them, blocks that hold both the
MLIR text of a region and a NumPy evaluation of it, and the builder of
arith/math expressions that keeps every operand inside its op's domain.

The NumPy evaluation is the generator's own reference: the test compares the
compiled program's outputs with it, and it records the margin of every
comparison (`cmpf`, `maximumf`, `absf`, max reductions, `fptosi`) at the
chosen inputs, so that inputs within `MARGIN` of a kink, a tie or a jump are
never used: central differences across one are wrong, not the program.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

MAGNITUDE_LIMIT = 4.0
"""Results larger than this are scaled down by a power of two (exact in f32 and f64)."""
EXP_LIMIT = 1.5
TANH_LIMIT = 2.0
"""tanh's operand stays within +-2: tanh' >= 0.07, never saturated."""
POSITIVE_LOW = 0.25
"""Lower bound of log, sqrt and rsqrt operands."""
DENOMINATOR_LOW = 0.5
"""Denominators are shifted to at least this."""

Shape = tuple[int, ...]


def mlir_type(shape: Shape | None, element: str = "f32") -> str:
    """`f32` for a scalar (shape None), else a ranked tensor type."""
    if shape is None:
        return element
    return "tensor<" + "".join(f"{size}x" for size in shape) + element + ">"


def float_literal(value: float) -> str:
    """MLIR's spelling of `value`, exact: six decimals where they are (0.25), more where
    not (2^-8 is 0.00390625: printed 0.003906, the program computed another number than
    its NumPy evaluation, 6e-5 apart)."""
    text = f"{value:.6f}".rstrip("0")
    if float(text) != value:
        text = f"{value:.20f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


@dataclass(eq=False)
class Val:
    """A float SSA value (an f32 scalar or a float tensor) and an interval holding it."""

    name: str
    shape: Shape | None
    lo: float
    hi: float
    uses: int = 0
    argument: bool = False

    @property
    def magnitude(self) -> float:
        return max(abs(self.lo), abs(self.hi))

    @property
    def type(self) -> str:
        return mlir_type(self.shape)


@dataclass(eq=False)
class IndexVal:
    """An `index` SSA value known to lie in [0, bound)."""

    name: str
    bound: int


Step = Callable[["Evaluation"], None]


@dataclass
class Evaluation:
    """The NumPy run of a program: values by SSA name, and the distance of every
    comparison, kink and jump met from its switching point."""

    env: dict = field(default_factory=dict)
    margins: list = field(default_factory=list)

    def record(self, distance) -> None:
        self.margins.append(float(np.min(np.abs(distance))))


class Block:
    """One region's straight-line code: its MLIR lines, a NumPy step per op, and
    the values it defines (visible to nested blocks, not to siblings)."""

    def __init__(self, parent: Block | None, kind: str, iteration: Shape | None = None):
        self.parent = parent
        self.kind = kind
        """function, loop, branch, before, after or body (a linalg.generic body)."""
        self.iteration = iteration if iteration is not None else (parent.iteration if parent else None)
        """The iteration space of the enclosing linalg.generic body, if any."""
        self.lines: list[str] = []
        self.steps: list[Step] = []
        self.values: list[Val] = []
        self.indices: list[IndexVal] = []
        self.linalg_indices: dict[int, IndexVal] = {}

    @property
    def in_body(self) -> bool:
        return self.iteration is not None

    def visible_values(self) -> list[Val]:
        block, values = self, []
        while block is not None:
            values += block.values
            block = block.parent
        return values

    def visible_indices(self) -> list[IndexVal]:
        block, indices = self, []
        while block is not None:
            indices += block.indices
            block = block.parent
        return indices

    def run(self, evaluation: Evaluation) -> None:
        for step in self.steps:
            step(evaluation)

    def text(self, indent: str) -> str:
        return "".join(f"{indent}{line}\n" for line in self.lines)


UNARY = {
    "arith.negf": (np.negative, lambda lo, hi: (-hi, -lo)),
    "math.exp": (np.exp, lambda lo, hi: (math.exp(lo), math.exp(hi))),
    "math.log": (np.log, lambda lo, hi: (math.log(lo), math.log(hi))),
    "math.sqrt": (np.sqrt, lambda lo, hi: (math.sqrt(lo), math.sqrt(hi))),
    "math.rsqrt": (lambda x: 1 / np.sqrt(x), lambda lo, hi: (1 / math.sqrt(hi), 1 / math.sqrt(lo))),
    "math.tanh": (np.tanh, lambda lo, hi: (math.tanh(lo), math.tanh(hi))),
    "math.sin": (np.sin, lambda lo, hi: (-1.0, 1.0)),
    "math.cos": (np.cos, lambda lo, hi: (-1.0, 1.0)),
    "math.absf": (np.abs, lambda lo, hi: (0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi)), max(abs(lo), abs(hi)))),
}  # fmt: skip


def interval_product(a: Val, b: Val) -> tuple[float, float]:
    products = [x * y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    return min(products), max(products)


BINARY = {
    "arith.addf": (np.add, lambda a, b: (a.lo + b.lo, a.hi + b.hi)),
    "arith.subf": (np.subtract, lambda a, b: (a.lo - b.hi, a.hi - b.lo)),
    "arith.mulf": (np.multiply, interval_product),
    "arith.divf": (np.divide, lambda a, b: interval_product(a, Val("", None, 1 / b.hi, 1 / b.lo))),
    "arith.maximumf": (np.maximum, lambda a, b: (max(a.lo, b.lo), max(a.hi, b.hi))),
    "arith.minimumf": (np.minimum, lambda a, b: (min(a.lo, b.lo), min(a.hi, b.hi))),
}
KINKED = {"math.absf", "arith.maximumf", "arith.minimumf"}
COMPARISONS = {"ogt": np.greater, "olt": np.less, "oge": np.greater_equal, "ole": np.less_equal}

Leaf = Callable[[Block], Val]
"""Returns an operand usable in the block (emitting what it needs there)."""


class ExpressionBuilder:
    """Emits arith/math expressions over scalars or whole tensors, with the
    guards that keep operands in their ops' domains."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.counter = 0
        self.features: set[str] = set()

    def name(self, prefix: str = "v") -> str:
        self.counter += 1
        return f"%{prefix}{self.counter}"

    @staticmethod
    def emit(block: Block, line: str, step: Step | None = None) -> None:
        block.lines.append(line)
        if step is not None:
            block.steps.append(step)

    @staticmethod
    def use(*values: Val) -> None:
        for value in values:
            value.uses += 1

    def constant(self, block: Block, value: float, shape: Shape | None) -> Val:
        name, literal = self.name("k"), float_literal(value)
        exact = float(np.float32(literal))  # the f32 the program holds: `0.003906 : f32` is 0.00390599994
        array = np.float64(exact) if shape is None else np.full(shape, exact)
        attribute = literal if shape is None else f"dense<{literal}>"
        self.emit(
            block, f"{name} = arith.constant {attribute} : {mlir_type(shape)}",
            lambda ev: ev.env.__setitem__(name, array),
        )  # fmt: skip
        return Val(name, shape, exact, exact)

    def index_constant(self, block: Block, value: int) -> str:
        name = self.name("c")
        self.emit(block, f"{name} = arith.constant {value} : index", lambda ev: ev.env.__setitem__(name, value))
        return name

    def unary(self, block: Block, op: str, x: Val) -> Val:
        function, interval = UNARY[op]
        name = self.name()
        self.use(x)

        def step(ev: Evaluation) -> None:
            value = ev.env[x.name]
            if op in KINKED:
                ev.record(value)
            ev.env[name] = function(value)

        self.emit(block, f"{name} = {op} {x.name} : {x.type}", step)
        self.features.add(op)
        return Val(name, x.shape, *interval(x.lo, x.hi))

    def binary(self, block: Block, op: str, x: Val, y: Val) -> Val:
        function, interval = BINARY[op]
        name = self.name()
        self.use(x, y)

        def step(ev: Evaluation) -> None:
            a, b = ev.env[x.name], ev.env[y.name]
            if op in KINKED:
                ev.record(a - b)
            ev.env[name] = function(a, b)

        self.emit(block, f"{name} = {op} {x.name}, {y.name} : {x.type}", step)
        self.features.add(op)
        return Val(name, x.shape, *interval(x, y))

    def compare(self, block: Block, predicate: str, x: Val, y: Val) -> str:
        """An `arith.cmpf` (i1, or a tensor of i1); its margin is recorded."""
        name = self.name("p")  # not a use: no derivative flows through a comparison

        def step(ev: Evaluation) -> None:
            a, b = ev.env[x.name], ev.env[y.name]
            ev.record(a - b)
            ev.env[name] = COMPARISONS[predicate](a, b)

        self.emit(block, f"{name} = arith.cmpf {predicate}, {x.name}, {y.name} : {x.type}", step)
        return name

    def select(self, block: Block, condition: str, x: Val, y: Val) -> Val:
        name = self.name()
        self.use(x, y)
        self.emit(
            block, f"{name} = arith.select {condition}, {x.name}, {y.name} : {x.type}",
            lambda ev: ev.env.__setitem__(name, np.where(ev.env[condition], ev.env[x.name], ev.env[y.name])),
        )  # fmt: skip
        self.features.add("arith.select")
        return Val(name, x.shape, min(x.lo, y.lo), max(x.hi, y.hi))

    # Guards: each keeps an operand inside a domain with one exact op.
    def scaled_into(self, block: Block, x: Val, limit: float) -> Val:
        if x.magnitude <= limit:
            return x
        factor = 2.0 ** -math.ceil(math.log2(x.magnitude / limit))
        return self.binary(block, "arith.mulf", x, self.constant(block, factor, x.shape))

    def shifted_above(self, block: Block, x: Val, low: float) -> Val:
        if x.lo >= low:
            return x
        shift = math.ceil((low + 0.25 - x.lo) * 4) / 4
        return self.binary(block, "arith.addf", x, self.constant(block, shift, x.shape))

    def bounded(self, block: Block, x: Val) -> Val:
        return self.scaled_into(block, x, MAGNITUDE_LIMIT)

    def split_point(self, x: Val) -> float:
        """A constant inside x's interval, so that both sides of a comparison are taken."""
        low, high = x.lo + 0.25 * (x.hi - x.lo), x.hi - 0.25 * (x.hi - x.lo)
        return round(self.rng.uniform(low, high) * 8) / 8

    def expression(self, block: Block, leaf: Leaf, shape: Shape | None, depth: int) -> Val:
        """A random expression of `shape` whose leaves come from `leaf`."""
        rng = self.rng
        if depth <= 0 or rng.random() < 0.15:
            return leaf(block)
        kinds = ["unary"] * 4 + ["binary"] * 4 + ["minmax"]
        if shape is None:  # xDSL 0.74 types arith.cmpf of tensors as i1: no select on tensors
            kinds += ["select"] + ["if"] * (2 if block.in_body else 1)
        kind = rng.choice(kinds)
        if kind == "unary":
            op = rng.choice(list(UNARY))
            x = self.expression(block, leaf, shape, depth - 1)
            if op == "math.exp":
                x = self.scaled_into(block, x, EXP_LIMIT)
            elif op == "math.tanh":
                x = self.scaled_into(block, x, TANH_LIMIT)
            elif op in ("math.log", "math.sqrt", "math.rsqrt"):
                x = self.shifted_above(block, self.bounded(block, x), POSITIVE_LOW)
            return self.bounded(block, self.unary(block, op, x))
        if kind == "binary":
            op = rng.choice(["arith.addf", "arith.subf", "arith.mulf", "arith.divf"])
            x = self.expression(block, leaf, shape, depth - 1)
            y = self.other_expression(block, leaf, shape, depth - 1, x)
            if op == "arith.divf":
                y = self.shifted_above(block, self.bounded(block, y), DENOMINATOR_LOW)
            return self.bounded(block, self.binary(block, op, x, y))
        if kind == "minmax":
            op = rng.choice(["arith.maximumf", "arith.minimumf"])
            x = self.expression(block, leaf, shape, depth - 1)
            if rng.random() < 0.3:  # relu
                self.features.add("relu")
                return self.binary(block, op, x, self.constant(block, self.split_point(x), shape))
            return self.binary(block, op, x, self.other_expression(block, leaf, shape, depth - 1, x))
        x = self.expression(block, leaf, shape, depth - 1)
        threshold = (
            self.constant(block, self.split_point(x), shape)
            if rng.random() < 0.6 else self.other_expression(block, leaf, shape, depth - 1, x)
        )  # fmt: skip
        condition = self.compare(block, rng.choice(list(COMPARISONS)), x, threshold)
        if kind == "select":
            return self.select(block, condition, *self._two_arms(block, leaf, shape, depth, x))
        return self.scalar_if(block, condition, leaf, depth)

    def other_expression(self, block: Block, leaf: Leaf, shape: Shape | None, depth: int, x: Val) -> Val:
        """An expression that is not `x` itself (x - x, max(x, x) or x < x prove little)."""
        for _ in range(3):
            y = self.expression(block, leaf, shape, depth)
            if y is not x:
                return y
        return self.binary(block, "arith.mulf", x, self.constant(block, 0.75, shape))

    def _two_arms(self, block: Block, leaf: Leaf, shape: Shape | None, depth: int, x: Val) -> tuple[Val, Val]:
        first = self.other_expression(block, leaf, shape, depth - 1, x)
        return (first, x) if self.rng.random() < 0.5 else (x, first)

    def scalar_if(self, block: Block, condition: str, leaf: Leaf, depth: int) -> Val:
        """`scf.if` with one f32 result; each branch computes its own expression
        (which may hold another `scf.if`: nesting)."""
        name = self.name()
        arms = []
        for _ in range(2):
            arm = Block(block, "branch")
            arms.append((arm, self.expression(arm, leaf, None, depth - 1)))
        self.features.add("scf.if.in_body" if block.in_body else "scf.if.scalar")
        if block.kind == "branch":
            self.features.add("scf.if.nested_in_body" if block.in_body else "scf.if.nested")
        lines = [f"{name} = scf.if {condition} -> (f32) {{"]
        for position, (arm, value) in enumerate(arms):
            if position:
                lines.append("} else {")
            lines += [f"  {line}" for line in arm.lines]
            lines.append(f"  scf.yield {value.name} : f32")
            self.use(value)
        lines.append("}")
        block.lines += lines

        def step(ev: Evaluation) -> None:
            results = []
            for arm, value in arms:  # both arms: they are valid everywhere, and vectorised in bodies
                arm.run(ev)
                results.append(ev.env[value.name])
            ev.env[name] = np.where(ev.env[condition], *results)

        block.steps.append(step)
        (_, a), (_, b) = arms
        return Val(name, None, min(a.lo, b.lo), max(a.hi, b.hi))
