"""Runs a named pipeline on a parsed module and renders the CLI's output."""
from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.dialects.builtin import ModuleOp

from gradir.tools.pipelines import run_xdsl_passes

if TYPE_CHECKING:
    from gradir.tools.autodiff_opt import AutodiffOptMain


def run_named_pipeline(tool: "AutodiffOptMain", module: ModuleOp) -> str:
    """xDSL passes of the pipeline, then its MLIR 22 stage if it has one."""
    pipeline = tool.named_pipeline
    assert pipeline is not None
    run_xdsl_passes(
        tool.ctx,
        module,
        pipeline.xdsl_passes,
        tool.available_passes,
        tool._verify_between_passes,
    )
    if pipeline.mlir_stage is None:
        return tool.output_resulting_program(module)
    if pipeline.mlir_stage == "cpu":
        from gradir.cpu_backend.cpu_pipeline import lower_to_llvm
        from gradir.mlir_bridge import to_mlir_module

        return str(lower_to_llvm(to_mlir_module(module))) + "\n"
    from gradir.gpu_backend.gpu_cli import render_gpu_output

    return render_gpu_output(
        module,
        chip=tool.args.gpu_chip,
        features=tool.args.gpu_features,
        emit=tool.args.emit,
        report=tool.args.gpu_report,
        stop_after=tool.args.gpu_stop_after,
    )
