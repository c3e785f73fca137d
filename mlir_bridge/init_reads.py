"""Elementwise generics read their inits as inputs, before elementwise fusion.

A `linalg.generic` with only parallel loops that reads its output's initial
value (`out + x`) is elementwise all the same: each element is written once.
MLIR 22's `linalg-fuse-elementwise-ops` fuses such a producer into a consumer
that broadcasts its result (`(d0) -> ()` in the consumer) by keeping the
producer's init as an output of the fused op, through the broadcasting map;
the fused body then reads back what earlier iterations wrote there, so the
value accumulates across the consumer's loop (`x + x + ...`). Read as an
input (`ins(..., %init)` with the output's map, `outs(tensor.empty())`), the
init is only read, and the fused op is right.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import linalg, tensor

from gradir.mlir_bridge import walk_ops


def _all_parallel(op: ir.Operation) -> bool:
    return all("parallel" in str(kind) for kind in ir.ArrayAttr(op.attributes["iterator_types"]))


def parallel_init_reads_as_inputs(module: ir.Module) -> int:
    """Rewrite every all-parallel generic of `module` whose body reads an init
    through a permutation map; returns how many were rewritten."""
    count = 0
    with module.context:
        for op in walk_ops(module, {"linalg.generic"}):
            generic = op.opview
            block = op.regions[0].blocks[0]
            inputs, outputs = list(generic.inputs), list(generic.outputs)
            maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]
            output_arguments = list(block.arguments)[len(inputs) :]
            read = [
                j for j, (argument, init) in enumerate(zip(output_arguments, outputs))
                if any(True for _ in argument.uses) and isinstance(init.type, ir.RankedTensorType)
                and maps[len(inputs) + j].is_permutation
            ]  # fmt: skip
            if not read or not _all_parallel(op):
                continue
            _rewrite(op, inputs, outputs, maps, read)
            count += 1
    return count


def _rewrite(op: ir.Operation, inputs: list, outputs: list, maps: list, read: list[int]) -> None:
    block = op.regions[0].blocks[0]
    with ir.InsertionPoint(op), op.location:
        empties = {}
        for j in read:
            shaped = ir.RankedTensorType(outputs[j].type)
            empties[j] = tensor.EmptyOp(shaped.shape, shaped.element_type).result
        new_outputs = [empties.get(j, init) for j, init in enumerate(outputs)]
        new_maps = maps[: len(inputs)] + [maps[len(inputs) + j] for j in read] + maps[len(inputs) :]
        replacement = linalg.GenericOp(
            [result.type for result in op.results],
            inputs + [outputs[j] for j in read],
            new_outputs,
            ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in new_maps]),
            op.attributes["iterator_types"],
        )
    for name in ("doc", "library_call"):
        if name in op.attributes:
            replacement.attributes[name] = op.attributes[name]
    arguments = list(block.arguments)
    element = lambda value: ir.ShapedType(value.type).element_type  # noqa: E731
    argument_types = [
        *[a.type for a in arguments[: len(inputs)]],
        *[element(outputs[j]) for j in read],
        *[a.type for a in arguments[len(inputs) :]],
    ]
    new_block = replacement.regions[0].blocks.append(*argument_types, arg_locs=[op.location] * len(argument_types))
    new_arguments = list(new_block.arguments)
    for k in range(len(inputs)):
        arguments[k].replace_all_uses_with(new_arguments[k])
    for position, j in enumerate(read):
        arguments[len(inputs) + j].replace_all_uses_with(new_arguments[len(inputs) + position])
    for j in range(len(outputs)):
        arguments[len(inputs) + j].replace_all_uses_with(new_arguments[len(inputs) + len(read) + j])
    for inner in list(block.operations):
        new_block.append(inner)
    for old, new in zip(op.results, replacement.results):
        old.replace_all_uses_with(new)
    op.erase()
