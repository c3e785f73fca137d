"""Random `linalg.generic` ops for the standard-MLIR program generator: maps,
inits, bodies with captured scalars and gathers, reduction combiners; each
with its NumPy evaluation (see `standard_programs.py`)."""
from __future__ import annotations

import numpy as np

from standard_values import Block, Evaluation, IndexVal, Val, interval_product, mlir_type

COMBINE_TEXT = {
    "addf": ["{n} = arith.addf {e}, {acc} : f32"],
    "addf_reversed": ["{n} = arith.addf {acc}, {e} : f32"],
    "subf": ["{n} = arith.subf {acc}, {e} : f32"],
    "mulf": ["{n} = arith.mulf {e}, {acc} : f32"],
    "maximumf": ["{n} = arith.maximumf {e}, {acc} : f32"],
    "minimumf": ["{n} = arith.minimumf {acc}, {e} : f32"],
    "select_max": ["{c} = arith.cmpf ogt, {e}, {acc} : f32", "{n} = arith.select {c}, {e}, {acc} : f32"],
    "if_max": [
        "{c} = arith.cmpf ogt, {e}, {acc} : f32", "{n} = scf.if {c} -> (f32) {{", "  scf.yield {e} : f32",
        "}} else {{", "  scf.yield {acc} : f32", "}}",
    ],
}  # fmt: skip
GATHERS_IN_BODY_BRANCHES = True
"""A `tensor.extract` of a captured tensor inside an `scf.if` in a body: differentiated since
autodiff_pass/hoist_branch_gathers.py (refused before, "only tensor.extract directly in the
body is supported")."""
MAX_LIKE = {"maximumf": np.max, "select_max": np.max, "if_max": np.max, "minimumf": np.min}


def map_text(rank: int, results) -> str:
    dims = ", ".join(f"d{k}" for k in range(rank))
    return f"affine_map<({dims}) -> ({', '.join(r if isinstance(r, str) else f'd{r}' for r in results)})>"


def read_through_map(array, results, iteration) -> np.ndarray:
    """The operand's value at every point of the iteration space; a result is a
    dimension number, or "0" (a constant index)."""
    rank = len(iteration)
    index = []
    for result in results:
        if isinstance(result, str):
            index.append(int(result))
        else:
            shape = [1] * rank
            shape[result] = iteration[result]
            index.append(np.arange(iteration[result]).reshape(shape))
    return np.broadcast_to(np.asarray(array)[tuple(index)], iteration)


def maps_for(shape, iteration) -> list[tuple]:
    """Projected permutations from `iteration` onto `shape`: identity, broadcast, transpose."""
    rank = len(iteration)
    if shape == ():
        return [()]
    if len(shape) == 1:
        return [(k,) for k in range(rank) if iteration[k] == shape[0]]
    return [
        (a, b) for a in range(rank) for b in range(rank)
        if a != b and iteration[a] == shape[0] and iteration[b] == shape[1]
    ]  # fmt: skip


class GenericBuilder:
    """One random `linalg.generic` in `block`."""

    def __init__(self, builder, block: Block):
        self.b = builder
        self.block = block
        self.rng = builder.rng

    def build(self) -> list[Val]:
        """Emits the op; returns its results."""
        self.iteration = self.rng.choice([(3, 4), (3, 4), (3, 4), (4,), (3,)])
        self.body = Block(self.block, "body", self.iteration)
        operands = self.float_inputs()
        if not operands:
            return []
        self.choose_reduced_loops(operands)
        self.integer_arguments = []
        if self.rng.random() < 0.3:
            operands.append(self.integer_input())
        self.readable_inits: list[tuple[Val, Val]] = []
        outputs = [self.output(self.body) for _ in range(1 if self.rng.random() < 0.75 else 2)]
        yields = self.fill_body(operands, outputs)
        names = self.emit_op(operands, outputs)
        self.block.steps.append(self.step(operands, outputs, yields, names))
        return [
            Val(n, self.output_shape, *self.result_interval(combiner, init, value))
            for n, (_, _, _, combiner, init), value in zip(names, outputs, yields)
        ]

    def float_inputs(self) -> list[tuple]:
        """1-3 tensors in scope, each read through a map (identity, broadcast,
        transpose or constant): (name, type, map results, block argument)."""
        b, rng, rank = self.b, self.rng, len(self.iteration)
        operands = []
        candidates = [t for t in b.tensors(self.block) if maps_for(t.shape, self.iteration)]
        for _ in range(rng.choice([1, 1, 2, 2, 3])):
            if not candidates:
                break
            source = b.pick(candidates, self.block)
            b.use(source)
            results = rng.choice(maps_for(source.shape, self.iteration))
            if len(source.shape) == 2 and results != (0, 1):
                b.features.add("map.transpose")
            if len(source.shape) < rank:
                b.features.add("map.broadcast")
            if len(source.shape) == 1 and rank == 2 and rng.random() < 0.3:  # (d0, d1) -> (0, dk)
                source, results = self.expanded(source), ("0", *results)
                b.features.add("map.constant")
            argument = Val(b.name("a"), None, source.lo, source.hi)
            operands.append((source.name, source.type, results, argument))
            self.body.values.append(argument)
        return operands

    def choose_reduced_loops(self, operands) -> None:
        """Every loop must appear in some map: only loops an input reads may be reduced."""
        rng, rank = self.rng, len(self.iteration)
        covered = sorted({r for _, _, results, _ in operands for r in results if not isinstance(r, str)})
        reducible = [{k} for k in covered] + ([set(covered)] if len(covered) > 1 else [])
        self.reduced = set() if rng.random() < 0.45 or not reducible else rng.choice(reducible)
        self.output_shape = tuple(d for k, d in enumerate(self.iteration) if k not in self.reduced)
        self.output_results = tuple(k for k in range(rank) if k not in self.reduced)

    def integer_input(self) -> tuple:
        """A constant i32 tensor along one loop: indices read from data."""
        b, rng = self.b, self.rng
        k = rng.randrange(len(self.iteration))
        indices, type_ = b.name("ix"), mlir_type((self.iteration[k],), "i32")
        values = [rng.randrange(3) for _ in range(self.iteration[k])]
        b.emit(self.block, f"{indices} = arith.constant dense<{values}> : {type_}",
               lambda ev: ev.env.__setitem__(indices, np.array(values)))  # fmt: skip
        argument = b.name("a")
        self.integer_arguments.append(argument)
        return indices, type_, (k,), argument

    def fill_body(self, operands, outputs) -> list[Val]:
        """The body's expressions and combiners; returns each output's value
        before its combiner (what the NumPy evaluation reduces)."""
        b, rng, body = self.b, self.rng, self.body
        yields, yielded = [], []
        float_arguments = [argument for _, _, _, argument in operands if isinstance(argument, Val)]
        for position, (_, _, argument, combiner, _) in enumerate(outputs):
            value = b.expression(body, self.body_leaf, None, rng.randint(1, 3))
            if position == 0:  # every input reaches the first output
                for unread in (a for a in float_arguments if a.uses == 0):
                    op = rng.choice(["arith.addf", "arith.mulf", "arith.subf"])
                    value = b.bounded(body, b.binary(body, op, value, unread))
            if combiner == "mulf":  # factors near 1: a product of small ones hides its gradient
                value = b.scaled_into(body, value, 1.0)
                value = b.binary(body, "arith.mulf", value, b.constant(body, 0.25, None))
                value = b.binary(body, "arith.addf", value, b.constant(body, 1.0, None))
            b.use(value)
            yields.append(value)
            if combiner is None:
                yielded.append(value.name)
                continue
            combined, predicate = b.name(), b.name("p")
            for line in COMBINE_TEXT[combiner]:
                body.lines.append(line.format(n=combined, e=value.name, acc=argument, c=predicate))
            yielded.append(combined)
            b.features.add(f"reduction.{combiner}")
        for readable, init in self.readable_inits:
            if readable.uses:
                b.use(init)
        body.lines.append(f"linalg.yield {', '.join(yielded)} : {', '.join('f32' for _ in outputs)}")
        return yields

    def emit_op(self, operands, outputs) -> list[str]:
        """Appends the op's text to the block; returns its result names."""
        b, rank = self.b, len(self.iteration)
        name = b.name("g")
        result_types = [init_type for _, init_type, _, _, _ in outputs]
        maps = [map_text(rank, results) for _, _, results, _ in operands]
        maps += [map_text(rank, self.output_results) for _ in outputs]
        iterators = ", ".join('"reduction"' if k in self.reduced else '"parallel"' for k in range(rank))
        block_arguments = [
            f"{argument.name}: f32" if isinstance(argument, Val) else f"{argument}: i32"
            for _, _, _, argument in operands
        ] + [f"{argument}: f32" for _, _, argument, _, _ in outputs]
        result = name if len(outputs) == 1 else f"{name}:{len(outputs)}"
        self.block.lines += [
            f"{result} = linalg.generic {{indexing_maps = [{', '.join(maps)}], iterator_types = [{iterators}]}}",
            f"    ins({', '.join(o[0] for o in operands)} : {', '.join(o[1] for o in operands)})"
            f" outs({', '.join(o[0] for o in outputs)} : {', '.join(result_types)}) {{",
            f"^bb0({', '.join(block_arguments)}):",
            *[f"  {line}" for line in self.body.lines],
            f"}} -> {result_types[0] if len(outputs) == 1 else '(' + ', '.join(result_types) + ')'}",
        ]
        b.features.add("linalg.generic.reduction" if self.reduced else "linalg.generic.parallel")
        if len(outputs) == 2:
            b.features.add("linalg.generic.two_outputs")
        return [name] if len(outputs) == 1 else [f"{name}#{k}" for k in range(len(outputs))]

    def expanded(self, source: Val) -> Val:
        """`source` (n) as a tensor<1xn> read through a constant map."""
        b = self.b
        name = b.name("t")
        (size,) = source.shape
        b.emit(
            self.block,
            f"{name} = tensor.expand_shape {source.name} [[0, 1]] output_shape [1, {size}] : "
            f"{source.type} into {mlir_type((1, size))}",
            lambda ev: ev.env.__setitem__(name, np.reshape(ev.env[source.name], (1, size))),
        )  # fmt: skip
        b.features.add("tensor.expand_shape")
        return Val(name, (1, size), source.lo, source.hi)

    def output(self, body: Block):
        b, rng = self.b, self.rng
        shape = self.output_shape
        pool = b.tensors(self.block, shape)
        argument = b.name("o")
        if not self.reduced:
            if pool and rng.random() < 0.6:
                init = b.pick(pool, self.block)  # used only where the body reads it
                readable = Val(argument, None, init.lo, init.hi)
                self.readable_inits.append((readable, init))
                body.values.append(readable)  # the body may read the init
                b.features.add("linalg.generic.active_init")
                return init.name, init.type, argument, None, init
            name = b.name("t")
            b.emit(self.block, f"{name} = tensor.empty() : {mlir_type(shape)}")
            return name, mlir_type(shape), argument, None, None
        combiner = rng.choices(list(COMBINE_TEXT), (4, 2, 2, 3, 3, 1.5, 1.5, 1.5))[0]
        if pool and rng.random() < 0.5:
            init = b.pick(pool, self.block)
            b.use(init)
            b.features.add("reduction.active_init")
            return init.name, init.type, argument, combiner, init
        value = {"mulf": 1.0, "maximumf": -6.0, "select_max": -6.0, "if_max": -6.0, "minimumf": 6.0}.get(
            combiner, rng.choice([0.0, 0.5])
        )
        init = b.constant(self.block, value, shape)
        return init.name, init.type, argument, combiner, init

    # ---- the body's operands ----------------------------------------------------------------
    def body_leaf(self, block: Block) -> Val:
        b, rng = self.b, self.rng
        local, captured = self.scalars(block)
        choice = rng.random()
        if local and choice < 0.55:
            return b.pick(local, block)
        if captured and choice < 0.75:
            b.features.add("generic.captured_scalar")
            return b.pick(captured, self.block)
        if choice < 0.95 and (block is self.body or GATHERS_IN_BODY_BRANCHES):
            return self.gather(block)
        if choice < 0.95:
            return b.pick(local or captured, block) if local or captured else self.gather(self.body)
        return self.index_as_float(block)

    @staticmethod
    def scalars(block: Block) -> tuple[list[Val], list[Val]]:
        """Scalars computed in the body (its arguments included), and captured ones."""
        local, captured = [], []
        while block is not None:
            scalars = [v for v in block.values if v.shape is None]
            (local if block.in_body else captured).extend(scalars)
            block = block.parent
        return local, captured

    def linalg_index(self, block: Block, k: int) -> IndexVal:
        """`linalg.index k`, at the top of the body (xDSL wants the generic as its parent)."""
        body = self.body
        if k not in body.linalg_indices:
            name = self.b.name("i")
            shape = [1] * len(self.iteration)
            shape[k] = self.iteration[k]
            positions = np.arange(self.iteration[k]).reshape(shape)
            body.lines.insert(0, f"{name} = linalg.index {k} : index")
            body.steps.insert(0, lambda ev: ev.env.__setitem__(name, positions))
            body.linalg_indices[k] = IndexVal(name, self.iteration[k])
        return body.linalg_indices[k]

    def gather_index(self, block: Block, size: int) -> str:
        """An index into a dimension of `size` computed in the body."""
        b, rng = self.b, self.rng
        local, _ = self.scalars(block)
        options = ["constant", "modular"] + (["float_data"] if local else [])
        options += ["linalg_index"] * 2 if size in self.iteration else []
        options += ["integer_data"] * 2 if self.integer_arguments else []
        options += ["induction_variable"] if any(i.bound <= size for i in block.visible_indices()) else []
        kind = rng.choice(options)
        if kind != "float_data":
            b.features.add(f"gather.{kind}")
        if kind == "constant":
            return b.index_constant(block, rng.randrange(size))
        if kind == "induction_variable":
            return rng.choice([i for i in block.visible_indices() if i.bound <= size]).name
        if kind == "linalg_index":
            return self.linalg_index(block, rng.choice([k for k, d in enumerate(self.iteration) if d == size])).name
        if kind == "modular":  # (i + c) mod size: not an affine read
            position = self.linalg_index(block, rng.randrange(len(self.iteration)))
            shift, modulus = b.index_constant(block, rng.randint(1, 3)), b.index_constant(block, size)
            total, name = b.name("i"), b.name("i")
            b.emit(block, f"{total} = arith.addi {position.name}, {shift} : index",
                   lambda ev: ev.env.__setitem__(total, ev.env[position.name] + ev.env[shift]))
            b.emit(block, f"{name} = arith.remui {total}, {modulus} : index",
                   lambda ev: ev.env.__setitem__(name, ev.env[total] % ev.env[modulus]))  # fmt: skip
            return name
        if kind == "integer_data":  # values in [0, 3): valid in every dimension
            argument = rng.choice(self.integer_arguments)
            name = b.name("i")
            b.emit(block, f"{name} = arith.index_cast {argument} : i32 to index",
                   lambda ev: ev.env.__setitem__(name, ev.env[argument]))  # fmt: skip
            return name
        return b.float_data_index(block, b.pick(local, block), size)

    def gather(self, block: Block) -> Val:
        """`tensor.extract` of a captured tensor inside the body."""
        b, rng = self.b, self.rng
        source = b.pick(b.tensors(self.block), self.block)
        indices = [self.gather_index(block, size) for size in source.shape]
        name = b.name("s")
        b.use(source)
        b.emit(
            block, f"{name} = tensor.extract {source.name}[{', '.join(indices)}] : {source.type}",
            lambda ev: ev.env.__setitem__(name, np.asarray(ev.env[source.name])[tuple(ev.env[i] for i in indices)]),
        )  # fmt: skip
        b.features.add("generic.gather")
        return Val(name, None, source.lo, source.hi)

    def index_as_float(self, block: Block) -> Val:
        """sitofp of linalg.index: a float that carries no derivative."""
        b = self.b
        position = self.linalg_index(block, self.rng.randrange(len(self.iteration)))
        integer, name = b.name("n"), b.name("f")
        b.emit(block, f"{integer} = arith.index_cast {position.name} : index to i64",
               lambda ev: ev.env.__setitem__(integer, ev.env[position.name]))
        b.emit(block, f"{name} = arith.sitofp {integer} : i64 to f32",
               lambda ev: ev.env.__setitem__(name, ev.env[integer].astype(np.float64)))  # fmt: skip
        b.features.add("generic.index_as_float")
        return Val(name, None, 0.0, float(position.bound - 1))

    # ---- evaluation ---------------------------------------------------------------------------
    def result_interval(self, combiner, init, value) -> tuple[float, float]:
        if combiner is None:
            return value.lo, value.hi
        count = int(np.prod([self.iteration[k] for k in self.reduced]))
        if combiner in ("addf", "addf_reversed"):
            return init.lo + count * value.lo, init.hi + count * value.hi
        if combiner == "subf":
            return init.lo - count * value.hi, init.hi - count * value.lo
        if combiner == "mulf":
            interval = Val("", None, init.lo, init.hi)
            for _ in range(count):
                interval = Val("", None, *interval_product(interval, value))
            return interval.lo, interval.hi
        if combiner == "minimumf":
            return min(init.lo, value.lo), min(init.hi, value.hi)
        return max(init.lo, value.lo), max(init.hi, value.hi)

    def step(self, operands, outputs, yields, names):
        iteration, body = self.iteration, self.body
        axes = tuple(sorted(self.reduced))

        def run(ev: Evaluation) -> None:
            for source, _, results, argument in operands:
                key = argument.name if isinstance(argument, Val) else argument
                ev.env[key] = read_through_map(ev.env[source], results, iteration)
            for init_name, _, argument, combiner, _ in outputs:
                if combiner is None:
                    ev.env[argument] = np.broadcast_to(np.asarray(ev.env.get(init_name, np.zeros(iteration))), iteration)
            body.run(ev)
            for name, (init_name, _, _, combiner, _), value in zip(names, outputs, yields):
                element = np.broadcast_to(np.asarray(ev.env[value.name], dtype=np.float64), iteration)
                if combiner is None:
                    ev.env[name] = np.array(element)
                    continue
                init = np.asarray(ev.env[init_name], dtype=np.float64)
                if combiner in ("addf", "addf_reversed"):
                    ev.env[name] = init + element.sum(axis=axes)
                elif combiner == "subf":
                    ev.env[name] = init - element.sum(axis=axes)
                elif combiner == "mulf":
                    ev.env[name] = init * element.prod(axis=axes)
                else:
                    kept = [k for k in range(len(iteration)) if k not in axes]
                    candidates = np.transpose(element, kept + list(axes)).reshape(init.shape + (-1,))
                    candidates = np.concatenate([candidates, init[..., None]], axis=-1)
                    ordered = np.sort(candidates, axis=-1)
                    ev.record(ordered[..., -1] - ordered[..., -2] if combiner != "minimumf" else ordered[..., 1] - ordered[..., 0])
                    reduce = MAX_LIKE[combiner]
                    ev.env[name] = reduce(candidates, axis=-1)

        return run
