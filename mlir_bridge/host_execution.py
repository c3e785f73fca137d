"""Running a lowered module's host code on this CPU, from Python and NumPy: the MLIR side.

Both backends end the same way on the host: the CPU backend's whole program, and the GPU
backend's host code when its kernels are emulated as loops (`gpu_backend.launch_emulation`), are
lowered to the LLVM dialect with `LLVM_PIPELINE`, JIT-compiled by MLIR's ExecutionEngine and
called through the C interface (`llvm.emit_c_interface`).

This module holds what needs MLIR: the lowering pipeline and each public function's signature,
read before bufferization turns results into out-parameters (`read_signatures`: ranked static
tensors and scalars of f16, f32, f64, i1, i8, i16, i32, i64 and index). The calling convention
itself needs only NumPy and ctypes and lives in `gradir.native_calls`, shared with the loader of
exported libraries; its names are re-exported here for the callers that import them from here.
"""
from __future__ import annotations

from mlir import ir

from gradir.errors import PipelineError
from gradir.mlir_bridge import location_text, public_functions
from gradir.native_calls import (  # noqa: F401 -- re-exported
    NUMPY_DTYPES,
    PACKED_ENTRY_POINT,
    FunctionSignature,
    MemRefDescriptor,
    ScalarSpec,
    TensorSpec,
    ValueSpec,
    as_function,
    call_packed,
    checked_arguments,
    checked_scalar,
    find_signature,
    result_arrays,
    returned_values,
)

LLVM_PIPELINE = (
    "convert-scf-to-cf,"
    "func.func(arith-expand),"
    "finalize-memref-to-llvm,"
    "convert-math-to-llvm, convert-math-to-libm,"
    "convert-vector-to-llvm,"
    "convert-arith-to-llvm, convert-index-to-llvm,"
    "convert-cf-to-llvm, convert-ub-to-llvm,"
    "convert-func-to-llvm,"
    "reconcile-unrealized-casts,"
    "canonicalize, cse"
)
"""Host code (scf, memref, arith, math, vector, func) to the LLVM dialect the JIT compiles."""

IMPLEMENTATION_PREFIX = "__gradir_"
"""Prefix of every function body's symbol once lowered (the C wrappers keep `_mlir_ciface_f`)."""


def keep_function_names_off_the_c_library(module: ir.Module) -> None:
    """Before `LLVM_PIPELINE`: rename each function body `f` to `__gradir_f`.

    The lowering calls the C library for math ops and copies: `convert-math-to-libm`
    makes `math.erf` a call of `@erf`, reusing a function of that name if the module has
    one, and LLVM makes `math.log2` and copies calls of `log2` and `memcpy`, which the
    JIT binds to the module's own symbols first. A user's `@erf(x) = 2x` then computed
    every `math.erf` of the program (a wrong value, no error), and `@asinh` computing
    `math.asinh` called itself forever (Enzyme's math tests name each function after its
    op). `restore_c_interface_names` gives the C wrappers their names back afterwards."""
    for function in list(module.body.operations):
        if function.operation.name != "func.func" or not function.regions[0].blocks:
            continue
        name = ir.StringAttr(function.attributes["sym_name"]).value
        new_name = IMPLEMENTATION_PREFIX + name
        ir.SymbolTable.replace_all_symbol_uses(name, new_name, module.operation)
        ir.SymbolTable.set_symbol_name(function, new_name)


def restore_c_interface_names(module: ir.Module) -> None:
    """After `LLVM_PIPELINE`: `_mlir_ciface___gradir_f`, the C wrapper of a body renamed by
    `keep_function_names_off_the_c_library`, becomes `_mlir_ciface_f` again, the name
    the callers look up."""
    wrapper = "_mlir_ciface_" + IMPLEMENTATION_PREFIX
    for function in list(module.body.operations):
        name = ir.StringAttr(function.attributes["sym_name"]).value if "sym_name" in function.attributes else ""
        if function.operation.name == "llvm.func" and name.startswith(wrapper):
            original = "_mlir_ciface_" + name.removeprefix(wrapper)
            ir.SymbolTable.replace_all_symbol_uses(name, original, module.operation)
            ir.SymbolTable.set_symbol_name(function, original)


def _value_spec(function: str, what: str, value_type: ir.Type, where: str | None) -> ValueSpec:
    """`where`: the function's location, where an unsupported type is reported."""
    supported = ", ".join(NUMPY_DTYPES)
    if isinstance(value_type, ir.RankedTensorType):
        if not value_type.has_static_shape:
            raise PipelineError(f"{function}: {what} has dynamic shape {value_type}; shapes must be static", where)
        element = str(value_type.element_type)
        if element not in NUMPY_DTYPES:
            raise PipelineError(f"{function}: {what} has element type {element}; supported: {supported}", where)
        return TensorSpec(tuple(value_type.shape), NUMPY_DTYPES[element], element)
    if str(value_type) in NUMPY_DTYPES:
        return ScalarSpec(NUMPY_DTYPES[str(value_type)], str(value_type))
    raise PipelineError(
        f"{function}: {what} has type {value_type}; supported: ranked tensors and scalars of {supported}", where
    )


def read_signatures(module: ir.Module) -> dict[str, FunctionSignature]:
    """The tensor-level signature of each public function of `module`."""
    signatures = {}
    for function in public_functions(module):
        name = ir.StringAttr(function.attributes["sym_name"]).value
        function_type = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
        where = location_text(function.location)
        arguments = tuple(
            _value_spec(name, f"argument {index}", value_type, where)
            for index, value_type in enumerate(function_type.inputs)
        )
        results = tuple(
            _value_spec(name, f"result {index}", value_type, where)
            for index, value_type in enumerate(function_type.results)
        )
        signatures[name] = FunctionSignature(name, arguments, results)
    return signatures


