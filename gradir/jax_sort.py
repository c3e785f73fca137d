"""`stablehlo.sort` as a loop of compare-and-swaps, for `from_jax` (step 3 of `jax_export`).

jaxlib's `stablehlo-legalize-to-linalg` leaves `stablehlo.sort` as it is, and JAX emits one for
`jnp.sort`, `argsort` (a second operand, an iota, sorted along), `lax.top_k`, `jnp.median`,
`quantile` and `percentile`. Here each row along the sorted dimension is sorted by odd-even
transposition: n rounds over the row's neighbouring pairs (even pairs, then odd ones), each
pair swapped, in every operand together, where the sort's own comparator says the right
element goes first. Only elements out of order move, so equal keys keep their order: the sort
is stable, as JAX asks (`is_stable`). It is written on tensors (`tensor.extract`, `arith.select`,
`tensor.insert` in `scf.for`s, the comparator a private function, `jax_regions`), so gradir
differentiates it like any loop: the gradient goes back through the permutation the values
took, which is JAX's. n^2 / 2 comparisons a row: meant for the small sorts of losses and
statistics, not for sorting large arrays. Static shapes only; else a located `SourceError`.
"""

from __future__ import annotations

from gradir.errors import SourceError
from gradir.jax_regions import replace_by_loop


def sorts_to_loops(module, walk, location_of) -> None:
    """Replace every `stablehlo.sort` of `module` (MLIR 22, unregistered dialects allowed) by
    a call of a private function holding its loop. `walk(op)` yields the ops nested in `op`;
    `location_of(op)` is the Python line a refusal names."""
    sorts = [op for op in walk(module.operation) if op.name == "stablehlo.sort"]
    for number, sort in enumerate(sorts):
        _sort_to_loop(module, sort, f"__gradir_sort_{number}", walk, location_of)


def _sort_to_loop(module, sort, name: str, walk, location_of) -> None:
    from mlir import ir

    def refuse(why: str):
        raise SourceError(f"stablehlo.sort: {why}; gradir writes one as a loop only without it", location_of(sort))

    kinds = [ir.RankedTensorType(value.type) for value in sort.operands]
    if any(not kind.has_static_shape for kind in kinds):
        refuse("a tensor of dynamic shape")
    dimension = ir.IntegerAttr(sort.attributes["dimension"]).value % kinds[0].rank
    if not replace_by_loop(module, sort, name, _loop_text(name, kinds, dimension), walk):
        refuse("a comparator reading a value computed outside it")


def _loop_text(name: str, kinds, dimension: int) -> str:
    """The private function `@name(operands) -> operands sorted` (module docstring) as MLIR text,
    after the comparator's declaration."""
    shape = list(kinds[0].shape)
    count = shape[dimension]
    types = [str(kind) for kind in kinds]
    scalars = [f"tensor<{kind.element_type}>" for kind in kinds]
    elements = [str(kind.element_type) for kind in kinds]
    all_types = ", ".join(types)
    compare_types = ", ".join(t for scalar in scalars for t in (scalar, scalar))
    lines = [f"func.func private @{name}_region({compare_types}) -> tensor<i1>"]
    parameters = ", ".join(f"%in{k}: {t}" for k, t in enumerate(types))
    lines.append(f"func.func private @{name}({parameters}) -> ({all_types}) {{")
    add = lines.append
    add("  %c0 = arith.constant 0 : index")
    add("  %c1 = arith.constant 1 : index")
    add("  %c2 = arith.constant 2 : index")
    add(f"  %rounds = arith.constant {count} : index")
    add(f"  %pairs_end = arith.constant {count - 1} : index")
    for d, extent in enumerate(shape):
        add(f"  %n{d} = arith.constant {extent} : index")
    state = [f"%in{k}" for k in range(len(kinds))]
    loops = [d for d in range(len(shape)) if d != dimension]  # one row per point of these

    def open_loop(label: str, start: str, end: str, step: str, depth: int) -> list[str]:
        nonlocal state
        names = [f"%{label}_s{k}" for k in range(len(kinds))]
        carried = ", ".join(f"{n} = {s}" for n, s in zip(names, state))
        add(f"{'  ' * depth}%{label}:{len(kinds)} = scf.for %{label}_i = {start} to {end} step {step} "
            f"iter_args({carried}) -> ({all_types}) {{")  # fmt: skip
        state = names
        return names

    depth = 1
    for d in loops:
        open_loop(f"row{d}", "%c0", f"%n{d}", "%c1", depth)
        depth += 1
    open_loop("round", "%c0", "%rounds", "%c1", depth)
    depth += 1
    pad = "  " * depth
    add(f"{pad}%first = arith.remui %round_i, %c2 : index")
    open_loop("pair", "%first", "%pairs_end", "%c2", depth)
    pad = "  " * (depth + 1)
    add(f"{pad}%next = arith.addi %pair_i, %c1 : index")

    def at(position: str) -> str:
        return ", ".join(position if d == dimension else f"%row{d}_i" for d in range(len(shape)))

    arguments = []
    for k in range(len(kinds)):
        add(f"{pad}%left{k} = tensor.extract {state[k]}[{at('%pair_i')}] : {types[k]}")
        add(f"{pad}%right{k} = tensor.extract {state[k]}[{at('%next')}] : {types[k]}")
        add(f"{pad}%left{k}_0 = tensor.from_elements %left{k} : {scalars[k]}")
        add(f"{pad}%right{k}_0 = tensor.from_elements %right{k} : {scalars[k]}")
        arguments += [f"%right{k}_0", f"%left{k}_0"]  # comparator(lhs, rhs): lhs goes first
    add(f"{pad}%swap0 = func.call @{name}_region({', '.join(arguments)}) : ({compare_types}) -> tensor<i1>")
    add(f"{pad}%swap = tensor.extract %swap0[] : tensor<i1>")
    written = []
    for k in range(len(kinds)):
        add(f"{pad}%new_left{k} = arith.select %swap, %right{k}, %left{k} : {elements[k]}")
        add(f"{pad}%new_right{k} = arith.select %swap, %left{k}, %right{k} : {elements[k]}")
        add(f"{pad}%put_left{k} = tensor.insert %new_left{k} into {state[k]}[{at('%pair_i')}] : {types[k]}")
        add(f"{pad}%put{k} = tensor.insert %new_right{k} into %put_left{k}[{at('%next')}] : {types[k]}")
        written.append(f"%put{k}")
    labels = [f"row{d}" for d in loops] + ["round", "pair"]
    results = written
    for level in reversed(range(len(labels))):
        add(f"{'  ' * (level + 2)}scf.yield {', '.join(results)} : {all_types}")
        add(f"{'  ' * (level + 1)}}}")
        results = [f"%{labels[level]}#{k}" for k in range(len(kinds))]
    add(f"  return {', '.join(results)} : {all_types}")
    add("}")
    return "\n".join(lines) + "\n"
