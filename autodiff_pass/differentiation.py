"""Differentiating a module: the table of derivative functions, with the walks that build them.

`derivative_functions.DerivativeFunctions` generates each derivative function
once, but does not know how bodies are built; this module gives it the three
body builders (`reverse_walk` for vjp and grad functions, `forward_walk` for
jvp functions), so that neither walk imports the other and the table imports
neither. Both passes (`autodiff-reverse`, `autodiff-forward`) and
`split.differentiate` start here: entry ops of either kind may sit inside a
function the other mode differentiates (a jvp of a grad), so each needs all
three builders.
"""
from __future__ import annotations

from functools import partial

from xdsl.dialects.builtin import ModuleOp

from gradir.autodiff_pass.derivative_functions import BodyBuilders, DerivativeFunctions
from gradir.autodiff_pass.forward_walk import build_jvp_body
from gradir.autodiff_pass.reverse_walk import ReverseOptions, build_grad_body, build_vjp_body
from gradir.dialects.autodiff import EntryOp


def derivative_function_table(
    module: ModuleOp, options: ReverseOptions = ReverseOptions()
) -> DerivativeFunctions:
    """The derivative functions of `module`, reverse mode shaped by `options`."""
    builders = BodyBuilders(
        vjp=partial(build_vjp_body, options=options), grad=build_grad_body, jvp=build_jvp_body
    )
    return DerivativeFunctions(module, builders)


def lower_entry_ops(
    module: ModuleOp,
    kinds: tuple[type[EntryOp], ...],
    options: ReverseOptions = ReverseOptions(),
) -> None:
    """Replace every entry op of the given kinds in `module` by a call to its
    derivative function."""
    functions = derivative_function_table(module, options)
    for op in list(module.walk()):
        if isinstance(op, kinds) and op.parent is not None:
            functions.lower_entry_op(op)
