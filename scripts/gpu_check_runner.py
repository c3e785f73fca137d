"""The device half of `scripts/gpu-check`: `python run.py` in the bundle directory.

Needs Python, NumPy and a CUDA driver (PyTorch for the baselines); the bundle brings gradir's
loader (its NumPy-only modules) and the exported libraries. It:

1. loads every library of `plan.json` and runs each planned call, comparing the results with
   the expected ones the CPU backend computed when the bundle was built: the error is
   max |got - expected| / max |expected| per result, within `TOLERANCES` (float32: reductions
   run in another order on the GPU; float64: rounding only);
2. times the benchmarks' gradients (device-resident arguments, each call synchronized, the
   median of repeated calls) against PyTorch CUDA eager and `torch.compile` on the same device,
   and counts the kernels each launches (gradir: the runtime's counter; PyTorch: the profiler's
   GPU activities);
3. runs the checks again with every kernel loaded from its PTX (`GRADIR_CUDA_IMAGE=ptx`), the
   path of a driver that refuses the cubins;
4. writes `results/gpu_device.md` and `results/gpu_device.json` (device, driver, figures,
   kernel counts, registers and spills, bytes moved) and exits 0 when everything matches,
   1 when something does not, 2 when there is no usable CUDA driver (the message says why).

Input arrays are not shipped: `recipe_array` makes them from a seed, the same on every machine
and NumPy version (the build recorded their SHA-256, checked here).
"""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import platform
import signal
import statistics
import sys
import time
import traceback
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
TIME_BUDGET_S = 7 * 60
"""Past this, remaining timings are skipped (the check must finish in under 8 minutes)."""
TOLERANCES = {"float32": 2e-4, "float64": 1e-9}
"""Largest max |got - expected| / max |expected| per result, by dtype (integers: exact)."""


def recipe_array(recipe: dict) -> np.ndarray:
    """The array a recipe describes: `uniform` in [low, high), `onehot` rows, `integers` in
    [low, high); values from splitmix64 of (seed, index), independent of NumPy's generators."""
    shape, dtype = tuple(recipe["shape"]), np.dtype(recipe["dtype"])
    count = int(np.prod(shape, dtype=np.int64))
    offset = np.uint64((recipe["seed"] * 0x9E3779B97F4A7C15) % 2**64)
    z = np.arange(count, dtype=np.uint64) + offset
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    unit = (z >> np.uint64(11)).astype(np.float64) / 2.0**53
    kind = recipe["kind"]
    if kind == "uniform":
        values = recipe["low"] + (recipe["high"] - recipe["low"]) * unit
    elif kind == "integers":
        values = recipe["low"] + np.floor(unit * (recipe["high"] - recipe["low"]))
    elif kind == "onehot":
        rows, classes = shape
        values = np.zeros(shape)
        values[np.arange(rows), np.floor(unit[:rows] * classes).astype(np.int64)] = 1.0
        return values.astype(dtype)
    else:
        raise ValueError(f"unknown recipe {kind!r}")
    return values.reshape(shape).astype(dtype)


def arrays_sha256(arrays: list[np.ndarray]) -> str:
    digest = hashlib.sha256()
    for array in arrays:
        digest.update(str((array.shape, array.dtype.str)).encode())
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()


def relative_error(got, expected) -> float:
    got, expected = np.asarray(got, np.float64), np.asarray(expected, np.float64)
    if got.shape != expected.shape:
        return float("inf")
    if not np.all(np.isfinite(got) == np.isfinite(expected)):
        return float("inf")
    finite = np.isfinite(expected)
    scale = max(float(np.max(np.abs(expected[finite]), initial=0.0)), 1e-30)
    return float(np.max(np.abs(got[finite] - expected[finite]), initial=0.0)) / scale


def tolerance(dtype: np.dtype) -> float:
    return TOLERANCES.get(np.dtype(dtype).name, 0.0)


def seconds_per_call(function, synchronize=lambda: None, budget_s: float = 1.5, runs: tuple[int, int] = (5, 200)) -> float:
    """Median wall time of synchronized calls after one warm-up call."""
    function()
    synchronize()
    times: list[float] = []
    start = time.perf_counter()
    while len(times) < runs[0] or (len(times) < runs[1] and time.perf_counter() - start < budget_s):
        begin = time.perf_counter()
        function()
        synchronize()
        times.append(time.perf_counter() - begin)
    return statistics.median(times)


@contextlib.contextmanager
def deadline(seconds: float):
    """A `TimeoutError` in this (main) thread after `seconds`: a torch.compile that would
    take the run past its budget is abandoned, not waited for."""
    def expire(signum, frame):
        raise TimeoutError(f"abandoned after {seconds:.0f} s (the run's time budget)")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 1.0))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class Clock:
    def __init__(self):
        self.start = time.perf_counter()

    def left(self) -> float:
        return TIME_BUDGET_S - (time.perf_counter() - self.start)


# ------------------------------------------------------------------ PyTorch baselines


def mlp_loss_torch(torch, x, labels, w1, b1, w2, b2):
    """The benchmark MLP (784-256-10, ReLU, log-softmax cross-entropy), as scripts/gpu_check.py
    writes it in the autodiff dialect."""
    hidden = torch.relu(x @ w1 + b1)
    logits = hidden @ w2 + b2
    return -(torch.log_softmax(logits, 1) * labels).sum(1).mean()


def torch_baseline(torch, kind: str, arrays: list[np.ndarray], compiled: bool):
    """(gradient step, its parameters' count) on the device for benchmark `kind`."""
    device = torch.device("cuda")
    tensors = [torch.from_numpy(np.ascontiguousarray(a)).to(device) for a in arrays]
    if kind == "mlp":
        wrt = [2, 3, 4, 5]
        objective = lambda *t: mlp_loss_torch(torch, *t)  # noqa: E731
    elif kind == "gmm":
        from gmm_reference import gmm_objective_torch

        wrt = [0, 1, 2]
        objective = gmm_objective_torch
    elif kind == "lstm":
        from lstm import lstm_objective_torch

        wrt = [0, 1]
        objective = lambda *t: lstm_objective_torch(torch, *t)  # noqa: E731
    else:
        raise ValueError(kind)
    for index in wrt:
        tensors[index].requires_grad_(True)
    if compiled:
        objective = torch.compile(objective)
    parameters = [tensors[i] for i in wrt]

    def step():
        return torch.autograd.grad(objective(*tensors), parameters)

    return step


def gpu_activities(torch, step, steps: int = 1) -> list[tuple[str, float]]:
    """(name, microseconds) of every GPU activity (kernel, memset, copy) the profiler sees in
    `steps` calls of `step`. CUPTI records the whole process, so this also sees the kernels a
    gradir library launches through the driver API."""
    from torch.profiler import ProfilerActivity, profile

    step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as profiler:
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
    cuda = torch.autograd.DeviceType.CUDA
    return [(event.name, event.device_time) for event in profiler.events() if event.device_type == cuda]


def torch_gpu_activities(torch, step) -> int | None:
    """GPU activities (kernels, memsets, copies) the profiler sees in one step."""
    try:
        return len(gpu_activities(torch, step))
    except Exception:  # noqa: BLE001 - a count we cannot get is reported as such
        return None


def kernel_profile(torch, step, steps: int = 20) -> list[dict]:
    """Per GPU activity name: calls per step and mean microseconds per step, slowest first."""
    totals: dict[str, list[float]] = {}
    for name, microseconds in gpu_activities(torch, step, steps):
        totals.setdefault(name, []).append(microseconds)
    rows = [{"name": name, "calls": len(times) / steps, "us": sum(times) / steps} for name, times in totals.items()]
    return sorted(rows, key=lambda row: -row["us"])


# ------------------------------------------------------------------ the run


def run_checks(gradir, plan: dict, report: dict) -> dict:
    libraries = {}
    for entry in plan["libraries"]:
        library = gradir.load(HERE / entry["library"])
        libraries[entry["name"]] = library
        for planned in entry["calls"]:
            row = {"library": entry["name"], "function": planned["function"]}
            report["checks"].append(row)
            try:
                inputs = [recipe_array(r) for r in planned["inputs"]]
                if arrays_sha256(inputs) != planned["inputs_sha256"]:
                    raise RuntimeError("the inputs made here differ from the build's")
                expected = np.load(HERE / planned["expected"])
                before = library.launches
                got = library.call(planned["function"], *inputs)
                row["launches"] = library.launches - before
                errors = []
                for position, value in enumerate(got):
                    reference = expected[f"result{position}"]
                    error = relative_error(value, reference)
                    errors.append(error)
                    if not error <= tolerance(reference.dtype):
                        row["failure"] = f"result {position}: error {error:.3g} > {tolerance(reference.dtype):g}"
                row["error"] = max(errors, default=0.0)
                row["tolerance"] = max((tolerance(expected[k].dtype) for k in expected.files), default=0.0)
            except Exception as error:  # noqa: BLE001 - recorded, the check goes on
                row["failure"] = f"{type(error).__name__}: {error}"
        report["images"][entry["name"]] = {**library.images_loaded, "refused": library.cubin_refused}
    return libraries


def step_traffic(library, before: dict[str, int], after: dict[str, int]) -> int | None:
    """Bytes the kernels launched between two `kernel_launches` read and write: each launch
    counts its kernel's buffers (the manifest's `bytes_read` + `bytes_written`) once, so a
    kernel in a loop counts once per iteration. None when a launched kernel's are unknown
    (a buffer sized at run time)."""
    launched = {name: after[name] - before.get(name, 0) for name in after if after[name] > before.get(name, 0)}
    footprints = [(library.kernels[name]["bytes_read"], library.kernels[name]["bytes_written"]) for name in launched]
    if any(None in footprint for footprint in footprints):
        return None
    return sum(count * (read + written) for count, (read, written) in zip(launched.values(), footprints))


def run_benchmarks(gradir, plan: dict, libraries: dict, report: dict, clock: Clock, profile: bool = False) -> None:
    try:
        import torch

        have_torch = torch.cuda.is_available()
        report["torch"] = f"{torch.__version__} (CUDA {torch.version.cuda})" if have_torch else f"{torch.__version__}, no CUDA device"
    except ImportError:
        torch, have_torch = None, False
        report["torch"] = "not installed"
    for bench in plan["benchmarks"]:
        if bench["library"] not in libraries:
            continue
        row = {"name": bench["name"], "title": bench["title"], "minimum_bytes": bench.get("minimum_bytes")}
        report["benchmarks"].append(row)
        if clock.left() < 30:
            row["skipped"] = "time budget spent"
            continue
        library = libraries[bench["library"]]
        arrays = [recipe_array(r) for r in bench["inputs"]]
        try:
            prepared = library.prepare(bench["function"], *arrays)
            try:
                before, counts_before = library.launches, library.kernel_launches
                prepared.run()
                row["gradir_kernels"] = library.launches - before
                row["traffic_bytes"] = step_traffic(library, counts_before, library.kernel_launches)
                row["gradir_ms"] = seconds_per_call(prepared.run) * 1e3
            finally:
                prepared.free()
        except Exception as error:  # noqa: BLE001
            row["gradir_error"] = f"{type(error).__name__}: {error}"
        if not have_torch:
            continue
        if profile and "gradir_ms" in row:
            prepared = library.prepare(bench["function"], *arrays)
            try:
                report["profiles"].setdefault(bench["name"], {})["gradir"] = kernel_profile(torch, prepared.run)
            finally:
                prepared.free()
        for label, compiled in (("eager", False), ("compile", True)):
            if compiled and clock.left() < bench.get("compile_budget_s", 60):
                row[f"{label}_error"] = "skipped: time budget"
                continue
            try:
                with deadline(clock.left() - 15):
                    step = torch_baseline(torch, bench["kind"], arrays, compiled)
                    row[f"{label}_ms"] = seconds_per_call(step, torch.cuda.synchronize) * 1e3
                    row[f"{label}_kernels"] = torch_gpu_activities(torch, step)
                    if profile:
                        report["profiles"].setdefault(bench["name"], {})[label] = kernel_profile(torch, step)
            except Exception as error:  # noqa: BLE001
                row[f"{label}_error"] = f"{type(error).__name__}: {(str(error).splitlines() or [''])[0][:200]}"


def markdown(report: dict, plan: dict) -> str:
    def number(value, digits=3):
        return "-" if value is None else f"{value:.{digits}g}" if isinstance(value, float) else str(value)

    lines = [
        "# gradir on a GPU: `scripts/gpu-check`",
        "",
        f"Device: {report['device']}. PyTorch: {report.get('torch', '-')}. Python {report['python']}, "
        f"NumPy {report['numpy']}. Bundle built from {plan['built']['commit']} on {plan['built']['date']} "
        f"({plan['built']['ptxas'] or 'no ptxas: PTX only'}). Run took {report['seconds']:.0f} s.",
        "",
        "## Every exported function against the CPU backend",
        "",
        f"Error: max |GPU - CPU| / max |CPU| per result; tolerances {TOLERANCES} (float32 sums run in "
        "another order on the GPU).",
        "",
        "| library | function | kernels launched | error | result |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in report["checks"]:
        verdict = f"FAIL: {row['failure']}" if "failure" in row else "ok"
        lines.append(f"| {row['library']} | {row['function']} | {number(row.get('launches'))} | "
                     f"{number(row.get('error'))} | {verdict} |")  # fmt: skip
    ptx = report["ptx_checks"]
    if "checks" in ptx:
        matching = sum("failure" not in row for row in ptx["checks"])
        loaded = sum(images["ptx"] for images in ptx["images"].values())
        lines += ["", f"The same checks with every kernel loaded from its PTX (GRADIR_CUDA_IMAGE=ptx, {loaded} modules "
                      f"compiled by the driver): {matching} of {len(ptx['checks'])} match."]  # fmt: skip
    else:
        lines += ["", f"The checks from PTX (GRADIR_CUDA_IMAGE=ptx) did not run: {ptx}"]
    lines += ["", "Kernel images loaded (cubin, or PTX compiled by the driver):", ""]
    for name, images in report["images"].items():
        refused = f"; cubin refused: {images['refused']}" if images["refused"] else ""
        lines.append(f"- {name}: {images['cubin']} cubin, {images['ptx']} PTX{refused}")
    lines += [
        "", "## Gradient step times (device-resident arguments, synchronized, median)", "",
        "| benchmark | gradir ms | PyTorch eager ms | torch.compile ms | gradir / eager | kernels: gradir | eager | compile |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]  # fmt: skip
    for row in report["benchmarks"]:
        if "skipped" in row:
            lines.append(f"| {row['title']} | skipped: {row['skipped']} | | | | | | |")
            continue
        ratio = row["gradir_ms"] / row["eager_ms"] if "gradir_ms" in row and "eager_ms" in row else None
        cells = [row.get("gradir_ms", row.get("gradir_error")), row.get("eager_ms", row.get("eager_error")),
                 row.get("compile_ms", row.get("compile_error")), ratio, row.get("gradir_kernels"),
                 row.get("eager_kernels"), row.get("compile_kernels")]  # fmt: skip
        lines.append(f"| {row['title']} | " + " | ".join(number(c) for c in cells) + " |")
    lines += ["", "PyTorch kernel counts are the profiler's GPU activities (kernels, memsets, copies).", ""]
    lines += ["## Kernels", "", "| library | kernels | max registers | spill bytes | ptxas |", "| --- | --- | --- | --- | --- |"]
    for name, kernels in report["kernels"].items():
        lines.append(f"| {name} | {kernels['count']} | {number(kernels['registers'])} | {number(kernels['spills'])} | {kernels['ptxas']} |")
    for row in report["benchmarks"]:
        if row.get("traffic_bytes") and row.get("minimum_bytes"):
            lines.append("")
            lines.append(f"{row['title']}: the kernels one step launches touch {row['traffic_bytes'] / 1e6:.2f} MB "
                         f"(each launch counts its buffers once) for a minimum of {row['minimum_bytes'] / 1e6:.2f} MB "
                         f"(inputs read and results written once): {row['traffic_bytes'] / row['minimum_bytes']:.2f}x "
                         "(target 1.5x).")  # fmt: skip
    lines += ["", "## Targets (issue #22)", ""] + [f"- {target}" for target in targets(report)]
    if report["profiles"]:
        lines += profile_markdown(report["profiles"])
    return "\n".join(lines) + "\n"


def profile_markdown(profiles: dict, top: int = 12) -> list[str]:
    """`--profile`: where each benchmark's step spends its GPU time, kernel by kernel."""
    lines = ["", "## Where the time goes (`--profile`: GPU activities per step, slowest first)"]
    for bench, tools in profiles.items():
        for tool, rows in tools.items():
            total = sum(row["us"] for row in rows)
            lines += ["", f"{bench}, {tool}: {total:.1f} us of GPU activity per step, {sum(r['calls'] for r in rows):g} activities", "",
                      "| activity | per step | us | share |", "| --- | --- | --- | --- |"]  # fmt: skip
            for row in rows[:top]:
                lines.append(f"| `{row['name'][:90]}` | {row['calls']:g} | {row['us']:.1f} | {row['us'] / total:.0%} |")
            if len(rows) > top:
                rest = sum(row["us"] for row in rows[top:])
                lines.append(f"| {len(rows) - top} others | | {rest:.1f} | {rest / total:.0%} |")
    return lines


def targets(report: dict) -> list[str]:
    """Issue #22's device targets, each with whether this run met it."""
    def verdict(met) -> str:
        return "unknown" if met is None else "met" if met else "NOT met"

    checks = report["checks"] + report.get("ptx_checks", {}).get("checks", [])
    found = [f"every example and benchmark matches the CPU results: {verdict(all('failure' not in r for r in checks))}"]
    big = [row for row in report["benchmarks"] if row["name"] == "mlp_b8192"]
    if big and "gradir_ms" in big[0] and "eager_ms" in big[0]:
        row = big[0]
        faster = row["gradir_ms"] <= row["eager_ms"]
        fewer = None if row.get("eager_kernels") is None else row["gradir_kernels"] < row["eager_kernels"]
        found.append(f"MLP gradient at batch 8192 no slower than PyTorch eager ({row['gradir_ms']:.3g} ms against "
                     f"{row['eager_ms']:.3g}): {verdict(faster)}; fewer kernels ({row['gradir_kernels']} against "
                     f"{row.get('eager_kernels')}): {verdict(fewer)}")  # fmt: skip
    else:
        found.append("MLP gradient at batch 8192 against PyTorch eager: unknown (not measured)")
    spills = [k["spills"] for k in report["kernels"].values()]
    found.append(f"0 spills: {verdict(None if None in spills else not any(spills))}")
    for row in report["benchmarks"]:
        if row.get("traffic_bytes") and row.get("minimum_bytes"):
            ratio = row["traffic_bytes"] / row["minimum_bytes"]
            found.append(f"bytes moved within 1.5x of the minimum, {row['title']}: {ratio:.2f}x, {verdict(ratio <= 1.5)}")
    return found


def ptx_checks(clock: Clock, only: str | None = None) -> dict:
    """The checks again in a child process that loads every kernel from its PTX
    (GRADIR_CUDA_IMAGE=ptx: the driver's JIT, the path of a driver that refuses the cubins)."""
    import os
    import subprocess
    import tempfile

    if clock.left() < 60:
        return {"skipped": "time budget spent"}
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / "checks.json"
        try:
            command = [sys.executable, str(HERE / "run.py"), "--checks-to", str(target)] + (["--only", only] if only else [])
            done = subprocess.run(command,
                                  env={**os.environ, "GRADIR_CUDA_IMAGE": "ptx"}, capture_output=True, text=True,
                                  timeout=max(clock.left(), 30))  # fmt: skip
        except subprocess.TimeoutExpired:
            return {"skipped": "time budget spent"}
        if done.returncode != 0 or not target.exists():
            return {"failure": (done.stderr or done.stdout).strip()[-500:]}
        return json.loads(target.read_text())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-bench", action="store_true", help="check the results only")
    parser.add_argument("--checks-to", metavar="FILE", help="write the checks as JSON there, nothing else")
    parser.add_argument("--profile", action="store_true", help="also time every kernel of each benchmark (PyTorch's profiler)")
    parser.add_argument("--only", metavar="NAMES", help="comma-separated libraries to check and time (default: all)")
    options = parser.parse_args(argv)
    clock = Clock()
    sys.path.insert(0, str(HERE))
    import gradir  # the bundle's loader

    plan = json.loads((HERE / "plan.json").read_text())
    if options.only:
        names = set(options.only.split(","))
        unknown = names - {entry["name"] for entry in plan["libraries"]}
        if unknown:
            parser.error(f"--only: no library {', '.join(sorted(unknown))} in plan.json")
        plan["libraries"] = [entry for entry in plan["libraries"] if entry["name"] in names]
    report = {"python": platform.python_version(), "numpy": np.__version__, "checks": [], "images": {},
              "benchmarks": [], "kernels": {}, "profiles": {}, "loader": str(Path(gradir.__file__).resolve().parent)}  # fmt: skip
    first = gradir.load(HERE / plan["libraries"][0]["library"])
    try:
        report["device"] = first.device
    except gradir.TargetError as error:
        print(f"gpu-check: no usable CUDA driver here: {error.message}", file=sys.stderr)
        return 2
    for entry in plan["libraries"]:
        manifest = json.loads((HERE / entry["library"]).with_suffix(".json").read_text())
        kernels = manifest["kernels"].values()
        report["kernels"][entry["name"]] = {
            "count": len(kernels),
            "registers": max((k["registers"] for k in kernels if k["registers"] is not None), default=None),
            "spills": sum(k["spill_bytes"] for k in kernels if k["spill_bytes"] is not None) if manifest["ptxas"] else None,
            "ptxas": "yes" if manifest["ptxas"] else "no",
        }
    libraries = run_checks(gradir, plan, report)
    if options.checks_to:
        Path(options.checks_to).write_text(json.dumps({"checks": report["checks"], "images": report["images"]}))
        return 0
    report["ptx_checks"] = ptx_checks(clock, options.only)
    if not options.no_bench:
        try:
            run_benchmarks(gradir, plan, libraries, report, clock, options.profile)
        except Exception:  # noqa: BLE001 - the page is still written
            report["benchmark_crash"] = traceback.format_exc()
    report["seconds"] = time.perf_counter() - clock.start
    results = HERE / "results"
    results.mkdir(exist_ok=True)
    (results / "gpu_device.json").write_text(json.dumps(report, indent=1, default=str) + "\n")
    (results / "gpu_device.md").write_text(markdown(report, plan))
    failures = [row for row in report["checks"] if "failure" in row]
    failures += [{**row, "library": f"{row['library']} (PTX)"} for row in report["ptx_checks"].get("checks", []) if "failure" in row]
    print(f"gpu-check: {sum('failure' not in row for row in report['checks'])} of {len(report['checks'])} results match the CPU's; "
          f"wrote {results / 'gpu_device.md'}")  # fmt: skip
    for row in failures:
        print(f"  FAIL {row['library']}.{row['function']}: {row['failure']}")
    return 1 if failures or "benchmark_crash" in report or "failure" in report["ptx_checks"] else 0


if __name__ == "__main__":
    sys.exit(main())
