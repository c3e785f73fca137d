"""What the benchmark scripts share: the timing loop, the thread-limited child process, results sections.

Each script times its tools in a child process started with the thread count in its environment,
because NumPy's BLAS, PyTorch's OpenMP pool, XLA and gradir's runtime size their pools at import.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import time


def minimum_seconds(functions: dict, repeats: int) -> dict:
    """Each function's fastest call: one warm-up each, then `repeats` rounds calling them in turn."""
    for function in functions.values():
        function()
    best = {name: float("inf") for name in functions}
    for _ in range(repeats):
        for name, function in functions.items():
            start = time.perf_counter()
            function()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def thread_environment(threads: int) -> dict:
    """This process's environment with every tool's thread pool limited to `threads`."""
    names = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "GRADIR_NUM_THREADS")
    env = dict(os.environ, **{name: str(threads) for name in names})
    if threads == 1:  # XLA has no thread-count flag; this keeps its CPU ops on one thread
        env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen=false").strip()
    return env


def run_worker(script: str, threads: int, repeats: int, quick: bool) -> dict:
    """Run `script --worker THREADS` in a child limited to `threads`; return the JSON on its `RESULT ` line."""
    command = [sys.executable, script, "--worker", str(threads), "--repeats", str(repeats)]
    completed = subprocess.run(command + (["--quick"] if quick else []), capture_output=True, text=True,
                               env=thread_environment(threads), check=False)  # fmt: skip
    for line in completed.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    raise SystemExit(
        f"bench/{pathlib.Path(script).name}: the {threads}-thread worker failed:\n{completed.stderr[-3000:]}"
    )


def write_section(page: pathlib.Path, text: str, section: tuple[str, str]) -> None:
    """Replace the part of `page` between the `section` markers by `text`, or append it."""
    begin, end = section
    old = page.read_text() if page.exists() else ""
    block = f"{begin}\n{text.strip()}\n{end}\n"
    if begin in old and end in old:
        new = old[: old.index(begin)] + block + old[old.index(end) + len(end) :].lstrip("\n")
    else:
        new = old.rstrip("\n") + "\n\n" + block
    page.write_text(new)
