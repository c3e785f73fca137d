"""gradir: automatic differentiation for MLIR, on xDSL and upstream MLIR 22.

    import gradir
    exe = gradir.compile(source, target="cpu")    # .mlir text, path or xDSL ModuleOp
    outs = exe.call("entry", *numpy_arrays)       # or exe.entry(*arrays)
    prog = gradir.compile(source, target="cuda")  # prog.ptx, prog.call(...) with a driver
    res = gradir.gradcheck(source, "f")           # finite differences in f64
    g = gradir.differentiate(module, "f", wrt=[0, 1])   # Gradient(f, df, index lists)
    gradir.register_vjp("mydialect.op", rule); gradir.register_jvp(...)

Heavy dependencies (MLIR) load only when first needed.
"""
from gradir.errors import (
    ArgumentError,
    DifferentiationError,
    GradirError,
    PipelineError,
    RuleError,
    SourceError,
    TargetError,
)

__all__ = [
    "compile", "gradcheck", "differentiate", "Gradient", "register_vjp", "register_jvp",
    "GradirError", "SourceError", "DifferentiationError", "RuleError", "PipelineError",
    "ArgumentError", "TargetError",
]  # fmt: skip

_LAZY = {
    "compile": ("gradir.tools.compile", "compile"),
    "gradcheck": ("gradir.tools.gradcheck", "gradcheck"),
    "GradcheckResult": ("gradir.tools.gradcheck", "GradcheckResult"),
    "differentiate": ("gradir.autodiff_pass.split", "differentiate"),
    "Gradient": ("gradir.autodiff_pass.split", "Gradient"),
    "register_vjp": ("gradir.autodiff_pass.rules", "register_vjp"),
    "register_jvp": ("gradir.autodiff_pass.rules", "register_jvp"),
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        module_name, attribute = _LAZY[name]
        value = getattr(importlib.import_module(module_name), attribute)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'gradir' has no attribute '{name}'")
