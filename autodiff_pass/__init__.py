"""Automatic differentiation passes: rules, activity, reverse and forward mode, zero specialisation, the f/df split.

Passes are importable from this package (`from gradir.autodiff_pass import AutodiffReversePass`) and
usable in any xDSL `PassPipeline`; they load on first use. Which passes it
exports comes from the one pass table, `gradir.pass_table`.
"""
from gradir.lazy_exports import lazy_exports
from gradir.pass_table import pass_exports

_EXPORTS = {
    **pass_exports(__name__),
    "Gradient": "gradir.autodiff_pass.split",
    "differentiate": "gradir.autodiff_pass.split",
    "register_vjp": "gradir.autodiff_pass.rules",
    "register_jvp": "gradir.autodiff_pass.rules",
    "get_rule": "gradir.autodiff_pass.rules",
}

__all__ = list(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
