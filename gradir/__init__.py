"""gradir: automatic differentiation for MLIR, on xDSL and upstream MLIR 22.

    import gradir
    exe = gradir.compile(source, target="cpu")    # .mlir text, path or xDSL ModuleOp
    out = exe.entry(*numpy_arrays)                # one result: itself; several: a tuple
    outs = exe.call("entry", *numpy_arrays)       # always a tuple, one value per result
    prog = gradir.compile(source, target="cuda")  # prog.ptx, prog.call(...) with a driver
    res = gradir.gradcheck(source, "f")           # finite differences in f64
    g = gradir.differentiate(module, "f", wrt=[0, 1])   # Gradient(f, df, index lists)
    gradir.register_vjp("mydialect.op", rule); gradir.register_jvp(...)
    f = gradir.vmap(source, "f", in_axes=(0, None))   # batched callable (torch.func.vmap)
    J = gradir.jacobian(source, "f", wrt=[0]); H = gradir.hessian(source, "loss")
    text = gradir.from_jax(loss, w, x)            # a JAX function as linalg-on-tensors MLIR (needs jax)
    with gradir.timing() as report: ...           # where a compile spent its time: print(report)
    gradir.export(source, target="cpu", path="libf.so")  # libf.so + libf.h + libf.json ("cuda" too)
    lib = gradir.load("libf.so")                  # lib.f(*arrays): NumPy and ctypes only

Heavy dependencies (MLIR) load only when first needed.
"""
from gradir.errors import (
    AllocationError,
    RunTimeCheckError,
    ArgumentError,
    DifferentiationError,
    GradirError,
    InternalError,
    NoFunctionError,
    PipelineError,
    RuleError,
    SourceError,
    TargetError,
)
from gradir.lazy_exports import lazy_exports
from gradir import xdsl_threads

xdsl_threads.install_when_loaded()  # xDSL's implicit builders, thread-safe

_EXPORTS = {
    "compile": "gradir.compilation",
    "export": "gradir.compilation",
    "load": "gradir.library_loading",
    "NativeLibrary": "gradir.native_library",
    "gradcheck": "gradir.gradient_check",
    "GradcheckResult": "gradir.gradient_check",
    "differentiate": "gradir.autodiff_pass.split",
    "Gradient": "gradir.autodiff_pass.split",
    "register_vjp": "gradir.autodiff_pass.rules",
    "register_jvp": "gradir.autodiff_pass.rules",
    "from_jax": "gradir.jax_export",
    "from_stablehlo": "gradir.jax_export",
    "timing": "gradir.instrumentation",
    "vmap": "gradir.batched_api",
    "jacobian": "gradir.batched_api",
    "hessian": "gradir.batched_api",
    "register_batching_rule": "gradir.autodiff_pass.rules.batching",
}
"""The Python API (DESIGN section 5), loaded on first use."""

__all__ = [
    *_EXPORTS,
    "GradirError", "SourceError", "DifferentiationError", "RuleError", "PipelineError",
    "ArgumentError", "NoFunctionError", "TargetError", "AllocationError", "RunTimeCheckError", "InternalError",
]  # fmt: skip

__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
