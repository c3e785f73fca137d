"""What `jax_scatter` and `jax_sort` share: a StableHLO op with a region (a scatter's update
computation, a sort's comparator) replaced by a call of a private function holding the loop
it means, written as MLIR text, which calls the region moved into a function of its own.
`from_jax`'s `inline` pass puts both back in place."""

from __future__ import annotations


def replace_by_loop(module, op, name: str, loop_text: str, walk) -> bool:
    """Replace `op` by `func.call @name(op's operands)`, where `loop_text` defines
    `@name` after declaring `@{name}_region` (so that it parses alone), and the function
    `@{name}_region` gets `op`'s region. False (nothing changed) where the region reads a
    value computed outside it that is not a constant."""
    from mlir import ir

    region = op.regions[0].blocks[0]
    if not _clone_captured_constants(op, region, walk):
        return False
    loop_module = ir.Module.parse(loop_text)
    declaration, loop = (each.operation for each in loop_module.body.operations)
    declaration.erase()
    loop.move_before(_first_function(module))
    with ir.InsertionPoint(loop):
        _region_function(op, f"{name}_region")
    with ir.InsertionPoint(op), op.location:
        call = ir.Operation.create(
            "func.call", results=[r.type for r in op.results], operands=list(op.operands),
            attributes={"callee": ir.FlatSymbolRefAttr.get(name)},
        )  # fmt: skip
    for old, new in zip(op.results, call.results):
        old.replace_all_uses_with(new)
    op.erase()
    return True


def _first_function(module):
    return next(each.operation for each in module.body.operations if each.operation.name == "func.func")


def _region_function(op, name: str):
    """A private `func.func @name` holding `op`'s one-block region (its ops moved, its
    `stablehlo.return` a `func.return`), made at the current insertion point."""
    from mlir import ir

    old = op.regions[0].blocks[0]
    *body, old_return = list(old.operations)
    arguments = [argument.type for argument in old.arguments]
    results = [value.type for value in old_return.operands]
    with op.location:
        function = ir.Operation.create(
            "func.func", regions=1,
            attributes={"sym_name": ir.StringAttr.get(name), "sym_visibility": ir.StringAttr.get("private"),
                        "function_type": ir.TypeAttr.get(ir.FunctionType.get(arguments, results))},
        )  # fmt: skip
    block = function.regions[0].blocks.append(*arguments)
    for old_argument, new_argument in zip(old.arguments, block.arguments):
        old_argument.replace_all_uses_with(new_argument)
    with ir.InsertionPoint(block):
        terminator = ir.Operation.create("func.return", operands=list(old_return.operands), loc=old_return.location)
    for each in body:
        each.operation.move_before(terminator)
    old_return.operation.erase()
    return function


def _clone_captured_constants(op, block, walk) -> bool:
    """Give the region its own copy of each value it reads from outside. The region is
    isolated in StableHLO, but jaxlib's `cse` runs after the legalization and merges the
    region's constants and `tensor.empty`s with identical ones outside; a function cannot
    read them. Only ops without operands are copied: False where the region reads anything
    else."""
    from mlir import ir

    def inside(each) -> bool:
        while each is not None:
            if each == op:
                return True
            each = each.parent
        return False

    copies = {}
    for nested in walk(op):
        for position, value in enumerate(nested.operands):
            owner = value.owner
            if not isinstance(owner, (ir.Operation, ir.OpView)) or inside(owner.operation):
                continue
            if len(owner.operands) or len(owner.regions):
                return False
            key = owner.operation
            if key not in copies:
                copies[key] = owner.operation.clone(ir.InsertionPoint.at_block_begin(block))
            nested.operands[position] = copies[key].results[value.result_number]
    return True
