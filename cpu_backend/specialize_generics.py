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
            if has_pure_body(generic):
                generic.attributes[_MARK] = ir.UnitAttr.get()
                marked.append(generic)
    if not marked:
        return
    apply_schedule(module, SPECIALIZE_SCHEDULE, "cpu-tensor")
    with module.context:
        for generic in walk_ops(module, {"linalg.generic"}):
            if _MARK in generic.attributes:
                del generic.attributes[_MARK]
