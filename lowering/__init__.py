"""Lowering of the autodiff dialect to linalg/tensor/arith/math on tensors.

Passes are importable from this package (`from gradir.lowering import ConvertAutodiffToLinalgPass`) and
usable in any xDSL `PassPipeline`; they load on first use. Which passes it
exports comes from the one pass table, `gradir.pass_table`.
"""
from gradir.lazy_exports import lazy_exports
from gradir.pass_table import pass_exports

_EXPORTS = pass_exports(__name__)

__all__ = list(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
