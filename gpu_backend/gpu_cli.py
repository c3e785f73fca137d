"""What `autodiff-opt --pipeline gpu` prints: the lowered MLIR (host module and
`gpu.binary`), the kernels' PTX (`--emit ptx`), a per-kernel report (`--gpu-report`), or the
MLIR after an earlier stage of the GPU pipeline (`--gpu-stop-after`)."""
from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from gradir.gpu_backend.cuda_program import CudaProgram
from gradir.gpu_backend.gpu_pipeline import compile_to_gpu
from gradir.gpu_backend.gpu_report import format_reports, kernel_reports
from gradir.mlir_bridge import to_mlir_module


def render_gpu_output(
    module: ModuleOp, *, chip: str, features: str, emit: str, report: bool, stop_after: str,
    generic: bool = False,
) -> str:
    """`generic`: MLIR in the generic op form (`--print-op-generic`)."""
    if stop_after != "nvvm":
        lowered = compile_to_gpu(to_mlir_module(module), chip, features, stop_after=stop_after)
        return lowered.operation.get_asm(print_generic_op_form=generic).rstrip() + "\n"
    program = CudaProgram(module, chip=chip, features=features)
    if report:
        return format_reports(kernel_reports(program)) + "\n"
    if emit == "ptx":
        return "".join(
            f"// kernel {name}\n{text.rstrip()}\n" for name, text in program.ptx.items()
        )
    return program.host_module.operation.get_asm(print_generic_op_form=generic).rstrip() + "\n"
