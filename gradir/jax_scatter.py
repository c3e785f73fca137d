"""`stablehlo.scatter` as the loop it means, for `from_jax` (step 3 of `jax_export`).

jaxlib's `stablehlo-legalize-to-linalg` leaves `stablehlo.scatter` as it is, and JAX emits one
for `x.at[i].add(v)`, `.at[i].set(v)`, `.at[i].mul/min/max`, `jax.ops.segment_sum` and the
gradient of every gather a program differentiates inside itself. StableHLO's rule (its spec,
"scatter") is a loop over the update elements: each finds its place in the operand from the
scatter indices and its window offset, and the update computation combines the value there
with it. That loop is what is written here, on tensors, in MLIR 22: one `scf.for` over the update
elements carrying the result (each element's coordinates recomputed from its flat index), `tensor.extract` of the current value and the update, the update
computation (the scatter's own region, moved into a private function that `inline` puts back)
on them as 0-d tensors (`jax_regions`), `tensor.insert` of its result. gradir differentiates that loop like
any other (an insert at a data index: its reverse mode reads the cotangent back there).

A window whose start index is out of bounds (beyond `operand_dim - window_size`) is skipped as
a whole, as XLA does; updates meet in the loop's order, first to last (XLA leaves the order of
colliding `set`s unspecified). Batching dimensions (what `vmap` of a scatter makes) send each
example's updates to its own slice of the operand. Static shapes and one operand are taken;
anything else is a located `SourceError`.
"""

from __future__ import annotations

import math
import re

from gradir.errors import SourceError
from gradir.jax_regions import replace_by_loop

_FIELDS = (
    "update_window_dims", "inserted_window_dims", "input_batching_dims", "scatter_indices_batching_dims",
    "scatter_dims_to_operand_dims",
)  # fmt: skip


def scatter_dimension_numbers(text: str) -> dict:
    """The fields of a printed `#stablehlo.scatter<...>` (lists; absent ones empty) and its
    `index_vector_dim` (0 when absent, StableHLO's default)."""
    numbers = {}
    for name in _FIELDS:
        found = re.search(rf"\b{name} = \[([^\]]*)\]", text)
        numbers[name] = [int(v) for v in found[1].split(",")] if found and found[1].strip() else []
    found = re.search(r"\bindex_vector_dim = (\d+)", text)
    numbers["index_vector_dim"] = int(found[1]) if found else 0
    return numbers


def scatters_to_loops(module, walk, location_of) -> None:
    """Replace every `stablehlo.scatter` of `module` (MLIR 22, unregistered dialects allowed)
    by a call of a private function holding its loop. `walk(op)` yields the ops nested in
    `op`; `location_of(op)` is the Python line a refusal names."""
    scatters = [op for op in walk(module.operation) if op.name == "stablehlo.scatter"]
    for number, scatter in enumerate(scatters):
        _scatter_to_loop(module, scatter, f"__gradir_scatter_{number}", walk, location_of)


def _scatter_to_loop(module, scatter, name: str, walk, location_of) -> None:
    from mlir import ir

    def refuse(why: str):
        raise SourceError(f"stablehlo.scatter: {why}; gradir writes one as a loop only without it",
                          location_of(scatter))  # fmt: skip

    if len(scatter.operands) != 3:
        refuse(f"{(len(scatter.operands) - 1) // 2} operands scattered together")
    operand, indices, updates = (ir.RankedTensorType(value.type) for value in scatter.operands)
    if any(not kind.has_static_shape for kind in (operand, indices, updates)):
        refuse("a tensor of dynamic shape")
    numbers = scatter_dimension_numbers(str(scatter.attributes["scatter_dimension_numbers"]))
    element = str(operand.element_type)
    region = scatter.regions[0].blocks[0]
    if [str(a.type) for a in region.arguments] != [f"tensor<{element}>"] * 2:
        refuse("an update computation not on two 0-d tensors of the operand's element type")
    text = _loop_text(name, numbers, operand, indices, updates, _scalar_combiner(region))
    if not replace_by_loop(module, scatter, name, text, walk):
        refuse("an update computation reading a value computed outside it")


_SCALAR_COMBINERS = {"arith.addf", "arith.mulf", "arith.maximumf", "arith.minimumf", "arith.addi", "arith.muli",
                     "arith.maxsi", "arith.minsi"}  # fmt: skip


def _scalar_combiner(block) -> str | None:
    """The update computation as one scalar op on (current, update), where it is one:
    `"update"` for an overwrite (`.at[].set`), `"arith.addf"` for a `linalg.generic` of
    `addf(current, update)` (`.at[].add`, `segment_sum`), ...; None for anything else. Called
    as a function, a 0-d generic's reverse recomputes its body, which reads the current
    element, so reverse mode taped the whole operand every iteration (the gradient of a
    segment_sum of 32,000 updates took 396 ms); a scalar `addf` needs nothing."""
    current, update = block.arguments
    *body, returned = list(block.operations)
    (result,) = returned.operands
    if result == update and not body:
        return "update"
    generics = [op for op in body if op.name == "linalg.generic"]
    if len(generics) != 1 or any(op.name not in ("linalg.generic", "tensor.empty") for op in body):
        return None
    (generic,) = generics
    if result != generic.results[0] or list(generic.operands)[:2] != [current, update]:
        return None
    *scalar_ops, yielded = list(generic.regions[0].blocks[0].operations)
    inputs = list(generic.regions[0].blocks[0].arguments)[:2]
    if len(scalar_ops) != 1 or len(list(generic.operands)) != 3:
        return None
    (op,) = scalar_ops
    if op.name not in _SCALAR_COMBINERS or list(op.operands) != inputs or yielded.operands[0] != op.results[0]:
        return None
    return op.name


def _loop_text(name: str, numbers: dict, operand, indices, updates, combiner: str | None = None) -> str:
    """The private function `@name(operand, indices, updates) -> operand` of StableHLO's
    scatter loop (module docstring), as MLIR text; `combiner` the update computation as a
    scalar op where it is one (`_scalar_combiner`)."""
    shape, update_shape, index_shape = list(operand.shape), list(updates.shape), list(indices.shape)
    window_dims = numbers["update_window_dims"]
    scatter_dims = [d for d in range(len(update_shape)) if d not in window_dims]
    to_operand = numbers["scatter_dims_to_operand_dims"]
    not_window = set(numbers["inserted_window_dims"]) | set(numbers["input_batching_dims"])
    operand_window_dims = [d for d in range(len(shape)) if d not in not_window]
    window_size = {d: 1 for d in range(len(shape))}
    window_offset = {}
    for operand_dim, update_dim in zip(operand_window_dims, window_dims):
        window_size[operand_dim] = update_shape[update_dim]
        window_offset[operand_dim] = f"%u{update_dim}"
    kind, index_kind, update_kind = str(operand), str(indices), str(updates)
    index_element = str(indices.element_type)
    element = str(operand.element_type)
    scalar = f"tensor<{operand.element_type}>"
    lines = [f"func.func private @{name}_region({scalar}, {scalar}) -> {scalar}"]
    lines += [
        f"func.func private @{name}(%operand: {kind}, %indices: {index_kind}, %updates: {update_kind}) -> {kind} {{"
    ]
    add = lines.append
    add("  %c0 = arith.constant 0 : index")
    add("  %c1 = arith.constant 1 : index")
    loops = update_shape or [1]  # a 0-d update: one trip
    for d, extent in enumerate(loops):
        add(f"  %n{d} = arith.constant {extent} : index")
    for d in range(len(shape)):
        add(f"  %last{d} = arith.constant {shape[d] - window_size[d]} : index")
    # One loop over every update element, its coordinates recomputed from the flat index: the
    # reverse rebuilds the operand from the elements the loop overwrote (`loop_undo`), where a
    # nest of loops cached the whole operand per iteration of every loop but the innermost.
    add(f"  %total = arith.constant {math.prod(loops)} : index")
    add(f"  %result = scf.for %flat = %c0 to %total step %c1 iter_args(%state = %operand) -> ({kind}) {{")
    state = "%state"
    pad = "    "
    stride = 1
    for d in reversed(range(len(loops))):
        add(f"{pad}%stride{d} = arith.constant {stride} : index")
        add(f"{pad}%q{d} = arith.divui %flat, %stride{d} : index")
        add(f"{pad}%u{d} = arith.remui %q{d}, %n{d} : index")
        stride *= loops[d]
    start = {}
    valid = []
    for component, operand_dim in enumerate(to_operand):
        coordinates = [f"%u{d}" for d in scatter_dims]
        if numbers["index_vector_dim"] < len(index_shape):
            add(f"{pad}%k{component} = arith.constant {component} : index")
            coordinates.insert(numbers["index_vector_dim"], f"%k{component}")
        add(f"{pad}%raw{component} = tensor.extract %indices[{', '.join(coordinates)}] : {index_kind}")
        cast = "arith.index_cast" if index_element != "index" else None
        if cast:
            add(f"{pad}%s{component} = {cast} %raw{component} : {index_element} to index")
        else:
            add(f"{pad}%s{component} = arith.addi %raw{component}, %c0 : index")
        add(f"{pad}%low{component} = arith.cmpi sge, %s{component}, %c0 : index")
        add(f"{pad}%high{component} = arith.cmpi sle, %s{component}, %last{operand_dim} : index")
        add(f"{pad}%in{component} = arith.andi %low{component}, %high{component} : i1")
        valid.append(f"%in{component}")
        start[operand_dim] = f"%s{component}"
    for operand_dim, index_dim in zip(numbers["input_batching_dims"], numbers["scatter_indices_batching_dims"]):
        # a vmapped scatter: example b's updates go to example b of the operand
        start[operand_dim] = (
            f"%u{scatter_dims[index_dim if index_dim < numbers['index_vector_dim'] else index_dim - 1]}"
        )
    condition = "%true"
    add(f"{pad}%true = arith.constant true")
    for number, flag in enumerate(valid):
        add(f"{pad}%ok{number} = arith.andi {condition}, {flag} : i1")
        condition = f"%ok{number}"
    add(f"{pad}%next = scf.if {condition} -> ({kind}) {{")
    places = []
    for d in range(len(shape)):
        parts = [p for p in (start.get(d), window_offset.get(d)) if p]
        if not parts:
            places.append("%c0")
        elif len(parts) == 1:
            places.append(parts[0])
        else:
            add(f"{pad}  %i{d} = arith.addi {parts[0]}, {parts[1]} : index")
            places.append(f"%i{d}")
    here = ", ".join(places)
    add(f"{pad}  %current = tensor.extract {state}[{here}] : {kind}")
    add(
        f"{pad}  %update = tensor.extract %updates[{', '.join(f'%u{d}' for d in range(len(update_shape)))}] : {update_kind}"
    )
    if combiner == "update":
        combined = "%update"
    elif combiner is not None:
        add(f"{pad}  %combined = {combiner} %current, %update : {element}")
        combined = "%combined"
    else:
        add(f"{pad}  %current0 = tensor.from_elements %current : tensor<{element}>")
        add(f"{pad}  %update0 = tensor.from_elements %update : tensor<{element}>")
        add(
            f"{pad}  %combined0 = func.call @{name}_region(%current0, %update0) : "
            f"(tensor<{element}>, tensor<{element}>) -> tensor<{element}>"
        )
        add(f"{pad}  %combined = tensor.extract %combined0[] : tensor<{element}>")
        combined = "%combined"
    add(f"{pad}  %written = tensor.insert {combined} into {state}[{here}] : {kind}")
    add(f"{pad}  scf.yield %written : {kind}")
    add(f"{pad}}} else {{")
    add(f"{pad}  scf.yield {state} : {kind}")
    add(f"{pad}}}")
    add(f"{pad}scf.yield %next : {kind}")
    add("  }")
    add(f"  return %result : {kind}")
    add("}")
    return "\n".join(lines) + "\n"
