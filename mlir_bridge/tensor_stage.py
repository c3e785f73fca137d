"""The tensor stage both backends start with: every elementwise op becomes a `linalg.generic`,
and chains of them fuse into one loop nest, so no intermediate tensor reaches memory.

`linalg-fuse-elementwise-ops` only fuses `linalg.generic`s, so `TENSOR_SCHEDULE` (a transform
script, run with `mlir_bridge.apply_schedule`) first decomposes `linalg.softmax` into generics,
writes `linalg.pack`/`unpack` as a pad, a reshape and a transpose (which no bufferization takes
as they are), and generalises the named elementwise ops; it also writes `tensor.pad` as a fill and an
`insert_slice` (bufferized as it is, a pad becomes a `linalg.map` no GPU mapping takes); `ELEMENTWISE_FUSION_PIPELINE` then turns arith/math on
whole tensors into generics and fuses them. What each backend does around this stage differs:
the CPU names pure contractions before fusion and specialises generics after it, before any
cleanup (`cpu_backend.cpu_pipeline.fuse_tensors`); the GPU cleans up right away
(`gpu_backend.gpu_pipeline.bufferize_for_gpu`).
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import linalg, tensor

from gradir.mlir_bridge import walk_ops

# Named linalg ops that are elementwise in disguise. linalg.fill stays named
# (it initialises accumulators) and so do contractions, matched by name below.
GENERALIZED_OPS = (
    "linalg.elementwise", "linalg.map", "linalg.broadcast", "linalg.transpose", "linalg.copy",
    "linalg.add", "linalg.sub", "linalg.mul", "linalg.div", "linalg.max", "linalg.min",
    "linalg.powf", "linalg.exp", "linalg.log", "linalg.abs", "linalg.negf", "linalg.sqrt",
    "linalg.rsqrt", "linalg.square", "linalg.tanh", "linalg.erf", "linalg.reciprocal",
    "linalg.floor", "linalg.ceil", "linalg.round", "linalg.select",
)

TENSOR_SCHEDULE = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %aggregates = transform.structured.match ops{["linalg.softmax"]} in %root
        : (!transform.any_op) -> !transform.any_op
    %decomposed = transform.structured.decompose_interface %aggregates
        : (!transform.any_op) -> !transform.any_op
    %packs = transform.structured.match ops{["linalg.pack"]} in %root
        : (!transform.any_op) -> !transform.op<"linalg.pack">
    %pad, %expand, %pack_transpose = transform.structured.lower_pack %packs
        : (!transform.op<"linalg.pack">)
        -> (!transform.op<"tensor.pad">, !transform.op<"tensor.expand_shape">, !transform.op<"linalg.transpose">)
    %unpacks = transform.structured.match ops{["linalg.unpack"]} in %root
        : (!transform.any_op) -> !transform.op<"linalg.unpack">
    %unpack_empty, %unpack_transpose, %collapse, %slice = transform.structured.lower_unpack %unpacks
        : (!transform.op<"linalg.unpack">)
        -> (!transform.op<"tensor.empty">, !transform.op<"linalg.transpose">,
            !transform.op<"tensor.collapse_shape">, !transform.op<"tensor.extract_slice">)
    %named = transform.structured.match ops{[OPS]} in %root
        : (!transform.any_op) -> !transform.any_op
    %generic = transform.structured.generalize %named : (!transform.any_op) -> !transform.any_op
    %functions = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.apply_patterns to %functions {
      transform.apply_patterns.linalg.decompose_pad
    } : !transform.any_op
    transform.yield
  }
}
""".replace("OPS", ", ".join(f'"{name}"' for name in GENERALIZED_OPS))

ELEMENTWISE_FUSION_PIPELINE = (
    "func.func(convert-elementwise-to-linalg),"
    "linalg-fuse-elementwise-ops"
)


def move_read_inits_to_inputs(module: ir.Module) -> None:
    """Make every elementwise `linalg.generic` whose body reads an init (`outs`) value
    read it as an input instead, with a `tensor.empty` init (MLIR's own
    `MoveInitOperandsToInput` pattern, which only `linalg-fold-unit-extent-dims` runs).

    Run before `linalg-fuse-elementwise-ops`: MLIR 22's fusion keeps such a
    producer's init as an output of the fused op, indexed by the consumer's map of
    the fused operand; when that map broadcasts (`(d0, d1) -> (d1)` in a consumer
    that also loops over d0) the body then reads the value it wrote on the previous
    d0 iteration instead of the init. `p = x + c; r[i] = sum_j p[j]` computed
    `r = [8, 12, 16]` for x = c = ones(4), no error (`tests/property`'s
    standard-MLIR programs found it, through a reduction's gradient)."""
    with module.context, ir.Location.unknown():
        for op in walk_ops(module, {"linalg.generic"}):
            _move_read_inits(op.operation)


def _move_read_inits(op: ir.Operation) -> None:
    if any("parallel" not in str(kind) for kind in ir.ArrayAttr(op.attributes["iterator_types"])):
        return
    input_count, _ = ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"])
    block = op.regions[0].blocks[0]
    inputs, inits = list(op.operands)[:input_count], list(op.operands)[input_count:]
    init_arguments = list(block.arguments)[input_count:]
    read = [k for k, argument in enumerate(init_arguments) if any(True for _ in argument.uses)]
    if not read or any(not ir.RankedTensorType(inits[k].type).has_static_shape for k in read):
        return
    maps = list(ir.ArrayAttr(op.attributes["indexing_maps"]))
    with ir.InsertionPoint(op):
        new_inits = list(inits)
        for k in read:
            init_type = ir.RankedTensorType(inits[k].type)
            new_inits[k] = tensor.EmptyOp(init_type.shape, init_type.element_type).result
        moved = linalg.GenericOp(
            [result.type for result in op.results],
            inputs + [inits[k] for k in read],
            new_inits,
            ir.ArrayAttr.get(maps[:input_count] + [maps[input_count + k] for k in read] + maps[input_count:]),
            op.attributes["iterator_types"],
        )
    arguments = list(block.arguments)
    new_block = moved.regions[0].blocks.append(
        *[a.type for a in arguments[:input_count]],
        *[init_arguments[k].type for k in read],
        *[a.type for a in init_arguments],
    )
    new_arguments = list(new_block.arguments)
    for position, argument in enumerate(arguments[:input_count]):
        argument.replace_all_uses_with(new_arguments[position])
    for position, k in enumerate(read):
        init_arguments[k].replace_all_uses_with(new_arguments[input_count + position])
    for operation in list(block.operations):
        new_block.append(operation)
    for old, new in zip(op.results, moved.results):
        old.replace_all_uses_with(new)
    op.erase()
