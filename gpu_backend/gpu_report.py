"""A per-kernel report of a `CudaProgram`: launch shape, registers and spills, bytes moved.

Bytes are a static footprint (shared memory: the workgroup buffers a block holds): every buffer a kernel loads from counts once in full as read,
every buffer it stores to counts once in full as written (what DRAM sees when caches catch all
reuse inside the kernel); unknown (None, `?`) where a buffer's size is known only at run time. Registers and spills come from `ptxas -v` when it is on PATH.
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
    bytes_read: int | None
    bytes_written: int | None
    """None: the kernel touches a buffer whose size is known only at run time."""
    shared_bytes: int = 0


def _bytes(memref_type: ir.MemRefType) -> int | None:
    if not memref_type.has_static_shape:
        return None
    element = memref_type.element_type
    width = element.width if hasattr(element, "width") else 64  # index
    return math.prod(memref_type.shape) * max(width // 8, 1)


def _buffer_type(argument: ir.Value) -> ir.MemRefType:
    """The type of the buffer a kernel argument stands for: a base the kernel rebuilds
    (`map_to_gpu._bare_pointer_buffers`) stands for what `memref.reinterpret_cast` makes."""
    for use in argument.uses:
        if use.owner.name == "memref.reinterpret_cast":
            return ir.MemRefType(use.owner.results[0].type)
    return ir.MemRefType(argument.type)


def _total(buffers: list[ir.Value]) -> int | None:
    sizes = [_bytes(_buffer_type(b)) for b in buffers]
    return None if None in sizes else sum(sizes)


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
            _total([a for a in buffers if a in read]),
            _total([a for a in buffers if a in written]),
            _total(workgroup),
        )
    return traffic


@dataclass(frozen=True)
class KernelReport:
    name: str
    function: str
    grid: tuple[int | None, int | None, int | None]
    block: tuple[int, int, int]
    registers: int | None
    spill_bytes: int | None
    bytes_read: int | None
    bytes_written: int | None
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
            "x".join("?" if g is None else str(g) for g in r.grid),
            "x".join(map(str, r.block)),
            "-" if r.registers is None else str(r.registers),
            "-" if r.spill_bytes is None else str(r.spill_bytes),
            "?" if r.bytes_read is None else str(r.bytes_read),
            "?" if r.bytes_written is None else str(r.bytes_written),
            str(r.shared_bytes),
        )
        for r in reports
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    return "\n".join(lines) + "\n"
