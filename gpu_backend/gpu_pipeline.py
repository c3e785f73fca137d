"""The GPU pipeline: linalg/tensor/arith/math on tensors -> gpu -> NVVM -> PTX in `gpu.binary`.

Every stage is a function on an `mlir.ir.Module` that rewrites it in place and returns it, so a
user can stop anywhere and continue with their own passes (`compile_to_gpu(..., stop_after=...)`;
on the command line `autodiff-opt FILE --pipeline gpu --gpu-stop-after STAGE`):

1. `bufferize_for_gpu` -- named ops generalised and elementwise chains fused (the tensor stage
   both backends share, `mlir_bridge.tensor_stage`), values computed in the destinations they
   are stored into (`mlir_bridge.destinations`), one-shot bufferization with identity
   layouts, results as out-parameters, which a call writes in place of a copy kernel per
   result (`mlir_bridge.forwarding_calls`; 9 of the MLP gradient's 32 kernels were copies).
2. `map_to_gpu` (its own module) -- every linalg op, copy and constant of a host function
   becomes its own `gpu.launch` (`gpu_mapping` chooses the thread layout per op); buffers become
   `gpu.alloc`/`gpu.dealloc`. Anything that would still touch tensor data on the host is an
   error.
3. `outline_kernels` -- `gpu-kernel-outlining`: launches become `gpu.func`s in `gpu.module`s.
   `to_gpu_dialect` is stages 1-3.
4. `to_nvvm_binary` -- `gpu-lower-to-nvvm-pipeline`: NVVM, PTX (`cubin-format=isa`) in
   `gpu.binary`, host code in the LLVM dialect calling the `mgpu*` runtime.

`launch_emulation.launches_to_host_loops` turns the stage-2 launches back into loops (cut at
barriers) so the very same kernel bodies can run on a CPU (how the tests check the kernels'
numerics without a GPU).
"""
from __future__ import annotations

from mlir import ir

from gradir.errors import ArgumentError, PipelineError
from gradir.gpu_backend.branch_results import yield_branch_results_in_place
from gradir.gpu_backend.map_to_gpu import buffer_root, is_select, map_to_gpu
from gradir.gpu_backend.nvptx_targets import checked_target
from gradir.gpu_backend.tile_policy import TilePolicy
from gradir.mlir_bridge import apply_schedule, defined_functions, drop_provenance, run_pipeline, walk_ops
from gradir.mlir_bridge.destinations import compute_into_destinations
from gradir.mlir_bridge.booleans import reject_boolean_buffers, store_booleans_as_bytes
from gradir.mlir_bridge.distinct_results import copy_repeated_results
from gradir.mlir_bridge.forwarding_calls import keep_forwarding_calls, write_call_results_in_place
from gradir.mlir_bridge.host_execution import keep_function_names_off_the_c_library, restore_c_interface_names
from gradir.mlir_bridge.loop_states import yield_loop_states_in_place
from gradir.mlir_bridge.tensor_stage import (
    ELEMENTWISE_FUSION_PIPELINE,
    TENSOR_SCHEDULE,
    move_read_inits_to_inputs,
)

# No CSE between `_one_definition_per_use` and bufferization: it would merge the fills again.
GENERALIZE_PIPELINE = "linalg-generalize-named-ops, linalg-fuse-elementwise-ops"

# No `eliminate-empty-tensors`: MLIR 22 miscompiles with it. `mlir_bridge.destinations` does
# the rewrite of it that saved kernels, between `GENERALIZE_PIPELINE` (fusion makes new inits)
# and this one.
BUFFER_PIPELINE = (
    "one-shot-bufferize{bufferize-function-boundaries"
    " function-boundary-type-conversion=identity-layout-map},"
    "buffer-results-to-out-params{hoist-static-allocs modify-public-functions},"
    "canonicalize, cse"
)

OUTLINING_PIPELINE = "gpu-kernel-outlining, func.func(gpu-async-region), canonicalize, cse"

NVVM_PIPELINE = (
    "gpu-lower-to-nvvm-pipeline{{cubin-chip={chip} cubin-features={features}"
    " cubin-format=isa opt-level={opt_level} kernel-bare-ptr-calling-convention=true}}"
)


def _drop_unused_private_functions(module: ir.Module) -> None:
    """Drop the private functions nothing calls, as the CPU pipeline's `symbol-dce`
    does: a vmapped or differentiated function's original (its scalar element reads,
    its `affine.for`, would be host code the GPU cannot take) is private and only named
    by the provenance of the functions generated from it (`autodiff.batched = {of = @f}`,
    `autodiff.derivative`), which is not a use and is dropped first."""
    drop_provenance(module)
    run_pipeline(module, "symbol-dce", "gpu-tensor")


def _read_only_arguments(module: ir.Module) -> None:
    """Bufferization may otherwise write into an argument's buffer, i.e. the caller's input."""
    false = ir.BoolAttr.get(False)
    for function in defined_functions(module):
        count = len(function.regions[0].blocks[0].arguments)
        attributes = (
            list(function.attributes["arg_attrs"]) if "arg_attrs" in function.attributes
            else [ir.DictAttr.get({})] * count
        )
        function.attributes["arg_attrs"] = ir.ArrayAttr.get([
            ir.DictAttr.get({**{a.name: a.attr for a in ir.DictAttr(d)}, "bufferization.writable": false})
            for d in attributes
        ])


def _one_definition_per_use(module: ir.Module) -> None:
    """Give each use of a `linalg.fill`, then of a `tensor.empty`, its own copy of it.

    A fill shared by two reductions would bufferize to one filled buffer copied for the
    second; one fill per use lets `map_to_gpu` fold each into its reduction's initial value.
    One `tensor.empty` per use lets `mlir_bridge.destinations` replace each by the
    destination its value is stored into (it replaces only an empty nothing else uses).
    """
    for name in ("linalg.fill", "tensor.empty"):
        for definition in walk_ops(module, {name}):
            for use in list(definition.result.uses)[1:]:
                user = use.owner.operation
                clone = definition.clone(ir.InsertionPoint(user))
                user.operands[use.operand_number] = clone.results[0]


def bufferize_for_gpu(module: ir.Module) -> ir.Module:
    """Stage 1: tensors -> memrefs with every op a `linalg.generic`; results as out-params."""
    with module.context:
        _drop_unused_private_functions(module)
        _read_only_arguments(module)
        # As on the CPU: callees inlined (a gradient then drops the value its vjp computes
        # and folds the seed 1), forwarders kept as calls (their callee compiled once).
        keep_forwarding_calls(module)
        # As on the CPU, `affine.for` on tensors becomes `scf.for`: a host loop launching
        # its body's kernels, its tensor states updated in place; branches between blocks
        # lifted to `scf` (MLIR 22's value-bounds analysis asserts on them).
        run_pipeline(module, "lift-cf-to-scf, lower-affine, inline, symbol-dce", "gpu-tensor")
        apply_schedule(module, TENSOR_SCHEDULE, "gpu-tensor")
        move_read_inits_to_inputs(module)
        run_pipeline(module, f"{ELEMENTWISE_FUSION_PIPELINE}, canonicalize, cse", "gpu-tensor")
        _one_definition_per_use(module)
        yield_loop_states_in_place(module)
        yield_branch_results_in_place(module)
        copy_repeated_results(module)
        with ir.Location.unknown():  # MLIR 22 aborts on a load or store of i1
            store_booleans_as_bytes(module)
            run_pipeline(module, GENERALIZE_PIPELINE, "gpu-bufferize")
            compute_into_destinations(module)
            run_pipeline(module, BUFFER_PIPELINE, "gpu-bufferize")
            write_call_results_in_place(module)
            reject_boolean_buffers(module, "gpu-bufferize")
    return module


def outline_kernels(module: ir.Module) -> ir.Module:
    """Stage 3: launches -> `gpu.func` kernels in `gpu.module`s, called by `gpu.launch_func`.

    Kernels are renamed `<function>_<n>_<strategy>` (unique, so PTX entry names and reports
    say which op a kernel came from), and their pointer arguments get `llvm.noalias` when the
    launch passes distinct buffers, which lets LLVM use the read-only data cache.
    """
    with module.context:
        strategies = {
            _name(function): [
                ir.StringAttr(launch.attributes["gradir.strategy"]).value
                for launch in walk_ops(function, {"gpu.launch"})
            ]
            for function in defined_functions(module)
        }
    run_pipeline(module, OUTLINING_PIPELINE, "gpu-outline")
    with module.context:
        kernel_modules = {
            _name(op): op.operation for op in module.body.operations if op.operation.name == "gpu.module"
        }
        for function in defined_functions(module):
            launches = walk_ops(function, {"gpu.launch_func"})
            for number, (launch, strategy) in enumerate(zip(launches, strategies[_name(function)])):
                kernel_module = kernel_modules[ir.SymbolRefAttr(launch.attributes["kernel"]).value[0]]
                name = f"{_name(function)}_{number}_{strategy.replace('-', '_')}"
                kernel = kernel_module.regions[0].blocks[0].operations[0]
                kernel_module.attributes["sym_name"] = ir.StringAttr.get(name)
                kernel.attributes["sym_name"] = ir.StringAttr.get(name)
                launch.attributes["kernel"] = ir.SymbolRefAttr.get([name, name])
                _mark_noalias(launch, kernel)
    return module


def _name(op: ir.Operation) -> str:
    return ir.StringAttr(op.attributes["sym_name"]).value


def _mark_noalias(launch: ir.Operation, kernel: ir.Operation) -> None:
    buffers = [v for v in launch.operands if isinstance(v.type, ir.MemRefType)]
    roots = [buffer_root(v) for v in buffers]
    if len(set(roots)) != len(roots) or any(is_select(r) for r in roots):
        return
    arguments, _ = kernel_arguments(kernel)
    unit = ir.UnitAttr.get()
    attributes = [
        ir.DictAttr.get({"llvm.noalias": unit} if isinstance(a.type, ir.MemRefType) else {})
        for a in arguments
    ]
    kernel.attributes["arg_attrs"] = ir.ArrayAttr.get(attributes)


def kernel_arguments(kernel: ir.Operation) -> tuple[list[ir.Value], list[ir.Value]]:
    """A `gpu.func`'s entry block arguments: (the function's arguments, its workgroup buffers),
    which the block holds after the arguments."""
    inputs = ir.FunctionType(ir.TypeAttr(kernel.attributes["function_type"]).value).inputs
    arguments = list(kernel.regions[0].blocks[0].arguments)
    return arguments[: len(inputs)], arguments[len(inputs) :]


def to_gpu_dialect(module: ir.Module, policy: TilePolicy | None = None) -> ir.Module:
    """Stages 1-3: linalg on tensors -> host functions launching outlined kernels."""
    return outline_kernels(map_to_gpu(bufferize_for_gpu(module), policy))


def nvvm_pipeline(chip: str = "sm_90", features: str | None = None, opt_level: int = 3) -> str:
    """The NVVM stage's pipeline text; `chip` and `features` (default: `+ptx80`, or the
    chip's minimum PTX version where higher) are checked first (`nvptx_targets`): LLVM
    would ignore unknown ones, or abort the process on a PTX version too old for the chip."""
    chip, features = checked_target(chip, features)
    if isinstance(opt_level, bool) or opt_level not in (0, 1, 2, 3):
        raise ArgumentError(f"opt_level must be 0, 1, 2 or 3, got {opt_level!r}")
    return NVVM_PIPELINE.format(chip=chip, features=features, opt_level=opt_level)


def to_nvvm_binary(
    module: ir.Module, chip: str = "sm_90", features: str | None = None, opt_level: int = 3
) -> ir.Module:
    """Stage 4: kernels -> NVVM -> PTX inside `gpu.binary`; host code -> LLVM dialect (function
    bodies as `__gradir_f`, their C wrappers `_mlir_ciface_f`: see
    `host_execution.keep_function_names_off_the_c_library`)."""
    with module.context:
        keep_function_names_off_the_c_library(module)
    run_pipeline(module, nvvm_pipeline(chip, features, opt_level), "gpu-nvvm")
    with module.context:
        restore_c_interface_names(module)
    return module


STAGE_FUNCTIONS = {
    "bufferize": bufferize_for_gpu,
    "map": map_to_gpu,
    "outline": outline_kernels,
    "nvvm": to_nvvm_binary,
}
"""Each stage (`stop_after`, `--gpu-stop-after`) and the function that runs it, in order:
`compile_to_gpu` runs these, and docs/reference.md lists them."""

STAGES = tuple(STAGE_FUNCTIONS)


def compile_to_gpu(
    module: ir.Module,
    chip: str = "sm_90",
    features: str | None = None,
    policy: TilePolicy | None = None,
    stop_after: str = "nvvm",
    opt_level: int = 3,
) -> ir.Module:
    """Run the GPU pipeline on `module` in place, up to and including stage `stop_after`."""
    if stop_after not in STAGES:
        raise PipelineError(f"unknown GPU stage '{stop_after}' (stages: {', '.join(STAGES)})")
    stage_options = {"map": (policy,), "nvvm": (chip, features, opt_level)}
    for name, run_stage in STAGE_FUNCTIONS.items():
        run_stage(module, *stage_options.get(name, ()))
        if name == stop_after:
            break
    return module
