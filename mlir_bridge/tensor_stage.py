"""The tensor stage both backends start with: every elementwise op becomes a `linalg.generic`,
and chains of them fuse into one loop nest, so no intermediate tensor reaches memory.

`linalg-fuse-elementwise-ops` only fuses `linalg.generic`s, so `TENSOR_SCHEDULE` (a transform
script, run with `mlir_bridge.apply_schedule`) first decomposes `linalg.softmax` into generics and
generalises the named elementwise ops; it also writes `tensor.pad` as a fill and an
`insert_slice` (bufferized as it is, a pad becomes a `linalg.map` no GPU mapping takes); `ELEMENTWISE_FUSION_PIPELINE` then turns arith/math on
whole tensors into generics and fuses them. What each backend does around this stage differs:
the CPU names pure contractions before fusion and specialises generics after it, before any
cleanup (`cpu_backend.cpu_pipeline.fuse_tensors`); the GPU cleans up right away
(`gpu_backend.gpu_pipeline.bufferize_for_gpu`).
"""
from __future__ import annotations

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
