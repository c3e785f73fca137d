"""Each `linalg.batch_matmul` becomes a loop of `linalg.matmul`s over the batch.

MLIR 22's vector lowering does not terminate on batched contractions, so the CPU
schedule used to leave `linalg.batch_matmul` to scalar loops (a quarter of the
ADBench GMM (64, 200) objective). A loop over the batch whose body multiplies
one pair of matrices (rank-reducing `tensor.extract_slice`s, `linalg.matmul`,
`tensor.insert_slice` into the loop's accumulator) gives each product the
register-blocked FMA schedule of a plain matmul. The loop lives in a private
function per shape, called in place and inlined again by the pipeline.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import func

from gradir.mlir_bridge import walk_ops

_PREFIX = "__gradir_batch_matmul_"

_TEMPLATE = """
func.func private @{name}(%a: {a}, %b: {b}, %c: {c}) -> {c} {{
  %zero = arith.constant 0 : index
  %one = arith.constant 1 : index
  %batch = arith.constant {batch} : index
  %r = scf.for %i = %zero to %batch step %one iter_args(%acc = %c) -> ({c}) {{
    %ai = tensor.extract_slice %a[%i, 0, 0] [1, {m}, {k}] [1, 1, 1] : {a} to tensor<{m}x{k}x{t}>
    %bi = tensor.extract_slice %b[%i, 0, 0] [1, {k}, {n}] [1, 1, 1] : {b} to tensor<{k}x{n}x{t}>
    %ci = tensor.extract_slice %acc[%i, 0, 0] [1, {m}, {n}] [1, 1, 1] : {c} to tensor<{m}x{n}x{t}>
    %p = linalg.matmul ins(%ai, %bi : tensor<{m}x{k}x{t}>, tensor<{k}x{n}x{t}>)
        outs(%ci : tensor<{m}x{n}x{t}>) -> tensor<{m}x{n}x{t}>
    %next = tensor.insert_slice %p into %acc[%i, 0, 0] [1, {m}, {n}] [1, 1, 1] : tensor<{m}x{n}x{t}> into {c}
    scf.yield %next : {c}
  }}
  return %r : {c}
}}
"""


_DEFAULT_MAPS = (
    "affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>",
    "affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>",
    "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>",
)


def _has_default_maps(op: ir.Operation) -> bool:
    if "indexing_maps" not in op.attributes:
        return True
    return tuple(str(m) for m in ir.ArrayAttr(op.attributes["indexing_maps"])) == _DEFAULT_MAPS


def _shapes(op: ir.Operation) -> tuple[list[int], list[int], ir.Type] | None:
    """(A's shape, B's shape, element type) of a static batch matmul on tensors, else None."""
    types = [operand.type for operand in op.operands]
    if len(types) != 3 or not all(isinstance(t, ir.RankedTensorType) for t in types):
        return None
    tensors = [ir.RankedTensorType(t) for t in types]
    if not all(t.has_static_shape for t in tensors) or not _has_default_maps(op):
        return None
    elements = {str(t.element_type) for t in tensors}
    if len(elements) != 1:
        return None
    return list(tensors[0].shape), list(tensors[1].shape), tensors[0].element_type


def batch_matmuls_as_loops(module: ir.Module) -> None:
    """Replace every static `linalg.batch_matmul` on tensors by a call of a loop of matmuls."""
    made: set[str] = set()
    with module.context, ir.Location.unknown():
        for op in walk_ops(module, {"linalg.batch_matmul"}):
            shapes = _shapes(op)
            if shapes is None:
                continue
            (batch, m, k), (_, _, n), element = shapes
            a, b, c = (str(operand.type) for operand in op.operands)
            name = f"{_PREFIX}{batch}x{m}x{k}x{n}_{element}"
            if name not in made:
                made.add(name)
                text = _TEMPLATE.format(name=name, a=a, b=b, c=c, batch=batch, m=m, k=k, n=n, t=element)
                parsed = ir.Module.parse(text)
                for definition in list(parsed.body.operations):
                    module.body.append(definition)
            with ir.InsertionPoint(op):
                call = func.CallOp([op.results[0].type], ir.FlatSymbolRefAttr.get(name), list(op.operands))
            op.results[0].replace_all_uses_with(call.results[0])
            op.erase()
