"""Running a lowered module's host code on this CPU, from Python and NumPy: the MLIR side.

Both backends end the same way on the host: the CPU backend's whole program, and the GPU
backend's host code when its kernels are emulated as loops (`gpu_backend.launch_emulation`), are
lowered to the LLVM dialect with `LLVM_PIPELINE`, JIT-compiled by MLIR's ExecutionEngine and
called through the C interface (`llvm.emit_c_interface`).

This module holds what needs MLIR: the lowering pipeline and each public function's signature,
read before bufferization turns results into out-parameters (`read_signatures`: ranked
tensors, of static or dynamic shape, and scalars of f16, f32, f64, i1, i8, i16, i32, i64 and
index). The calling convention
itself needs only NumPy and ctypes and lives in `gradir.native_calls`, shared with the loader of
exported libraries; its names are re-exported here for the callers that import them from here.
"""
from __future__ import annotations

from mlir import ir

from gradir.errors import PipelineError
from gradir.mlir_bridge import location_text, public_functions, walk_ops
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
    "convert-math-to-llvm{approximate-log1p=false}, convert-math-to-libm,"
    "convert-vector-to-llvm,"
    "convert-arith-to-llvm, convert-index-to-llvm,"
    "convert-cf-to-llvm, convert-ub-to-llvm,"
    "convert-func-to-llvm,"
    "reconcile-unrealized-casts,"
    "canonicalize, cse"
)
"""Host code (scf, memref, arith, math, vector, func) to the LLVM dialect the JIT compiles.
`math.log1p` is left to the C library's `log1p` (MLIR's own lowering is `log(1 + x)`, which
loses every digit near 0: `log1p(1e-8)` was 0 in f32); run `accurate_expm1` first."""

def accurate_expm1(module: ir.Module) -> None:
    """Before `LLVM_PIPELINE`: write each `math.expm1` as Kahan's `u = exp(x)`,
    `u == 1 ? x : (u - 1) * x / log(u)` (with `u - 1 == -1` giving -1 and `u == inf`
    giving inf), accurate to a few ulps. MLIR's lowering is `exp(x) - 1`, which loses
    every digit near 0 (`expm1(1e-8)` was 0 in f32, 1e-12 was 9e-5 off in f64) and
    has no option to call the C library's `expm1`."""
    from mlir.dialects import arith, math

    for op in walk_ops(module, {"math.expm1"}):
        with ir.InsertionPoint(op), op.location:
            x = op.operands[0]
            kind = x.type
            element = ir.ShapedType(kind).element_type if isinstance(kind, ir.ShapedType) else kind

            def constant(value: float) -> ir.Value:
                attribute = ir.FloatAttr.get(element, value)
                if isinstance(kind, ir.ShapedType):
                    attribute = ir.DenseElementsAttr.get_splat(kind, attribute)
                return arith.ConstantOp(kind, attribute).result

            def equal(a: ir.Value, b: ir.Value) -> ir.Value:
                return arith.CmpFOp(arith.CmpFPredicate.OEQ, a, b).result

            one, minus_one, infinity = constant(1.0), constant(-1.0), constant(float("inf"))
            u = math.ExpOp(x).result
            u_minus_one = arith.SubFOp(u, one).result
            general = arith.DivFOp(arith.MulFOp(u_minus_one, x).result, math.LogOp(u).result).result
            value = arith.SelectOp(equal(u, infinity), infinity, general).result
            value = arith.SelectOp(equal(u_minus_one, minus_one), minus_one, value).result
            value = arith.SelectOp(equal(u, one), x, value).result
        op.results[0].replace_all_uses_with(value)
        op.erase()


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
    op). `restore_c_interface_names` gives the C wrappers their names back afterwards.

    The uses are renamed in one walk of the module (`_renamed_symbol_uses`):
    `SymbolTable.replace_all_symbol_uses` walks the whole module once per function, 3.7 s
    for the 400 functions of the named-linalg GPU test module."""
    renamed: dict[str, str] = {}
    for function in module.body.operations:
        if function.operation.name != "func.func" or not function.regions[0].blocks:
            continue
        name = ir.StringAttr(function.attributes["sym_name"]).value
        renamed[name] = IMPLEMENTATION_PREFIX + name
        ir.SymbolTable.set_symbol_name(function, renamed[name])
    if renamed:
        _renamed_symbol_uses(module, renamed)


NESTED_SYMBOL_TABLES = frozenset({"builtin.module", "gpu.module"})
"""Ops whose flat symbol references name their own symbols, not the module's."""


def _renamed_symbol_uses(module: ir.Module, renamed: dict[str, str]) -> None:
    """Every reference to a symbol of `renamed` (old name -> new) in `module`, outside nested
    symbol tables, made to the new name: as `SymbolTable.replace_all_symbol_uses` does, for
    all the names at once."""

    def rename(attribute: ir.Attribute) -> ir.Attribute | None:
        """`attribute` with its references renamed, or None if it holds none."""
        if isinstance(attribute, ir.FlatSymbolRefAttr):
            new = renamed.get(attribute.value)
            return None if new is None else ir.FlatSymbolRefAttr.get(new)
        if isinstance(attribute, ir.SymbolRefAttr):
            root, *nested = attribute.value
            return None if root not in renamed else ir.SymbolRefAttr.get([renamed[root], *nested])
        if isinstance(attribute, ir.ArrayAttr):
            elements = [rename(element) for element in attribute]
            if all(element is None for element in elements):
                return None
            return ir.ArrayAttr.get([new or old for new, old in zip(elements, attribute)])
        if isinstance(attribute, ir.DictAttr):
            entries = {attribute[k].name: attribute[k].attr for k in range(len(attribute))}
            changed = {key: rename(value) for key, value in entries.items()}
            if all(value is None for value in changed.values()):
                return None
            return ir.DictAttr.get({key: changed[key] or value for key, value in entries.items()})
        return None

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name in NESTED_SYMBOL_TABLES and op != module.operation:
            return ir.WalkResult.SKIP
        attributes = op.attributes
        for key in [attributes[k].name for k in range(len(attributes))]:
            new = rename(attributes[key])
            if new is not None:
                attributes[key] = new
        return ir.WalkResult.ADVANCE

    with module.context:
        module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)


def restore_c_interface_names(module: ir.Module) -> None:
    """After `LLVM_PIPELINE`: `_mlir_ciface___gradir_f`, the C wrapper of a body renamed by
    `keep_function_names_off_the_c_library`, becomes `_mlir_ciface_f` again, the name
    the callers look up."""
    wrapper = "_mlir_ciface_" + IMPLEMENTATION_PREFIX
    for function in list(module.body.operations):
        if function.operation.name != "llvm.func":
            continue
        name = ir.StringAttr(function.attributes["sym_name"]).value
        if name.startswith(wrapper):  # called from outside only: no use in the module to rename
            ir.SymbolTable.set_symbol_name(function, "_mlir_ciface_" + name.removeprefix(wrapper))


def _value_spec(function: str, what: str, value_type: ir.Type, where: str | None) -> ValueSpec:
    """`where`: the function's location, where an unsupported type is reported."""
    supported = ", ".join(NUMPY_DTYPES)
    if isinstance(value_type, ir.RankedTensorType):
        element = str(value_type.element_type)
        if element not in NUMPY_DTYPES:
            raise PipelineError(f"{function}: {what} has element type {element}; supported: {supported}", where)
        shape = tuple(None if value_type.is_dynamic_dim(dim) else size for dim, size in enumerate(value_type.shape))
        return TensorSpec(shape, NUMPY_DTYPES[element], element)
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


