"""Functions that give a public function's result sizes, for results of dynamic shape.

A result `tensor<?x4xf64>` becomes an out-parameter the caller allocates
(`buffer-results-to-out-params`), so the caller needs its size before the call. For each
public `f` with such results, `add_result_size_functions` adds the public
`__gradir_result_sizes_f`: `f`'s body returning, instead of its results, the `index` size of
each dynamic dimension of each result, in order. MLIR's
`resolve-ranked-shaped-type-result-dims` and canonicalization then compute each size from
what it depends on, usually the arguments' sizes (a `tensor.dim` of an argument), and the
rest of the copied body goes as dead code; a size only the computation itself gives (a
loop that grows a tensor) keeps what it needs of the body, which then runs twice. The
callers (`cpu_runtime`, exported libraries) call it first, allocate, then call `f`.
"""
from __future__ import annotations

from mlir import ir
from mlir.dialects import func, tensor

from gradir.mlir_bridge import public_functions, run_pipeline
from gradir.native_calls import RESULT_SIZES_PREFIX


def result_sizes_function(name: str) -> str:
    """The function that gives `name`'s dynamic result sizes."""
    return RESULT_SIZES_PREFIX + name


def dynamic_dims(kind: ir.Type) -> list[int]:
    """The positions of the dynamic dimensions of a ranked tensor type (none for others)."""
    if not isinstance(kind, ir.RankedTensorType):
        return []
    shape = ir.RankedTensorType(kind)
    return [dim for dim in range(shape.rank) if shape.is_dynamic_dim(dim)]


def add_result_size_functions(module: ir.Module) -> list[str]:
    """Add `__gradir_result_sizes_f` for each public `f` with a result of dynamic shape (once:
    one already there is kept); the names of the functions it added."""
    existing = {ir.StringAttr(op.attributes["sym_name"]).value for op in public_functions(module)}
    added = []
    for function in public_functions(module):
        name = ir.StringAttr(function.attributes["sym_name"]).value
        if name.startswith(RESULT_SIZES_PREFIX) or result_sizes_function(name) in existing:
            continue
        results = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value).results
        if not any(dynamic_dims(kind) for kind in results):
            continue
        _add_sizes_function(function, name)
        added.append(result_sizes_function(name))
    if added:
        run_pipeline(
            module, "func.func(resolve-ranked-shaped-type-result-dims, canonicalize, cse)", "result-sizes"
        )
    return added


def _add_sizes_function(function: ir.Operation, name: str) -> None:
    with function.context, function.location:
        copy = function.clone(ir.InsertionPoint.after(function))
        copy.attributes["sym_name"] = ir.StringAttr.get(result_sizes_function(name))
        index = ir.IndexType.get()
        for block in copy.regions[0].blocks:
            terminator = list(block.operations)[-1]
            if terminator.name != "func.return":
                continue
            sizes = []
            with ir.InsertionPoint(terminator), terminator.location:
                for value in terminator.operands:
                    for dim in dynamic_dims(value.type):
                        position = ir.Operation.create(
                            "arith.constant", results=[index], attributes={"value": ir.IntegerAttr.get(index, dim)}
                        ).result
                        sizes.append(tensor.DimOp(value, position).result)
                func.ReturnOp(sizes)
            terminator.erase()
        arguments = ir.FunctionType(ir.TypeAttr(copy.attributes["function_type"]).value).inputs
        copy.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(arguments, [index] * len(sizes)))
        for attribute in ("res_attrs",):
            if attribute in copy.attributes:
                del copy.attributes[attribute]
