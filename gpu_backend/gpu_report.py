"""A per-kernel report of a `CudaProgram`: launch shape, registers and spills, bytes moved.

Bytes are a static footprint (shared memory: the workgroup buffers a block holds): every buffer a kernel loads from counts once in full as read,
every buffer it stores to counts once in full as written (what DRAM sees when caches catch all
reuse inside the kernel). Registers and spills come from `ptxas -v` when it is on PATH.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from mlir import ir

from gradir.gpu_backend.gpu_pipeline import kernel_arguments
from gradir.gpu_backend.map_to_gpu import buffer_root
from gradir.gpu_backend.ptx import assemble, ptxas_path
from gradir.mlir_bridge import walk_ops


@dataclass(frozen=True)
class Traffic:
    bytes_read: int
    bytes_written: int
    shared_bytes: int = 0


def _bytes(memref_type: ir.MemRefType) -> int:
    element = memref_type.element_type
    width = element.width if hasattr(element, "width") else 64  # index
    return math.prod(memref_type.shape) * max(width // 8, 1)


def kernel_traffic(module: ir.Module) -> dict[str, Traffic]:
    """Kernel name -> the footprint of the buffers it reads and writes (outlined module)."""
    traffic: dict[str, Traffic] = {}
    for kernel in walk_ops(module, {"gpu.func"}):
        name = ir.StringAttr(kernel.attributes["sym_name"]).value
        read = {buffer_root(op.operands[0]) for op in walk_ops(kernel, {"memref.load"})}
        written = {buffer_root(op.operands[1]) for op in walk_ops(kernel, {"memref.store"})}
        function_arguments, workgroup = kernel_arguments(kernel)
        buffers = [a for a in function_arguments if isinstance(a.type, ir.MemRefType)]
        traffic[name] = Traffic(
            sum(_bytes(a.type) for a in buffers if a in read),
            sum(_bytes(a.type) for a in buffers if a in written),
            sum(_bytes(a.type) for a in workgroup),
        )
    return traffic


@dataclass(frozen=True)
class KernelReport:
    name: str
    function: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    registers: int | None
    spill_bytes: int | None
    bytes_read: int
    bytes_written: int
    shared_bytes: int


def kernel_reports(program, with_ptxas: bool = True) -> list[KernelReport]:
    """One report per kernel of `program` (a CudaProgram), in launch order."""
    use_ptxas = with_ptxas and ptxas_path() is not None
    reports = []
    for name, config in program.launch_configs.items():
        resources = assemble(program.ptx[name], program.chip).resources[name] if use_ptxas else None
        traffic = program.traffic[name]
        reports.append(
            KernelReport(
                name=name,
                function=config.function,
                grid=config.grid,
                block=config.block,
                registers=resources.registers if resources else None,
                spill_bytes=resources.spill_bytes if resources else None,
                bytes_read=traffic.bytes_read,
                bytes_written=traffic.bytes_written,
                shared_bytes=traffic.shared_bytes,
            )
        )
    return reports


def format_reports(reports: list[KernelReport]) -> str:
    """A plain-text table, one kernel per line."""
    header = ("kernel", "grid", "block", "regs", "spills", "read B", "written B", "shared B")
    rows = [header] + [
        (
            r.name,
            "x".join(map(str, r.grid)),
            "x".join(map(str, r.block)),
            "-" if r.registers is None else str(r.registers),
            "-" if r.spill_bytes is None else str(r.spill_bytes),
            str(r.bytes_read),
            str(r.bytes_written),
            str(r.shared_bytes),
        )
        for r in reports
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    return "\n".join(lines) + "\n"
