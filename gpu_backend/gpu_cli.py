"""What `autodiff-opt --pipeline gpu` prints: the lowered MLIR (host module and
`gpu.binary`), the kernels' PTX (`--emit ptx`), or a per-kernel report."""
from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from gradir.gpu_backend.cuda_program import CudaProgram
from gradir.gpu_backend.gpu_report import format_reports, kernel_reports


def render_gpu_output(
    module: ModuleOp, *, chip: str, features: str, emit: str, report: bool
) -> str:
    program = CudaProgram(module, chip=chip, features=features)
    if report:
        return format_reports(kernel_reports(program)) + "\n"
    if emit == "ptx":
        return "".join(
            f"// kernel {name}\n{text.rstrip()}\n" for name, text in program.ptx.items()
        )
    return str(program.host_module).rstrip() + "\n"
