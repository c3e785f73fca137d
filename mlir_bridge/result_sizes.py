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

Two things the canonicalizer cannot see are said here instead, because the dynamic
SDPA's vjp kept 3,916 of its 4,233 ops in its sizes function (its backward pass ran, and
compiled, twice), and a wrapper calling it kept all of them:

- a derivative function the passes made (`autodiff.derivative`) has results of known
  shape by construction: a gradient has its argument's, a tangent its primal result's
  (`derivative_shape_sources`); the canonicalizer cannot follow that through a
  scatter-add loop (the gradient of a gather);
- the size of a call's result is what the callee's own sizes function gives (made for
  a private callee too, private): the call itself is then dead and goes, instead of being
  inlined with its whole body into the sizes function.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import func, tensor

from gradir.dialects.provenance import DERIVATIVE_ATTRIBUTE
from gradir.mlir_bridge import public_functions, run_function_pipeline, symbol_name, top_level_ops, walk_ops
from gradir.native_calls import RESULT_SIZES_PREFIX

_SIMPLIFY = "resolve-ranked-shaped-type-result-dims, canonicalize, cse"

ShapeSources = dict[int, tuple[str, int]]
"""A function's result -> ("argument" | "result", index) with the same shape."""


def result_sizes_function(name: str) -> str:
    """The function that gives `name`'s dynamic result sizes."""
    return RESULT_SIZES_PREFIX + name


def dynamic_dims(kind: ir.Type) -> list[int]:
    """The positions of the dynamic dimensions of a ranked tensor type (none for others)."""
    if not isinstance(kind, ir.RankedTensorType):
        return []
    shape = ir.RankedTensorType(kind)
    return [dim for dim in range(shape.rank) if shape.is_dynamic_dim(dim)]


def _signature(function: ir.Operation) -> ir.FunctionType:
    return ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)


def add_result_size_functions(module: ir.Module) -> list[str]:
    """Add `__gradir_result_sizes_f` for each public `f` with a result of dynamic shape (once:
    one already there is kept); the names of the public functions it added."""
    sizes = _SizesFunctions(module)
    for function in public_functions(module):
        name = symbol_name(function)
        if name.startswith(RESULT_SIZES_PREFIX) or result_sizes_function(name) in sizes.functions:
            continue
        if any(dynamic_dims(kind) for kind in _signature(function).results):
            sizes.add(function)
    sizes.simplify()
    return [symbol_name(made) for made in sizes.made if "sym_visibility" not in made.attributes]


class _SizesFunctions:
    """The sizes functions of one module, made on request, simplified together."""

    def __init__(self, module: ir.Module):
        self.functions = {symbol_name(op): op for op in top_level_ops(module, {"func.func"})}
        self.shape_sources = {name: derivative_shape_sources(op) for name, op in self.functions.items()}
        self.made: list[ir.Operation] = []

    def add(self, function: ir.Operation) -> ir.Operation:
        """`function`'s sizes function, made now (private when `function` is)."""
        name = symbol_name(function)
        with function.context, function.location:
            copy = function.clone(ir.InsertionPoint.after(function)).operation
            copy.attributes["sym_name"] = ir.StringAttr.get(result_sizes_function(name))
            for attribute in ("res_attrs", DERIVATIVE_ATTRIBUTE):
                if attribute in copy.attributes:
                    del copy.attributes[attribute]
            count = self._return_sizes(copy, self.shape_sources.get(name, {}))
            arguments = _signature(copy).inputs
            copy.attributes["function_type"] = ir.TypeAttr.get(
                ir.FunctionType.get(arguments, [ir.IndexType.get()] * count)
            )
        self.functions[result_sizes_function(name)] = copy
        self.made.append(copy)
        return copy

    def simplify(self) -> None:
        """Canonicalize the sizes functions and size the calls in them by the callees' sizes
        functions (which may make more), until nothing changes."""
        while True:
            for function in list(self.made):
                run_function_pipeline(function, _SIMPLIFY, "result-sizes")
            changed = False
            for function in list(self.made):
                changed |= _size_through_shape_preserving_ops(function)
                changed |= self._size_calls_by_callees(function)
            if not changed:
                return

    @staticmethod
    def _return_sizes(copy: ir.Operation, own_sources: ShapeSources) -> int:
        """Make each `func.return` of `copy` return its operands' dynamic sizes; how many."""
        arguments = list(copy.regions[0].blocks[0].arguments)
        count = 0
        for block in copy.regions[0].blocks:
            terminator = list(block.operations)[-1]
            if terminator.operation.name != "func.return":
                continue
            returned = list(terminator.operands)
            sizes = []
            with ir.InsertionPoint(terminator), terminator.location:
                for position, value in enumerate(returned):
                    what, source = own_sources.get(position, (None, 0))
                    if what is not None:
                        value = arguments[source] if what == "argument" else returned[source]
                    for dim in dynamic_dims(value.type):
                        sizes.append(tensor.DimOp(value, _index_constant(dim)).result)
                func.ReturnOp(sizes)
            terminator.erase()
            count = len(sizes)
        return count

    def _size_calls_by_callees(self, function: ir.Operation) -> bool:
        """Replace each `tensor.dim` of a dynamic dimension of a call's result by the result
        of the callee's sizes function; a call nothing reads then goes. Whether any did."""
        sized: dict[ir.Operation, ir.Operation] = {}
        for dim in walk_ops(function, {"tensor.dim"}):
            call = _call_of(dim.operands[0])
            position = _constant_index(dim.operands[1])
            if call is None or position is None:
                continue
            callee_name = ir.FlatSymbolRefAttr(call.attributes["callee"]).value
            callee = self.functions.get(callee_name)
            if callee is None or not callee.regions[0].blocks:
                continue
            offset = _size_position(
                _signature(callee).results,
                ir.OpResult(dim.operands[0]).result_number,
                position,
            )
            if offset is None:
                continue
            if call not in sized:
                sizes_function = self.functions.get(result_sizes_function(callee_name)) or self.add(callee)
                with ir.InsertionPoint(call), call.location:
                    sized[call] = func.CallOp(
                        _signature(sizes_function).results,
                        ir.FlatSymbolRefAttr.get(symbol_name(sizes_function)),
                        list(call.operands),
                    ).operation
            dim.results[0].replace_all_uses_with(sized[call].results[offset])
            dim.erase()
        unread = [call for call in walk_ops(function, {"func.call"}) if not any(list(r.uses) for r in call.results)]
        for call in unread:  # a size does not depend on what a call does beside its results
            call.erase()
        return bool(sized or unread)


def derivative_shape_sources(function: ir.Operation) -> ShapeSources:
    """Which results of a derivative function have, by construction, the shape of one of its
    arguments or of an earlier result. Empty for other functions, and for a result whose
    type is not its source's (no promise then)."""
    info = function.attributes[DERIVATIVE_ATTRIBUTE] if DERIVATIVE_ATTRIBUTE in function.attributes else None
    if info is None or not isinstance(info, ir.DictAttr):
        return {}
    fields = {key: info[key] for key in ("kind", "wrt", "results") if key in info}
    if not (
        len(fields) == 3
        and isinstance(fields["kind"], ir.StringAttr)
        and all(isinstance(fields[key], ir.DenseI64ArrayAttr) for key in ("wrt", "results"))
    ):
        return {}  # not what the passes write: no promise
    kind, wrt, differentiated = fields["kind"].value, list(fields["wrt"]), list(fields["results"])
    signature = _signature(function)
    inputs, results = list(signature.inputs), list(signature.results)
    if kind == "grad":  # one gradient per wrt argument
        sources = {position: ("argument", argument) for position, argument in enumerate(wrt)}
    elif kind == "vjp":  # (callee results, one gradient per wrt argument)
        primal = len(results) - len(wrt)
        sources = {primal + position: ("argument", argument) for position, argument in enumerate(wrt)}
    elif kind == "jvp":  # (callee results, one tangent per differentiated result)
        primal = len(results) - len(differentiated)
        sources = {primal + position: ("result", result) for position, result in enumerate(differentiated)}
    else:
        return {}
    typed = {"argument": inputs, "result": results}
    return {
        position: (what, index)
        for position, (what, index) in sources.items()
        if 0 <= position < len(results) and 0 <= index < len(typed[what]) and typed[what][index] == results[position]
    }


def _size_through_shape_preserving_ops(function: ir.Operation) -> bool:
    """Point each `tensor.dim` of a result that has an operand's shape at that operand, where
    MLIR does not reify the shape: `arith`/`math` ops on tensors (elementwise), and an
    `scf.for` whose iterations only write into the state (`tensor.insert`, a slice, a linalg
    op's `outs`; the scatter-add of a gather's gradient), whose result has its init's shape.
    Whether any did."""
    changed = False
    for dim in walk_ops(function, {"tensor.dim"}):
        source = dim.operands[0]
        while (origin := _same_shape_operand(source)) is not None:
            source = origin
        if source != dim.operands[0]:
            dim.operands[0] = source
            changed = True
    return changed


def _same_shape_operand(value: ir.Value) -> ir.Value | None:
    if not isinstance(value, ir.OpResult):
        return None
    op = value.owner.operation
    if op.name.startswith(("arith.", "math.")):
        return next((operand for operand in op.operands if operand.type == value.type), None)
    if op.name == "scf.for":
        index = ir.OpResult(value).result_number
        body = op.regions[0].blocks[0]
        state = body.arguments[1 + index]  # after the induction variable
        yielded = list(body.operations)[-1].operands[index]
        return op.operands[3 + index] if _written_into(yielded, state) else None  # after lb, ub, step
    return None


def _written_into(value: ir.Value, state: ir.Value) -> bool:
    """Whether `value` is `state` with only elements written into it (its shape)."""
    while value != state:
        if not isinstance(value, ir.OpResult):
            return False
        op = value.owner.operation
        index = ir.OpResult(value).result_number
        if op.name in ("tensor.insert", "tensor.insert_slice"):
            value = op.operands[1]  # the destination
        elif op.name.startswith("linalg.") and "operandSegmentSizes" in op.attributes:
            inputs = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))[0]
            value = op.operands[inputs + index]  # the `outs` it writes
        elif op.name == "scf.if":
            branches = [list(region.blocks[0].operations)[-1].operands[index] for region in op.regions]
            return all(_written_into(branch, state) for branch in branches)
        elif op.name == "scf.for":
            body = op.regions[0].blocks[0]
            inner = list(body.operations)[-1].operands[index]
            if not _written_into(inner, body.arguments[1 + index]):
                return False
            value = op.operands[3 + index]
        elif op.name.startswith(("arith.", "math.")) and (origin := _same_shape_operand(value)) is not None:
            value = origin
        else:
            return False
    return True


def _size_position(results: list[ir.Type], result: int, dim: int) -> int | None:
    """Where a sizes function returns `dim` of `result`; None for a static dimension."""
    if dim not in dynamic_dims(results[result]):
        return None
    return sum(len(dynamic_dims(kind)) for kind in results[:result]) + dynamic_dims(results[result]).index(dim)


def _call_of(value: ir.Value) -> ir.Operation | None:
    """The `func.call` that `value` is a result of, if it is one."""
    if not isinstance(value, ir.OpResult) or value.owner.operation.name != "func.call":
        return None
    return value.owner.operation


def _constant_index(value: ir.Value) -> int | None:
    if isinstance(value, ir.OpResult) and value.owner.operation.name == "arith.constant":
        return ir.IntegerAttr(value.owner.operation.attributes["value"]).value
    return None


def _index_constant(value: int) -> ir.Value:
    index = ir.IndexType.get()
    return ir.Operation.create(
        "arith.constant",
        results=[index],
        attributes={"value": ir.IntegerAttr.get(index, value)},
    ).result
