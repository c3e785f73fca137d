"""Random `scf.for`, `scf.if` and `scf.while` for the standard-MLIR program
generator, each with its NumPy evaluation (see `standard_programs.py`).

A loop state lives in S, the hull of its initial value's interval and
[-1, 1]; each iteration's update (sin, tanh, a half-and-half mix with the old
state, or an insert of such values) stays in S, so intervals hold for any
trip count."""
from __future__ import annotations


from standard_programs import SLICES, STATE_INTERVAL
from standard_values import Block, Evaluation, IndexVal, Val, mlir_type

LOOP_BOUNDS = ((0, 3, 1), (0, 3, 1), (0, 3, 1), (0, 2, 1), (1, 3, 1), (0, 3, 2), (0, 1, 1), (0, 0, 1))
"""(lower, upper, step): upper <= 3, so the induction variable indexes every dimension."""


def state_of(builder, name: str, init: Val) -> Val:
    low, high = STATE_INTERVAL
    return Val(name, init.shape, min(init.lo, low), max(init.hi, high))


def leaf_for(builder, shape):
    return builder.scalar_leaf if shape is None else builder.tensor_leaf(shape)


def update(builder, block: Block, state: Val) -> Val:
    """The state's next value, inside S."""
    b, rng = builder, builder.rng
    forms = ["sin", "tanh", "mix"]
    if state.shape not in (None, ()):
        forms += ["insert"]
    if state.shape in ((3, 4), (4, 3)):
        forms += ["insert_slice"]
    form = rng.choice(forms)
    b.features.add(f"loop_update.{form}")
    if form == "insert":
        value = b.expression(block, b.scalar_leaf, None, rng.randint(1, 2))
        return b.insert(block, b.unary(block, "math.sin", value), state)
    if form == "insert_slice":
        spec = next(s for s in SLICES if s[0] == state.shape and s[2][0] == "r")
        row = b.extract_slice(block, state, spec)
        value = b.expression(block, b.tensor_leaf(spec[1]), spec[1], rng.randint(1, 2))
        if row.uses == 0:
            value = b.binary(block, "arith.mulf", row, value)
        return b.insert_slice(block, b.unary(block, "math.sin", b.bounded(block, value)), state, spec)
    value = b.expression(block, leaf_for(b, state.shape), state.shape, rng.randint(1, 2))
    if state.uses == 0:  # the state flows into its next value
        value = b.bounded(block, b.binary(block, rng.choice(["arith.addf", "arith.mulf"]), state, value))
    if form == "sin":
        return b.unary(block, "math.sin", value)
    if form == "tanh":
        return b.unary(block, "math.tanh", b.scaled_into(block, value, 2.0))
    half = b.constant(block, 0.5, state.shape)
    kept = b.binary(block, "arith.mulf", state, half)
    new = b.binary(block, "arith.mulf", b.unary(block, "math.sin", value), half)
    return b.binary(block, "arith.addf", kept, new)


def _results(name: str, count: int) -> tuple[str, list[str]]:
    if count == 1:
        return name, [name]
    return f"{name}:{count}", [f"{name}#{k}" for k in range(count)]


def build_for(builder, block: Block, depth: int) -> list[Val]:
    b, rng = builder, builder.rng
    tensors = b.tensors(block)
    tensor_count = min(rng.choice([0, 1, 1, 1, 2]), len(tensors))
    scalar_count = rng.choice([0, 1, 1, 2]) if tensor_count else rng.choice([1, 2])
    inits = []
    for _ in range(tensor_count):
        inits.append(b.pick([t for t in tensors if t not in inits] or tensors, block))
    inits += [b.scalar_leaf(block) for _ in range(scalar_count)]
    lower, upper, step = rng.choice(LOOP_BOUNDS)
    bounds = [b.index_constant(block, v) for v in (lower, upper, step)]
    loop = Block(block, "loop")
    induction = IndexVal(b.name("iv"), max(upper, 1))
    loop.indices.append(induction)
    states = [state_of(b, b.name("st"), init) for init in inits]
    loop.values += states
    b.use(*inits)
    for _ in range(rng.randint(0, 2)):
        b.statement(loop, depth - 1)
    updates = [update(b, loop, state) for state in states]
    b.use(*updates)
    name, names = _results(b.name("r"), len(states))
    types = ", ".join(s.type for s in states)
    block.lines += [
        f"{name} = scf.for {induction.name} = {bounds[0]} to {bounds[1]} step {bounds[2]} iter_args("
        + ", ".join(f"{s.name} = {i.name}" for s, i in zip(states, inits)) + f") -> ({types}) {{",
        *[f"  {line}" for line in loop.lines],
        f"  scf.yield {', '.join(u.name for u in updates)} : {types}",
        "}",
    ]

    def run(ev: Evaluation) -> None:
        values = [ev.env[i.name] for i in inits]
        for position in range(lower, upper, step):
            ev.env[induction.name] = position
            for state, value in zip(states, values):
                ev.env[state.name] = value
            loop.run(ev)
            values = [ev.env[u.name] for u in updates]
        for result, value in zip(names, values):
            ev.env[result] = value

    block.steps.append(run)
    b.features.add("scf.for")
    if any(s.shape is None for s in states):
        b.features.add("scf.for.scalar_state")
    if any(s.shape is not None for s in states):
        b.features.add("scf.for.tensor_state")
    if len({s.shape is None for s in states}) == 2:
        b.features.add("scf.for.tensor_and_scalar_states")
    if block.kind != "function":
        b.features.add(f"scf.for.in_{block.kind}")
    return [Val(n, s.shape, s.lo, s.hi) for n, s in zip(names, states)]


def condition(builder, block: Block) -> str:
    b, rng = builder, builder.rng
    value = b.expression(block, b.scalar_leaf, None, rng.randint(0, 1))
    threshold = b.constant(block, b.split_point(value), None) if rng.random() < 0.7 else b.scalar_leaf(block)
    return b.compare(block, rng.choice(["ogt", "olt", "oge", "ole"]), value, threshold)


def build_if(builder, block: Block, depth: int) -> list[Val]:
    b, rng = builder, builder.rng
    predicate = condition(b, block)
    shapes = []
    for _ in range(rng.choice([1, 1, 2])):
        shapes.append(b.pick(b.tensors(block), block).shape if rng.random() < 0.6 else None)
    arms = []
    for _ in range(2):
        arm = Block(block, "branch")
        for _ in range(rng.randint(0, 2)):
            b.statement(arm, depth - 1)
        values = [b.expression(arm, leaf_for(b, shape), shape, rng.randint(0, 2)) for shape in shapes]
        b.use(*values)
        arms.append((arm, values))
    name, names = _results(b.name("r"), len(shapes))
    types = ", ".join(mlir_type(shape) for shape in shapes)
    lines = [f"{name} = scf.if {predicate} -> ({types}) {{"]
    for position, (arm, values) in enumerate(arms):
        if position:
            lines.append("} else {")
        lines += [f"  {line}" for line in arm.lines]
        lines.append(f"  scf.yield {', '.join(v.name for v in values)} : {types}")
    lines.append("}")
    block.lines += lines

    def run(ev: Evaluation) -> None:
        outcomes = []
        for arm, values in arms:
            arm.run(ev)
            outcomes.append([ev.env[v.name] for v in values])
        for result, taken, other in zip(names, *outcomes):
            ev.env[result] = taken if ev.env[predicate] else other

    block.steps.append(run)
    b.features.add("scf.if")
    if any(shape is not None for shape in shapes):
        b.features.add("scf.if.tensor_result")
    if block.kind == "branch":
        b.features.add("scf.if.nested")
    elif block.kind != "function":
        b.features.add(f"scf.if.in_{block.kind}")
    (_, then_values), (_, else_values) = arms
    return [
        Val(n, shape, min(x.lo, y.lo), max(x.hi, y.hi))
        for n, shape, x, y in zip(names, shapes, then_values, else_values)
    ]


def build_while(builder, block: Block, depth: int) -> list[Val]:
    """A counter and f32 states; the condition may also read a state, and
    `before` may forward a computed value."""
    b, rng = builder, builder.rng
    inits = [b.scalar_leaf(block) for _ in range(rng.choice([1, 1, 2]))]
    trips = rng.choice([1, 2, 3, 3])
    zero, limit, one = (b.index_constant(block, v) for v in (0, trips, 1))
    before = Block(block, "before")
    counter = b.name("i")
    states = [state_of(b, b.name("st"), init) for init in inits]
    before.values += states
    b.use(*inits)
    counted = go = b.name("p")
    b.emit(before, f"{counted} = arith.cmpi slt, {counter}, {limit} : index",
           lambda ev: ev.env.__setitem__(counted, ev.env[counter] < ev.env[limit]))  # fmt: skip
    if rng.random() < 0.4:  # and a state below a threshold: a data-dependent trip count
        # mostly true at first (states start in [-1, 1]): the loop runs, then may stop early
        threshold = b.constant(before, b.rng.choice([0.5, 0.75, 0.875]), None)
        below = b.compare(before, "olt", states[0], threshold)
        both = b.name("p")
        b.emit(before, f"{both} = arith.andi {counted}, {below} : i1",
               lambda ev: ev.env.__setitem__(both, ev.env[counted] and ev.env[below]))  # fmt: skip
        go = both
        b.features.add("scf.while.float_condition")
    forwarded = list(states)
    if rng.random() < 0.4:
        forwarded.append(b.bounded(before, b.expression(before, b.scalar_leaf, None, rng.randint(1, 2))))
        b.features.add("scf.while.computed_forward")
    b.use(*forwarded)
    after = Block(block, "after")
    step_counter = b.name("j")
    after.indices.append(IndexVal(step_counter, max(trips, 1)))
    received = [Val(b.name("w"), None, v.lo, v.hi) for v in forwarded]
    after.values += received
    next_counter = b.name("i")
    b.emit(after, f"{next_counter} = arith.addi {step_counter}, {one} : index",
           lambda ev: ev.env.__setitem__(next_counter, ev.env[step_counter] + 1))  # fmt: skip
    if depth > 1 and rng.random() < 0.3:
        b.statement(after, depth - 1)
    updates = [update(b, after, state) for state in received[: len(states)]]
    b.use(*updates)
    count = 1 + len(forwarded)
    name, names = _results(b.name("r"), count)
    types = ", ".join(["index"] + ["f32"] * len(forwarded))
    state_types = ", ".join(["index"] + ["f32"] * len(states))
    block.lines += [
        f"{name} = scf.while ({counter} = {zero}, "
        + ", ".join(f"{s.name} = {i.name}" for s, i in zip(states, inits)) + f") : ({state_types}) -> ({types}) {{",
        *[f"  {line}" for line in before.lines],
        f"  scf.condition({go}) {counter}, {', '.join(v.name for v in forwarded)} : {types}",
        "} do {",
        f"^bb0({step_counter}: index, {', '.join(f'{r.name}: f32' for r in received)}):",
        *[f"  {line}" for line in after.lines],
        f"  scf.yield {next_counter}, {', '.join(u.name for u in updates)} : {state_types}",
        "}",
    ]

    def run(ev: Evaluation) -> None:
        position, values = 0, [ev.env[i.name] for i in inits]
        while True:
            ev.env[counter] = position
            for state, value in zip(states, values):
                ev.env[state.name] = value
            before.run(ev)
            outputs = [position] + [ev.env[v.name] for v in forwarded]
            if not ev.env[go]:
                break
            ev.env[step_counter] = position
            for receiver, value in zip(received, outputs[1:]):
                ev.env[receiver.name] = value
            after.run(ev)
            position, values = ev.env[next_counter], [ev.env[u.name] for u in updates]
        for result, value in zip(names, outputs):
            ev.env[result] = value

    block.steps.append(run)
    b.features.add("scf.while")
    return [Val(n, None, v.lo, v.hi) for n, v in zip(names[1:], forwarded)]
