"""Give fused generics back their named form, but only where the body says exactly that.

MLIR 22's `linalg-specialize-generic-ops` recognises a contraction body as
`add(acc, mul(u(a), u(b)))` where `u` may be *any* chain of one-operand ops,
meant for casts. After elementwise fusion a generic such as
`acc + exp(a) * b` over a batch-matmul iteration space matches, and becomes a
`linalg.batch_matmul` without the `exp`: a silently wrong result. Here only
generics whose bodies use nothing but multiply, add, float casts and yield are
marked, and `transform.structured.specialize` (the same upstream rewrite) is
applied to the marked ones; every other generic stays a generic and lowers
to loops.

Nor is a generic that reads through a window (an indexing map with a sum or a
multiple of loops, `d0 * 2 + d1`): MLIR 22 names a strided or dilated one
`linalg.conv_1d`, which has neither, so it read `x[o + k]` for `x[2 o + k]`, a
wrong result without an error (convolutions get their own schedule,
`convolutions_as_matmuls`).

A batched contraction whose first input indexes the output's columns, not its
rows (`out(b, i, k) += B(b, k, j) * g(b, i, j)`, as a gradient is written) stays
a generic: MLIR names it a `linalg.batch_matmul` whose output map its verifier
rejects ("Invalid output map result dimension"). A plain matmul so named is
right (it writes C transposed); only its speed suffers (no vector schedule).
"""
from __future__ import annotations

from mlir import ir

from gradir.mlir_bridge import apply_schedule, walk_ops

# Operations a body may contain and still be named: the ones a named
# contraction, copy, transpose, broadcast or add denotes, casts included.
PURE_BODY_OPS = frozenset({"linalg.yield", "arith.mulf", "arith.addf", "arith.extf", "arith.truncf"})
_MARK = "gradir.pure_body"

SPECIALIZE_SCHEDULE = f"""
module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
    %pure = transform.structured.match ops{{["linalg.generic"]}} attributes{{{_MARK}}} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %pure : !transform.any_op {{
    ^bb0(%generic: !transform.any_op):
      transform.sequence %generic : !transform.any_op failures(suppress) {{
      ^bb1(%one: !transform.any_op):
        %named = transform.structured.specialize %one : (!transform.any_op) -> !transform.any_op
      }}
    }}
    transform.yield
  }}
}}
"""


def has_pure_body(generic: ir.Operation) -> bool:
    """True when every op of the generic's body is a multiply, add, float cast or the yield."""
    return all(op.name in PURE_BODY_OPS for op in generic.regions[0].blocks[0].operations)


def _is_contraction_like(generic: ir.Operation) -> bool:
    kinds = [str(kind) for kind in ir.ArrayAttr(generic.attributes["iterator_types"])]
    body = {op.name for op in generic.regions[0].blocks[0].operations}
    return any("reduction" in kind for kind in kinds) and {"arith.mulf", "arith.addf"} <= body


def specialize_pure_generics(module: ir.Module, contractions_only: bool = False) -> None:
    """Named form for each generic with a pure body; others are left as they are.

    With `contractions_only`, only sum-of-products reductions are considered
    (before fusion: an elementwise generic must stay a generic to be fused).
    """
    marked = []
    with module.context:
        for generic in walk_ops(module, {"linalg.generic"}):
            if contractions_only and not _is_contraction_like(generic):
                continue
            if has_pure_body(generic) and _reads_no_window(generic) and not _batched_with_columns_first(generic):
                generic.attributes[_MARK] = ir.UnitAttr.get()
                marked.append(generic)
    if not marked:
        return
    apply_schedule(module, SPECIALIZE_SCHEDULE, "cpu-tensor")
    with module.context:
        for generic in walk_ops(module, {"linalg.generic"}):
            if _MARK in generic.attributes:
                del generic.attributes[_MARK]


def _reads_no_window(generic: ir.Operation) -> bool:
    """True when every indexing map result is a loop or a constant (no `d0 * 2 + d1`)."""
    maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(generic.attributes["indexing_maps"])]
    return all(isinstance(e, ir.AffineDimExpr | ir.AffineConstantExpr) for m in maps for e in m.results)


def _dims(map_: ir.AffineMap) -> list[int] | None:
    dims = []
    for expr in map_.results:
        if not isinstance(expr, ir.AffineDimExpr):
            return None
        dims.append(expr.position)
    return dims


def _batched_with_columns_first(generic: ir.Operation) -> bool:
    """A batched two-input contraction whose first input does not index the output's
    rows: `out(b, i, k) += B(b, k, j) * g(b, i, j)`. MLIR 22 names it a batch_matmul
    with the output map `(d0, d2, d1)`, which its verifier rejects (a plain matmul so
    named is right: it writes C transposed). So it does one over five loops (two batch
    dimensions), with "Unexpected result dim expression"."""
    if not _is_contraction_like(generic) or len(generic.operands) != 3:
        return False
    if len(ir.ArrayAttr(generic.attributes["iterator_types"])) > 4:
        return True  # two batch dims (a vmap of a batch_matmul's generic view): no named op has them
    maps = [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(generic.attributes["indexing_maps"])]
    output, first = _dims(maps[-1]), _dims(maps[0])
    if output is None or first is None or len(output) < 3:
        return False
    return output[-2] not in first
