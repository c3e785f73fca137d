"""Derivative rules, all in one place: which ops can be differentiated, and how.

| module | holds |
| --- | --- |
| `registry` | the table (`get_rule`, `register_vjp`, `register_jvp`), filled from the two sources below |
| `interface` | the two kinds of rules (`DerivativeRule`, `WalkRule`) and what the walks offer them |
| `derivatives.yaml`, `yaml_loader`, `formula_rules` | the declarative rules and their loader |
| `formula` | the formula language: parse, check, emit |
| `linalg`, `tensor`, `generic` | linalg named ops, tensor ops, `linalg.generic` |
| `tensor_gather`, `tensor_regions`, `bufferization` | `tensor.gather`/`scatter`, `tensor.generate`/`pad` (through the generic rules), bufferization ops on tensors |
| `scf`, `scf_for`, `loop_cache` | `scf.if` and `scf.for` (walk rules), the loop's per-iteration cache |
| `scf_while` | `scf.while`: tangent arguments; counted, then reversed as an `scf.for` |
| `affine` | `affine.for`, differentiated as the `scf.for` it stands for |
| `func`, `ad_ops` | `func.call`, `autodiff.autograd_add` (walk rules) |

Rule modules never import the walks (`reverse_walk`, `forward_walk`): walk
rules receive them as `ReverseContext` / `ForwardContext`.
"""
from gradir.autodiff_pass.rules.interface import (
    DerivativeRule,
    ForwardContext,
    ReverseContext,
    WalkRule,
)
from gradir.autodiff_pass.rules.registry import get_rule, register_jvp, register_vjp

__all__ = [
    "get_rule", "register_vjp", "register_jvp",
    "DerivativeRule", "WalkRule", "ReverseContext", "ForwardContext",
]  # fmt: skip
