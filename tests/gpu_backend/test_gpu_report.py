"""The per-kernel report: launch shape, registers and spills, bytes read and written."""
import shutil

from gpu_cases import MATMUL, ROW_REDUCTIONS, compiled
from gradir.gpu_backend.gpu_report import format_reports, kernel_reports


def test_matmul_report_counts_each_operand_once():
    (report,) = kernel_reports(compiled(MATMUL))
    # 32x64 output tiles staged through shared memory, 4x2 outputs per thread
    assert report.grid == (8, 1, 1) and report.block == (32, 8, 1)
    assert report.shared_bytes == (32 * 16 + 16 * 64) * 4
    assert report.bytes_read == (64 * 784 + 784 * 256) * 4  # the zero fill is folded: C not read
    assert report.bytes_written == 64 * 256 * 4
    if shutil.which("ptxas"):
        assert report.registers > 0 and report.spill_bytes == 0
    else:
        assert report.registers is None


def test_split_reduction_reports_its_partials_buffer():
    first, second, *_ = kernel_reports(compiled(ROW_REDUCTIONS), with_ptxas=False)
    assert first.bytes_read == 64 * 256 * 4 and first.bytes_written == 64 * 32 * 4
    assert first.shared_bytes == 0
    assert second.bytes_read == 64 * 32 * 4 and second.bytes_written == 64 * 4


def test_format_reports_one_line_per_kernel():
    reports = kernel_reports(compiled(ROW_REDUCTIONS), with_ptxas=False)
    lines = format_reports(reports).splitlines()
    assert lines[0].split() == ["kernel", "grid", "block", "regs", "spills", "read", "B", "written", "B", "shared", "B"]
    assert len(lines) == 1 + len(reports)
    assert lines[1].split()[:5] == ["f_0_split_reduce32", "8x1x1", "256x1x1", "-", "-"]
