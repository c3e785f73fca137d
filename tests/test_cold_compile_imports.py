"""What a cold `gradir.compile` of a program that neither batches nor has plugins loads: the
cuts of bench/compile_latency.py's cold compile that are about imports, each held here so that
a later import does not quietly bring the cost back."""
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

COMPILE_THE_MLP = f"""
import json
import sys
import gradir
exe = gradir.compile({str(ROOT / "examples" / "mlp.mlir")!r}, num_threads=1)
assert exe.signatures and not exe.from_disk
print(json.dumps(sorted(name for name in sys.modules if name in LEFT_OUT)))
"""


def loaded_by_a_cold_compile(names: set[str]) -> list[str]:
    """Which of `names` are in `sys.modules` after a fresh process compiled the MLP example with
    the compilation cache off."""
    script = f"LEFT_OUT = {sorted(names)!r}\n" + COMPILE_THE_MLP
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT.parent,
        env={**os.environ, "GRADIR_CACHE": "0"}, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_compile_without_vmap_leaves_the_batching_rules_and_package_metadata_out():
    """`autodiff-vmap` imports its machinery only for a program that batches (10 ms of the
    MLP's compile), and the xDSL context comes from xDSL's own dialect table, not from every
    installed distribution's entry points (`importlib.metadata`, ~0.1 s)."""
    left_out = {"gradir.autodiff_pass.batched_functions", "gradir.autodiff_pass.rules.batching", "importlib.metadata"}
    assert loaded_by_a_cold_compile(left_out) == []


def test_the_compile_context_has_every_xdsl_dialect_and_autodiff():
    from xdsl.dialects import get_all_dialects

    from gradir.source import make_context

    registered = set(make_context().registered_dialect_names)
    assert set(get_all_dialects()) | {"autodiff"} <= registered
