"""Allocations that fail at run time become an error, not a segmentation fault.

The compiled code calls `aligned_alloc` (or `malloc`, `realloc`) and stores into
the result without checking it, so a buffer sized at run time that the machine
cannot give (a loop cache for a billion iterations, a temporary of a run-time
shape under `ulimit -v`) ended the user's whole process on the first store.
`memory_check` refuses the buffers of static size before the code runs; this
module covers the rest, on the LLVM dialect, after lowering:

- every allocation call goes through a checked twin that, when the C library
  returns NULL for a non-zero size, records the size and `longjmp`s back to
- a guarded entry point per public function (`_mlir_ciface_f` with one more
  leading argument: where to write the failed size), which `_setjmp`s first and
  returns normally after the jump; the runtime turns a non-zero size into an
  `AllocationError` naming the function and the size.

Where to jump is per thread: the guard stores its jump buffer under a pthread
key (created once per process by the runtime and handed to the JIT as the
symbol `key_symbol`), because the JIT does not support thread-local globals
(it asks for `__emutls_get_address`). A checked allocation outside any guard
(the plain `_mlir_ciface_f`) returns NULL as before.

A failed run-time check (`run_time_checks`: an index out of bounds, a division by
zero) takes the same way back, with its negative code where the size would be. The generated code runs no
destructors, so the jump skips nothing but frames; the buffers the call had
allocated before the failure are not freed (an error path, documented).
"""
from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from gradir.cpu_backend.parallel_loops import GUARD_FAILED_FUNCTION, GUARD_SWAP_FUNCTION
from gradir.errors import PipelineError
from gradir.mlir_bridge import top_level_ops, walk_ops

JUMP_BUFFER_BYTES = 512
"""Room for the C library's `jmp_buf` (200 bytes on x86-64 glibc, 312 on AArch64);
the failed size is stored right after it."""

ALLOCATORS = {"malloc": ("i64", 0), "aligned_alloc": ("i64, i64", 1), "realloc": ("!llvm.ptr, i64", 1)}
"""The allocation functions the lowering calls (with a 64-bit `size_t`): their parameters
(each returns a pointer) and which one is the byte count."""

_C_FUNCTIONS = {
    "abort": "()",
    "_setjmp": '(!llvm.ptr) -> i32 attributes {passthrough = ["returns_twice"]}',
    "longjmp": "(!llvm.ptr, i32)",
    "pthread_getspecific": "(i32) -> !llvm.ptr",
    "pthread_setspecific": "(i32, !llvm.ptr) -> i32",
}


@dataclass(frozen=True)
class CheckedEntryPoints:
    """What the runtime needs: the guarded entry point of each public function, and
    the names of the external globals the JIT must resolve: the pthread key (`i32`) and the
    allocation limit."""

    guards: dict[str, str]
    key_symbol: str
    limit_symbol: str
    """An external `i64` global: the largest allocation to try (larger ones fail at once)."""


def module_symbols(module: ir.Module) -> set[str]:
    return {
        ir.StringAttr(op.attributes["sym_name"]).value
        for op in module.body.operations
        if "sym_name" in op.attributes
    }


def _at(name: str) -> str:
    """`@name` as MLIR writes a symbol reference (quoted where it must be)."""
    return str(ir.FlatSymbolRefAttr.get(name))


def fresh_symbol(name: str, taken: set[str]) -> str:
    """`name`, or `name_1`, `name_2`... whichever no symbol of the module uses."""
    candidate, count = name, 0
    while candidate in taken:
        count += 1
        candidate = f"{name}_{count}"
    taken.add(candidate)
    return candidate


def _checked_allocator(
    name: str, callee: str, signature: str, size_index: int, symbols: CheckedEntryPoints
) -> str:
    """A function of `callee`'s signature that calls it and jumps to the guard on NULL, or
    without calling it when the size is over the limit."""
    parameters = signature.split("->")[0].strip()[1:-1].split(",")
    arguments = [f"%a{index}" for index in range(len(parameters))]
    typed = ", ".join(f"{argument}: {kind.strip()}" for argument, kind in zip(arguments, parameters))
    size = arguments[size_index]
    return f"""
llvm.func internal {_at(name)}({typed}) -> !llvm.ptr {{
  %null = llvm.mlir.zero : !llvm.ptr
  %limit_address = llvm.mlir.addressof {_at(symbols.limit_symbol)} : !llvm.ptr
  %limit = llvm.load %limit_address : !llvm.ptr -> i64
  %too_large = llvm.icmp "ugt" {size}, %limit : i64
  llvm.cond_br %too_large, ^failed, ^allocate
^allocate:
  %p = llvm.call {_at(callee)}({", ".join(arguments)}) : {signature}
  %zero = llvm.mlir.constant(0 : i64) : i64
  %is_null = llvm.icmp "eq" %p, %null : !llvm.ptr
  %has_size = llvm.icmp "ne" {size}, %zero : i64
  %failed = llvm.and %is_null, %has_size : i1
  llvm.cond_br %failed, ^failed, ^done(%p : !llvm.ptr)
^failed:
  %key_address = llvm.mlir.addressof {_at(symbols.key_symbol)} : !llvm.ptr
  %key = llvm.load %key_address : !llvm.ptr -> i32
  %state = llvm.call @pthread_getspecific(%key) : (i32) -> !llvm.ptr
  %unguarded = llvm.icmp "eq" %state, %null : !llvm.ptr
  llvm.cond_br %unguarded, ^done(%null : !llvm.ptr), ^jump
^jump:
  %size_slot = llvm.getelementptr %state[{JUMP_BUFFER_BYTES}] : (!llvm.ptr) -> !llvm.ptr, i8
  llvm.store {size}, %size_slot : i64, !llvm.ptr
  %one = llvm.mlir.constant(1 : i32) : i32
  llvm.call @longjmp(%state, %one) : (!llvm.ptr, i32) -> ()
  llvm.unreachable
^done(%result: !llvm.ptr):
  llvm.return %result : !llvm.ptr
}}"""


def _failed_check(name: str, key: str) -> str:
    """`run_time_checks.FAILURE_FUNCTION`: the check's (negative) code to the guard, or, with
    no guard to return to (the plain `_mlir_ciface_f`), `abort` as `cf.assert` would."""
    return f"""
llvm.func internal {_at(name)}(%code: i64) attributes {{passthrough = ["noinline", "cold"]}} {{
  %null = llvm.mlir.zero : !llvm.ptr
  %key_address = llvm.mlir.addressof {_at(key)} : !llvm.ptr
  %key = llvm.load %key_address : !llvm.ptr -> i32
  %state = llvm.call @pthread_getspecific(%key) : (i32) -> !llvm.ptr
  %unguarded = llvm.icmp "eq" %state, %null : !llvm.ptr
  llvm.cond_br %unguarded, ^abort, ^jump
^abort:
  llvm.call @abort() : () -> ()
  llvm.unreachable
^jump:
  %code_slot = llvm.getelementptr %state[{JUMP_BUFFER_BYTES}] : (!llvm.ptr) -> !llvm.ptr, i8
  llvm.store %code, %code_slot : i64, !llvm.ptr
  %one = llvm.mlir.constant(1 : i32) : i32
  llvm.call @longjmp(%state, %one) : (!llvm.ptr, i32) -> ()
  llvm.unreachable
}}"""


def _swap_guard(name: str, key: str) -> str:
    """`parallel_loops.GUARD_SWAP_FUNCTION`: set this thread's jump buffer, return the old one."""
    return f"""
llvm.func internal {_at(name)}(%state: !llvm.ptr) -> !llvm.ptr {{
  %key_address = llvm.mlir.addressof {_at(key)} : !llvm.ptr
  %key = llvm.load %key_address : !llvm.ptr -> i32
  %previous = llvm.call @pthread_getspecific(%key) : (i32) -> !llvm.ptr
  %status = llvm.call @pthread_setspecific(%key, %state) : (i32, !llvm.ptr) -> i32
  llvm.return %previous : !llvm.ptr
}}"""


def _guard(name: str, entry: str, parameter_types: list[str], result: str | None, key: str) -> str:
    """`entry` behind a `_setjmp`: on a failed allocation, the size goes to `*%failure`."""
    arguments = [f"%a{index}" for index in range(len(parameter_types))]
    typed = ", ".join(["%failure: !llvm.ptr"] + [f"{a}: {t}" for a, t in zip(arguments, parameter_types)])
    call_type = f"({', '.join(parameter_types)}) -> {result or '()'}"
    call = f"llvm.call {_at(entry)}({', '.join(arguments)}) : {call_type}"
    returns = f" -> {result}" if result else ""
    if result:
        value, returned = "%value = ", f"llvm.return %value : {result}"
        abandoned = f"%poison = llvm.mlir.poison : {result}\n  llvm.return %poison : {result}"
    else:
        value, returned, abandoned = "", "llvm.return", "llvm.return"
    words = JUMP_BUFFER_BYTES // 8 + 1
    return f"""
llvm.func {_at(name)}({typed}){returns} attributes {{passthrough = ["noinline"]}} {{
  %one = llvm.mlir.constant(1 : i64) : i64
  %state = llvm.alloca %one x !llvm.array<{words} x i64> {{alignment = 16 : i64}} : (i64) -> !llvm.ptr
  %key_address = llvm.mlir.addressof {_at(key)} : !llvm.ptr
  %key = llvm.load %key_address : !llvm.ptr -> i32
  %previous = llvm.call @pthread_getspecific(%key) : (i32) -> !llvm.ptr
  %u1 = llvm.call @pthread_setspecific(%key, %state) : (i32, !llvm.ptr) -> i32
  %jumped = llvm.call @_setjmp(%state) : (!llvm.ptr) -> i32
  %zero = llvm.mlir.constant(0 : i32) : i32
  %first = llvm.icmp "eq" %jumped, %zero : i32
  llvm.cond_br %first, ^run, ^failed
^run:
  {value}{call}
  %u2 = llvm.call @pthread_setspecific(%key, %previous) : (i32, !llvm.ptr) -> i32
  {returned}
^failed:
  %u3 = llvm.call @pthread_setspecific(%key, %previous) : (i32, !llvm.ptr) -> i32
  %size_slot = llvm.getelementptr %state[{JUMP_BUFFER_BYTES}] : (!llvm.ptr) -> !llvm.ptr, i8
  %size = llvm.load %size_slot : !llvm.ptr -> i64
  llvm.store %size, %failure : i64, !llvm.ptr
  {abandoned}
}}"""


def _result_type(function: ir.Operation) -> str | None:
    for op in walk_ops(function, {"llvm.return"}):
        return str(op.operands[0].type) if len(op.operands) else None
    return None


def check_allocations(module: ir.Module, public: list[str], failed_check: str | None = None) -> CheckedEntryPoints:
    """Route every allocation call of `module` (LLVM dialect) through a checked twin, define
    `failed_check` (the declared `run_time_checks.FAILURE_FUNCTION`, if any) and add a
    guarded entry point for each of the `public` functions; in place."""
    taken = module_symbols(module)
    key = fresh_symbol("__gradir_allocation_key", taken)
    symbols = CheckedEntryPoints({}, key, fresh_symbol("__gradir_allocation_limit", taken))
    existing = {ir.StringAttr(op.attributes["sym_name"]).value: op for op in top_level_ops(module, {"llvm.func"})}
    declarations: list[str] = []  # for the added code's calls to parse; not moved over
    pieces = [
        f"llvm.mlir.global external {_at(key)}() : i32",
        f"llvm.mlir.global external {_at(symbols.limit_symbol)}() : i64",
    ]
    pieces += [f"llvm.func @{name}{kind}" for name, kind in _C_FUNCTIONS.items() if name not in existing]
    declarations += [f"llvm.func @{name}{kind}" for name, kind in _C_FUNCTIONS.items() if name in existing]
    if failed_check is not None and failed_check in existing:
        existing.pop(failed_check).erase()
        pieces.append(_failed_check(failed_check, key))
    # Parallel regions catch failures on each thread and pass them on after the region.
    if GUARD_FAILED_FUNCTION in existing:
        existing.pop(GUARD_FAILED_FUNCTION).erase()
        pieces.append(_failed_check(GUARD_FAILED_FUNCTION, key))
    if GUARD_SWAP_FUNCTION in existing:
        existing.pop(GUARD_SWAP_FUNCTION).erase()
        pieces.append(_swap_guard(GUARD_SWAP_FUNCTION, key))
    checked: dict[str, str] = {}
    for callee, (parameters, size_index) in ALLOCATORS.items():
        if callee not in existing:
            continue
        signature = f"({parameters}) -> !llvm.ptr"
        found = ir.TypeAttr(existing[callee].attributes["function_type"]).value
        expected = ir.Type.parse(f"!llvm.func<!llvm.ptr ({parameters})>")
        if found != expected:
            raise PipelineError(f"cpu-llvm: '{callee}' is declared as {found}, expected {expected}")
        checked[callee] = fresh_symbol(f"__gradir_checked_{callee}", taken)
        declarations.append(f"llvm.func {_at(callee)}{signature}")
        pieces.append(_checked_allocator(checked[callee], callee, signature, size_index, symbols))
    guards = symbols.guards
    for name in public:
        entry_name = f"_mlir_ciface_{name}"
        entry = existing.get(entry_name)
        if entry is None:
            raise PipelineError(f"cpu-llvm: no C interface for public function '{name}'")
        parameter_types = [str(argument.type) for argument in entry.regions[0].blocks[0].arguments]
        result = _result_type(entry)
        returns = f" -> {result}" if result else ""
        declarations.append(f"llvm.func {_at(entry_name)}({', '.join(parameter_types)}){returns}")
        guards[name] = fresh_symbol(f"__gradir_guarded_{name}", taken)
        pieces.append(_guard(guards[name], entry_name, parameter_types, result, key))
    for call in walk_ops(module, {"llvm.call"}):
        if "callee" not in call.attributes:
            continue  # an indirect call
        callee = ir.FlatSymbolRefAttr(call.attributes["callee"]).value
        if callee in checked:
            call.attributes["callee"] = ir.FlatSymbolRefAttr.get(checked[callee])
    additions = ir.Module.parse("\n".join(declarations + pieces), module.context)
    count = len(declarations)
    for position, op in enumerate(list(additions.body.operations)):
        if position >= count:
            op.detach_from_parent()
            module.body.append(op)
    return symbols
