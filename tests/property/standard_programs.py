"""Random programs in standard MLIR for gradcheck: `generate(seed)` draws one
function `@program_<seed>` over f32 tensors and f32 scalars, made of

- `linalg.generic` ops: elementwise or reducing (`addf` either way round,
  `subf`, `mulf`, `maximumf`, `minimumf`, a `select` or an `scf.if` max), one
  or two outputs, inputs read through broadcasting, transposing and constant
  (`(d0, d1) -> (0, d1)`) maps, an active or fresh init (read by the body or
  not), and bodies that read captured scalars, gather from captured tensors
  with `tensor.extract` at `linalg.index` positions (shifted modulo the size:
  not affine), at indices from an integer input or computed from the float
  data (`fptosi`), and hold `arith.select` and `scf.if` (also nested);
- `scf.for` with tensor and f32 scalar loop states (states updated whole, or
  by `tensor.insert` / `insert_slice` at the induction variable), reading
  captured values and slices at the induction variable; `scf.if` with tensor
  and scalar results, nested; `scf.while` with a counter and f32 states whose
  condition may read a float state and whose `before` region may forward a
  computed value; each body holding further statements;
- `tensor.extract insert extract_slice insert_slice from_elements expand_shape`
  and arith/math float ops on whole tensors and on scalars.

Every value carries an interval (`standard_values.py`); guards keep tanh
unsaturated, log/sqrt/rsqrt operands positive, denominators >= 0.5 and
magnitudes small. The generator also evaluates the program in NumPy: the
inputs are redrawn until every comparison, kink, tie and jump is at least
`MARGIN` away, and the test checks the compiled outputs against it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from standard_values import (
    Block, Evaluation, ExpressionBuilder, IndexVal, Shape, Val, mlir_type,
)  # fmt: skip

MARGIN = 1e-3
"""Minimum distance of every comparison, kink and jump from switching, at the chosen inputs."""
INPUT_ATTEMPTS = 30
SHAPES = ((3, 4), (4,), (3,), (4, 3), ())
SHAPE_WEIGHTS = (4, 2, 2, 1, 1)
STATE_INTERVAL = (-1.0, 1.0)
"""Loop states stay in the hull of their initial value and this interval."""

# (source shape, slice shape, offsets, sizes): rank-reducing rows and columns, sub-vectors, a 0-d element
SLICES = (
    ((3, 4), (4,), ("r", 0), (1, 4)), ((3, 4), (3,), (0, "c"), (3, 1)),
    ((4, 3), (3,), ("r", 0), (1, 3)), ((4, 3), (4,), (0, "c"), (4, 1)),
    ((4,), (3,), ("o",), (3,)), ((3,), (), ("c",), (1,)), ((4,), (), ("c",), (1,)),
)  # fmt: skip


@dataclass
class Program:
    """One generated function, the inputs it is checked at and its outputs there (NumPy)."""

    seed: int
    name: str
    text: str
    inputs: list
    expected: list
    features: frozenset
    other_sizes: tuple = ()
    """(inputs, expected) pairs at other sizes of a dynamic dimension: the same compiled
    program must be right there too (`named_programs.generate(seed, dynamic=True)`)."""

    def __repr__(self) -> str:
        return f"Program {self.name}:\n{self.text}"


class ProgramBuilder(ExpressionBuilder):
    def __init__(self, rng: random.Random):
        super().__init__(rng)
        self.arguments: list[Val] = []

    # ---- operands -------------------------------------------------------------------------
    def pick(self, candidates: list[Val], block: Block | None = None) -> Val:
        """Unused values of the innermost block first (so that what a branch or a loop
        body computes reaches its yield), then unused arguments, then unused values,
        then any (recent ones likelier)."""
        tiers = []
        while block is not None:
            tiers.append([v for v in candidates if v.uses == 0 and any(v is w for w in block.values)])
            if block.kind == "function":
                break
            block = block.parent
        tiers = tiers[:-1] if len(tiers) > 1 else []  # the function's own block: after the arguments
        tiers += [[v for v in candidates if v.argument and v.uses == 0], [v for v in candidates if v.uses == 0]]
        for preferred in tiers:
            if preferred and self.rng.random() < 0.85:
                return self.rng.choice(preferred)
        weights = [1 + i for i in range(len(candidates))]
        return self.rng.choices(candidates, weights)[0]

    def tensors(self, block: Block, shape: Shape | None = None) -> list[Val]:
        return [
            v for v in block.visible_values()
            if v.shape is not None and (shape is None or v.shape == shape)
        ]  # fmt: skip

    def tensor_leaf(self, shape: Shape):
        def leaf(block: Block) -> Val:
            candidates = self.tensors(block, shape)
            return (
                self.pick(candidates, block)
                if candidates
                else self.constant(block, self.rng.choice([0.5, -0.75, 1.25]), shape)
            )

        return leaf

    def scalar_leaf(self, block: Block) -> Val:
        """Outside bodies: a scalar in scope, or an element extracted from a tensor."""
        scalars = [v for v in block.visible_values() if v.shape is None]
        if scalars and self.rng.random() < 0.7:
            return self.pick(scalars, block)
        return self.extract(block, self.pick(self.tensors(block), block))

    def index_for(self, block: Block, size: int) -> str:
        """An index into a dimension of `size`: a constant, a loop's induction
        variable, an entry of an integer table at it, or computed from float data."""
        rng = self.rng
        loop_indices = [i for i in block.visible_indices() if i.bound <= size]
        scalars = [v for v in block.visible_values() if v.shape is None]
        choice = rng.random()
        if loop_indices and choice < 0.45:
            self.features.add("extract.at_induction_variable")
            return rng.choice(loop_indices).name
        if loop_indices and choice < 0.6:
            return self.table_index(block, rng.choice(loop_indices), size)
        if scalars and choice < 0.7:
            return self.float_data_index(block, self.pick(scalars, block), size)
        return self.index_constant(block, rng.randrange(size))

    def table_index(self, block: Block, position: IndexVal, size: int) -> str:
        """`table[position]` of a constant i32 table: an index read from data."""
        table, entry, name = self.name("ix"), self.name("n"), self.name("i")
        values = [self.rng.randrange(size) for _ in range(4)]
        self.emit(
            block,
            f"{table} = arith.constant dense<{values}> : tensor<4xi32>",
            lambda ev: ev.env.__setitem__(table, np.array(values)),
        )
        self.emit(
            block,
            f"{entry} = tensor.extract {table}[{position.name}] : tensor<4xi32>",
            lambda ev: ev.env.__setitem__(entry, ev.env[table][ev.env[position.name]]),
        )
        self.emit(block, f"{name} = arith.index_cast {entry} : i32 to index",
                  lambda ev: ev.env.__setitem__(name, int(ev.env[entry])))  # fmt: skip
        self.features.add("extract.at_data_index")
        return name

    def float_data_index(self, block: Block, value: Val, size: int) -> str:
        """fptosi((sin(value) + 1) * 0.48 * size), in [0, size); its jumps are margins."""
        wave = self.unary(block, "math.sin", value)
        lifted = self.binary(block, "arith.addf", wave, self.constant(block, 1.0, None))
        scaled = self.binary(block, "arith.mulf", lifted, self.constant(block, 0.48 * size, None))
        integer, name = self.name("n"), self.name("i")

        def truncate(ev: Evaluation) -> None:
            x = ev.env[scaled.name]
            ev.record(x - np.clip(np.round(x), 1, size - 1))
            ev.env[integer] = np.trunc(x).astype(np.int64)

        self.emit(block, f"{integer} = arith.fptosi {scaled.name} : f32 to i32", truncate)
        self.emit(block, f"{name} = arith.index_cast {integer} : i32 to index",
                  lambda ev: ev.env.__setitem__(name, ev.env[integer]))  # fmt: skip
        self.features.add("extract.at_float_data_index" if not block.in_body else "gather.float_data")
        return name

    # ---- tensor ops -----------------------------------------------------------------------
    def extract(self, block: Block, source: Val) -> Val:
        indices = [self.index_for(block, size) for size in source.shape]
        name = self.name("s")
        self.use(source)
        self.emit(
            block, f"{name} = tensor.extract {source.name}[{', '.join(indices)}] : {source.type}",
            lambda ev: ev.env.__setitem__(name, ev.env[source.name][tuple(ev.env[i] for i in indices)]),
        )  # fmt: skip
        self.features.add("tensor.extract")
        return Val(name, None, source.lo, source.hi)

    def insert(self, block: Block, scalar: Val, destination: Val) -> Val:
        indices = [self.index_for(block, size) for size in destination.shape]
        name = self.name("t")
        self.use(scalar, destination)

        def step(ev: Evaluation) -> None:
            result = np.array(ev.env[destination.name], copy=True)
            result[tuple(ev.env[i] for i in indices)] = ev.env[scalar.name]
            ev.env[name] = result

        self.emit(
            block,
            f"{name} = tensor.insert {scalar.name} into {destination.name}[{', '.join(indices)}] : {destination.type}",
            step,
        )
        self.features.add("tensor.insert")
        return Val(name, destination.shape, min(scalar.lo, destination.lo), max(scalar.hi, destination.hi))

    def slice_positions(self, block: Block, offsets, source_shape: Shape, sizes) -> list:
        """Static offsets, or the induction variable where it stays in range."""
        positions = []
        for offset, size, full in zip(offsets, sizes, source_shape):
            if isinstance(offset, int):
                positions.append(offset)
                continue
            room = full - size + 1
            loops = [i for i in block.visible_indices() if i.bound <= room]
            if loops and self.rng.random() < 0.6:
                self.features.add("slice.at_induction_variable")
                positions.append(self.rng.choice(loops).name)
            else:
                positions.append(self.rng.randrange(room))
        return positions

    @staticmethod
    def _slicer(positions, sizes, ev: Evaluation) -> tuple:
        starts = [ev.env[p] if isinstance(p, str) else p for p in positions]
        return tuple(slice(s, s + n) for s, n in zip(starts, sizes))

    def extract_slice(self, block: Block, source: Val, spec) -> Val:
        _, result_shape, offsets, sizes = spec
        positions = self.slice_positions(block, offsets, source.shape, sizes)
        name = self.name("t")
        self.use(source)
        text = ", ".join(map(str, positions))
        self.emit(
            block,
            f"{name} = tensor.extract_slice {source.name}[{text}] [{', '.join(map(str, sizes))}] "
            f"[{', '.join('1' for _ in sizes)}] : {source.type} to {mlir_type(result_shape)}",
            lambda ev: ev.env.__setitem__(name, ev.env[source.name][self._slicer(positions, sizes, ev)].reshape(result_shape)),
        )  # fmt: skip
        self.features.add("tensor.extract_slice")
        return Val(name, result_shape, source.lo, source.hi)

    def insert_slice(self, block: Block, piece: Val, destination: Val, spec) -> Val:
        _, _, offsets, sizes = spec
        positions = self.slice_positions(block, offsets, destination.shape, sizes)
        name = self.name("t")
        self.use(piece, destination)

        def step(ev: Evaluation) -> None:
            result = np.array(ev.env[destination.name], copy=True)
            region = self._slicer(positions, sizes, ev)
            result[region] = np.reshape(ev.env[piece.name], result[region].shape)
            ev.env[name] = result

        self.emit(
            block,
            f"{name} = tensor.insert_slice {piece.name} into {destination.name}[{', '.join(map(str, positions))}] "
            f"[{', '.join(map(str, sizes))}] [{', '.join('1' for _ in sizes)}] : {piece.type} into {destination.type}",
            step,
        )  # fmt: skip
        self.features.add("tensor.insert_slice")
        return Val(name, destination.shape, min(piece.lo, destination.lo), max(piece.hi, destination.hi))

    def from_elements(self, block: Block, scalars: list[Val], shape: Shape) -> Val:
        name = self.name("t")
        self.use(*scalars)
        self.emit(
            block, f"{name} = tensor.from_elements {', '.join(s.name for s in scalars)} : {mlir_type(shape)}",
            lambda ev: ev.env.__setitem__(name, np.array([ev.env[s.name] for s in scalars], dtype=np.float64).reshape(shape)),
        )  # fmt: skip
        self.features.add("tensor.from_elements")
        return Val(name, shape, min(s.lo for s in scalars), max(s.hi for s in scalars))

    # ---- statements -----------------------------------------------------------------------
    def statement(self, block: Block, depth: int) -> None:
        """Appends one statement's values to `block.values`."""
        rng = self.rng
        kinds = {"generic": 4, "elementwise": 1.5, "scalar": 1, "extract": 1, "insert": 0.5,
                 "extract_slice": 0.8, "insert_slice": 0.5, "from_elements": 0.3}  # fmt: skip
        if depth > 0:
            kinds.update({"for": 2.5, "if": 1.5, "while": 1})
        kind = rng.choices(list(kinds), list(kinds.values()))[0]
        getattr(self, f"statement_{kind}")(block, depth)

    def statement_elementwise(self, block: Block, depth: int) -> None:
        shape = self.pick(self.tensors(block), block).shape
        value = self.expression(block, self.tensor_leaf(shape), shape, self.rng.randint(1, 3))
        self.features.add("elementwise.tensor")
        block.values.append(value)

    def statement_scalar(self, block: Block, depth: int) -> None:
        block.values.append(self.expression(block, self.scalar_leaf, None, self.rng.randint(1, 3)))

    def statement_extract(self, block: Block, depth: int) -> None:
        block.values.append(self.extract(block, self.pick(self.tensors(block), block)))

    def statement_insert(self, block: Block, depth: int) -> None:
        destination = self.pick([t for t in self.tensors(block) if t.shape != ()] or self.tensors(block), block)
        block.values.append(self.insert(block, self.scalar_leaf(block), destination))

    def statement_extract_slice(self, block: Block, depth: int) -> None:
        specs = [s for s in SLICES if self.tensors(block, s[0])]
        if not specs:
            return self.statement_extract(block, depth)
        spec = self.rng.choice(specs)
        block.values.append(self.extract_slice(block, self.pick(self.tensors(block, spec[0]), block), spec))

    def statement_insert_slice(self, block: Block, depth: int) -> None:
        specs = [s for s in SLICES if self.tensors(block, s[0]) and self.tensors(block, s[1])]
        if not specs:
            return self.statement_insert(block, depth)
        spec = self.rng.choice(specs)
        destination = self.pick(self.tensors(block, spec[0]), block)
        piece = self.pick([t for t in self.tensors(block, spec[1]) if t is not destination], block)
        block.values.append(self.insert_slice(block, piece, destination, spec))

    def statement_from_elements(self, block: Block, depth: int) -> None:
        shape = self.rng.choice([(3,), (4,), ()])
        count = shape[0] if shape else 1
        block.values.append(self.from_elements(block, [self.scalar_leaf(block) for _ in range(count)], shape))

    def statement_generic(self, block: Block, depth: int) -> None:
        from standard_generics import GenericBuilder

        block.values += GenericBuilder(self, block).build()

    def statement_for(self, block: Block, depth: int) -> None:
        from standard_control_flow import build_for

        block.values += build_for(self, block, depth)

    def statement_if(self, block: Block, depth: int) -> None:
        from standard_control_flow import build_if

        block.values += build_if(self, block, depth)

    def statement_while(self, block: Block, depth: int) -> None:
        from standard_control_flow import build_while

        block.values += build_while(self, block, depth)

    # ---- the function ---------------------------------------------------------------------
    def function(self, name: str) -> tuple[str, Block, list[Val]]:
        rng = self.rng
        body = Block(None, "function")
        tensor_count = rng.randint(2, 4)
        shapes = rng.choices(SHAPES, SHAPE_WEIGHTS, k=tensor_count)
        if all(s == () for s in shapes):
            shapes[0] = (3, 4)
        shapes += [None] * rng.choice([0, 0, 1, 1, 2])
        for position, shape in enumerate(shapes):
            argument = Val(f"%arg{position}", shape, -1.0, 1.0, argument=True)
            self.arguments.append(argument)
            body.values.append(argument)
        for _ in range(rng.randint(3, 6)):
            self.statement(body, depth=2)
        for argument in self.arguments:  # every argument reaches a result
            if argument.uses == 0:
                leaf = self.scalar_leaf if argument.shape is None else self.tensor_leaf(argument.shape)
                body.values.append(self.expression(body, leaf, argument.shape, 2))
        results = [v for v in body.values if v.uses == 0 and not v.argument]
        types = ", ".join(v.type for v in results)
        params = ", ".join(f"{a.name}: {a.type}" for a in self.arguments)
        text = (
            f"func.func @{name}({params}) -> ({types}) {{\n{body.text('  ')}"
            f"  func.return {', '.join(v.name for v in results)} : {types}\n}}\n"
        )
        return text, body, results


def evaluate(body: Block, arguments: list[Val], results: list[Val], inputs: list) -> tuple[list, list]:
    """The outputs in NumPy, and the margins met."""
    evaluation = Evaluation()
    for argument, value in zip(arguments, inputs):
        evaluation.env[argument.name] = value
    with np.errstate(all="raise", under="ignore"):  # a product rounding to 0 is no blow-up
        body.run(evaluation)
    outputs = [np.asarray(evaluation.env[r.name], dtype=np.float64).reshape(r.shape or ()) for r in results]
    return outputs, evaluation.margins


def responds(body: Block, arguments: list[Val], results: list[Val], inputs: list, rng) -> bool:
    """Whether the outputs move along a random direction (NumPy central differences)."""
    step = 1e-4
    direction = [rng.standard_normal(np.shape(x)) for x in inputs]
    try:
        plus, _ = evaluate(body, arguments, results, [x + step * d for x, d in zip(inputs, direction)])
        minus, _ = evaluate(body, arguments, results, [x - step * d for x, d in zip(inputs, direction)])
    except FloatingPointError:  # so close to a blow-up that a step reaches it: another program
        return False
    return any(np.max(np.abs(p - m), initial=0.0) / (2 * step) > 1e-2 for p, m in zip(plus, minus))


def generate(seed: int) -> Program:
    """The program of `seed` (the same on every machine) and inputs at which
    every comparison is at least MARGIN from switching."""
    _, builder, body, results, inputs, outputs = _drawn(seed)
    return Program(seed, f"program_{seed}", builder.text, inputs, outputs, frozenset(builder.features))


def _drawn(seed: int):
    """(attempt, builder, body, results, inputs, outputs) of `generate(seed)`."""
    for attempt in range(100):
        builder = ProgramBuilder(random.Random(f"standard-program-{seed}-{attempt}"))
        builder.text, body, results = builder.function(f"program_{seed}")
        for inputs_seed in range(INPUT_ATTEMPTS):
            rng = np.random.default_rng([seed, attempt, inputs_seed])
            inputs = _safe_inputs(builder, body, results, rng)
            if inputs is None:
                continue
            if not responds(body, builder.arguments, results, inputs[0], rng):
                break  # a program whose outputs barely depend on its inputs checks little: another one
            return attempt, builder, body, results, *inputs
    raise RuntimeError(f"no program with safe inputs for seed {seed}")


def _safe_inputs(builder: ProgramBuilder, body: Block, results: list[Val], rng):
    """(inputs, outputs) drawn from `rng` with every margin met and no output beyond 1e3, or None."""
    inputs = [np.asarray(rng.uniform(-1.0, 1.0, a.shape or ()), dtype=np.float64) for a in builder.arguments]
    try:
        outputs, margins = evaluate(body, builder.arguments, results, inputs)
    except FloatingPointError:  # an overflow, a division by zero or a NaN on the way: other inputs
        return None
    if min(margins, default=1.0) < MARGIN or any(np.any(np.abs(o) > 1e3) for o in outputs):
        return None
    return inputs, outputs


def examples(seed: int, count: int) -> list[tuple[list, list]]:
    """`count` (inputs, outputs) pairs for the program of `seed`, each with every margin met:
    a batch whose examples take their own branches, trip counts and gathered indices (the
    program's own inputs first; where safe inputs are too rare to find `count`, the ones
    found are repeated)."""
    attempt, builder, body, results, inputs, outputs = _drawn(seed)
    found = [(inputs, outputs)]
    for inputs_seed in range(1000, 1000 + 100 * count):
        if len(found) == count:
            break
        drawn = _safe_inputs(builder, body, results, np.random.default_rng([seed, attempt, inputs_seed]))
        if drawn is not None:
            found.append(drawn)
    return [found[k % len(found)] for k in range(count)]


if __name__ == "__main__":
    import sys

    for seed in map(int, sys.argv[1:]):
        program = generate(seed)
        print(program.text)
        print(sorted(program.features))
