"""The build half of `scripts/gpu-check`: a bundle directory to run on a GPU machine.

    bash scripts/gpu-check [BUNDLE_DIR]       # default gpu-check-bundle/

The bundle holds, well under 64 MiB:
- `libs/`: GPU libraries (`gradir.export(target="cuda")`) of every example that compiles for
  CUDA (examples/*.mlir, examples/standard/*.mlir) and of the benchmarks: the MLP 784-256-10
  gradient at batch 64 and 8192 (float32), the ADBench GMM gradient (float64, examples/gmm) and
  the ADBench LSTM gradient (float64, examples/lstm), with their headers and manifests;
- `expected/`: each planned call's results computed here by the CPU backend;
- `plan.json`: the libraries, the calls with their input recipes (arrays are made from seeds
  on the device: `recipe_array`, with their SHA-256 to check), the benchmarks;
- `run.py` (scripts/gpu_check_runner.py), gradir's NumPy-only loader (`gradir/`), and the
  PyTorch baselines' reference code (examples/gmm/gmm_reference.py, examples/lstm/lstm.py).

On the GPU machine: `python run.py` (Python, NumPy, the CUDA driver; PyTorch for the
baselines) writes results/gpu_device.md; see scripts/gpu_check_runner.py.
"""
from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples" / "gmm"))
sys.path.insert(0, str(ROOT / "examples" / "lstm"))

import gradir  # noqa: E402
from gmm import gmm_program  # noqa: E402
from lstm import lstm_program  # noqa: E402

RUNNER = ROOT / "scripts" / "gpu_check_runner.py"
LOADER_MODULES = (
    "gradir/__init__.py", "gradir/errors.py", "gradir/lazy_exports.py", "gradir/xdsl_threads.py",
    "gradir/native_calls.py", "gradir/native_library.py", "gradir/library_loading.py", "gradir/gpu_backend/__init__.py",
    "gradir/gpu_backend/cuda_library.py",
)  # fmt: skip
"""What `gradir.load` of a CUDA library imports, by their path in an installed gradir."""
BASELINE_MODULES = (ROOT / "examples" / "gmm" / "gmm_reference.py", ROOT / "examples" / "lstm" / "lstm.py")
MAX_BUNDLE_BYTES = 64 * 2**20


def runner_module():
    spec = importlib.util.spec_from_file_location("gpu_check_runner", RUNNER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def mlp_program(batch: int) -> str:
    """The MLP 784-256-10 (ReLU, log-softmax cross-entropy) loss and its gradient (float32)."""
    x, labels = f"tensor<{batch}x784xf32>", f"tensor<{batch}x10xf32>"
    weights = "tensor<784x256xf32>, tensor<256xf32>, tensor<256x10xf32>, tensor<10xf32>"
    return f"""
func.func @mlp_loss(%x: {x}, %labels: {labels}, %w1: tensor<784x256xf32>, %b1: tensor<256xf32>,
                    %w2: tensor<256x10xf32>, %b2: tensor<10xf32>) -> tensor<f32> {{
  %h = autodiff.matmul %x, %w1 : ({x}, tensor<784x256xf32>) -> tensor<{batch}x256xf32>
  %z = autodiff.add %h, %b1 : (tensor<{batch}x256xf32>, tensor<256xf32>) -> tensor<{batch}x256xf32>
  %a = autodiff.relu %z : tensor<{batch}x256xf32>
  %o = autodiff.matmul %a, %w2 : (tensor<{batch}x256xf32>, tensor<256x10xf32>) -> {labels}
  %logits = autodiff.add %o, %b2 : ({labels}, tensor<10xf32>) -> {labels}
  %logp = autodiff.log_softmax %logits {{dim = 1 : i64}} : {labels}
  %picked = autodiff.mul %logp, %labels : ({labels}, {labels}) -> {labels}
  %per_example = autodiff.sum %picked {{dims = array<i64: 1>}} : {labels} -> tensor<{batch}xf32>
  %mean = autodiff.mean %per_example : tensor<{batch}xf32> -> tensor<f32>
  %loss = autodiff.neg %mean : tensor<f32>
  return %loss : tensor<f32>
}}
func.func @mlp_grad(%x: {x}, %labels: {labels}, %w1: tensor<784x256xf32>, %b1: tensor<256xf32>,
                    %w2: tensor<256x10xf32>, %b2: tensor<10xf32>) -> ({weights}) {{
  %g:4 = autodiff.grad @mlp_loss(%x, %labels, %w1, %b1, %w2, %b2) {{wrt = array<i64: 2, 3, 4, 5>}}
      : ({x}, {labels}, {weights}) -> ({weights})
  return %g#0, %g#1, %g#2, %g#3 : {weights}
}}
"""


def default_recipes(signature, seed: int, low: float = -1.0, high: float = 1.0) -> list[dict]:
    """Inputs for any function: floats uniform in [low, high), integers in [0, 3)."""
    recipes = []
    for position, spec in enumerate(signature.arguments):
        recipe = {"shape": list(spec.shape), "dtype": spec.dtype.name, "seed": seed * 100 + position}
        if spec.dtype.kind == "f":
            recipe.update(kind="uniform", low=low, high=high)
        elif spec.dtype.kind == "b":
            recipe.update(kind="integers", low=0, high=2)
        else:
            recipe.update(kind="integers", low=0, high=3)
        recipes.append(recipe)
    return recipes


def mlp_recipes(batch: int) -> list[dict]:
    def uniform(shape, seed, scale):
        return {"kind": "uniform", "shape": shape, "dtype": "float32", "seed": seed, "low": -scale, "high": scale}

    return [
        uniform([batch, 784], 1, 1.0), {"kind": "onehot", "shape": [batch, 10], "dtype": "float32", "seed": 2},
        uniform([784, 256], 3, 0.05), uniform([256], 4, 0.1), uniform([256, 10], 5, 0.1), uniform([10], 6, 0.1),
    ]  # fmt: skip


def gmm_recipes(d: int, k: int, n: int) -> list[dict]:
    def uniform(shape, seed, low, high):
        return {"kind": "uniform", "shape": shape, "dtype": "float64", "seed": seed, "low": low, "high": high}

    return [uniform([k], 11, -1.0, 1.0), uniform([k, d], 12, -1.0, 1.0),
            uniform([k, d * (d + 1) // 2], 13, -0.5, 0.5), uniform([n, d], 14, -1.0, 1.0)]  # fmt: skip


def lstm_recipes(layers: int, steps: int, width: int) -> list[dict]:
    def uniform(shape, seed, low, high):
        return {"kind": "uniform", "shape": shape, "dtype": "float64", "seed": seed, "low": low, "high": high}

    return [uniform([2 * layers, 4 * width], 21, -0.5, 0.5), uniform([3, width], 22, -0.5, 0.5),
            uniform([2 * layers, width], 23, -0.5, 0.5), uniform([steps, width], 24, 0.0, 1.0)]  # fmt: skip


def benchmark_programs(quick: bool) -> list[dict]:
    """The benchmarks: name, title, program text, timed function, inputs, PyTorch baseline."""
    gmm_size, lstm_size = ((2, 3, 20), (1, 4, 3)) if quick else ((10, 25, 1000), (2, 100, 14))
    batches = (4,) if quick else (64, 8192)
    programs = [
        {"name": f"mlp_b{b}", "title": f"MLP 784-256-10 gradient, batch {b} (f32)", "text": mlp_program(b),
         "function": "mlp_grad", "kind": "mlp", "inputs": mlp_recipes(b)}
        for b in batches
    ]  # fmt: skip
    d, k, n = gmm_size
    programs.append({"name": "gmm", "title": f"ADBench GMM gradient d={d} K={k} n={n} (f64)", "text": gmm_program(d, k, n),
                     "function": "gmm_gradient", "kind": "gmm", "inputs": gmm_recipes(d, k, n)})  # fmt: skip
    layers, steps, width = lstm_size
    programs.append({"name": "lstm", "title": f"ADBench LSTM gradient l={layers} c={steps} b={width} (f64)",
                     "text": lstm_program(layers, steps, width), "function": "lstm_gradient", "kind": "lstm",
                     "inputs": lstm_recipes(layers, steps, width),
                     "compile_budget_s": 240})  # fmt: skip
    return programs


CORPUS_PROGRAMS = (
    "lagrad_generic_closure",  # a gradient with respect to a scalar: a device element read back
    "lagrad_scf_product",  # a scalar loop over tensor elements on the host
    "lagrad_scf_forintermediate",  # a branch yielding a slice of its input (copied)
    "enzyme_while_fwd",  # scf.while on the host
    "enzyme_affine_for_rev",  # affine.for, lowered to scf.for
    "lagrad_gmm_full",  # host scalars and loops in a real model
    "enzyme_scf_while_rev",  # a tape of run-time length, memref<?xf64>, rebuilt in kernels
    "jax_rnn",  # tapes of run-time length, memref<?x2x3xf64>, written and read by kernels
)
"""Corpus programs (tests/corpus) whose vjp the bundle checks too: the GPU paths their programs
take have not run on a device otherwise (they were added with the corpus sweep on the
emulated GPU, tests/corpus/test_corpus_gpu.py)."""


def corpus_sources() -> list[tuple[str, str]]:
    """(library name, module text) of each `CORPUS_PROGRAMS` entry's vjp (`__sweep_vjp`)."""
    sys.path.insert(0, str(ROOT / "tests" / "corpus"))
    import run_corpus
    import vmap_sweep

    return [
        (f"corpus_{program.name}", vmap_sweep.sweep_module_text(program).vjp_text)
        for program in run_corpus.discover(list(CORPUS_PROGRAMS))
    ]


def example_sources() -> list[Path]:
    return sorted((ROOT / "examples").glob("*.mlir")) + sorted((ROOT / "examples" / "standard").glob("*.mlir"))


def _commit() -> str:
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain"], capture_output=True, text=True).stdout
    return (done.stdout.strip() or "unknown") + ("+changes" if dirty.strip() else "")


def build(bundle: Path, quick: bool = False, examples: list[Path] | None = None, log=print) -> dict:
    """Write the bundle into `bundle` (emptied first); returns the plan. `quick`: tiny
    benchmark sizes; `examples`: these sources instead of every example (for tests)."""
    runner = runner_module()
    if bundle.exists():
        shutil.rmtree(bundle)
    (bundle / "libs").mkdir(parents=True)
    (bundle / "expected").mkdir()
    plan = {"built": {"commit": _commit(), "date": datetime.date.today().isoformat(), "ptxas": None},
            "libraries": [], "benchmarks": [], "skipped": []}  # fmt: skip

    def add_library(name: str, source, calls: dict[str, list[dict] | None] | None, low: float = -1.0) -> dict | None:
        """`calls`: the functions checked and their inputs (None: every function; a function
        mapped to None: `default_recipes`, floats in [low, low + 2))."""
        start = time.perf_counter()
        library = bundle / "libs" / f"lib{name}.so"
        functions = None if calls is None else list(calls)  # the others only where inlined
        try:
            gradir.export(source, target="cuda", path=library, functions=functions)
        except gradir.GradirError as error:
            plan["skipped"].append({"name": name, "why": error.message})
            log(f"  {name}: not exported for CUDA ({error.message})")
            return None
        manifest = json.loads(library.with_suffix(".json").read_text())
        plan["built"]["ptxas"] = manifest["ptxas"]
        cpu = gradir.compile(source, target="cpu", functions=functions)
        entry = {"name": name, "library": f"libs/{library.name}", "calls": []}
        signatures = cpu.signatures
        for seed, function in enumerate(signatures):
            if calls is not None and function not in calls:
                continue
            recipes = calls[function] if calls and calls[function] else default_recipes(signatures[function], seed, low, low + 2.0)
            inputs = [runner.recipe_array(r) for r in recipes]
            results = cpu.call(function, *inputs)
            expected = f"expected/{name}.{function}.npz"
            np.savez(bundle / expected, **{f"result{i}": np.asarray(v) for i, v in enumerate(results)})
            entry["calls"].append({"function": function, "inputs": recipes,
                                   "inputs_sha256": runner.arrays_sha256(inputs), "expected": expected})  # fmt: skip
        plan["libraries"].append(entry)
        log(f"  {name}: {len(manifest['kernels'])} kernels, {len(entry['calls'])} checked calls "
            f"({time.perf_counter() - start:.1f} s)")  # fmt: skip
        return manifest

    log("examples:")
    for source in example_sources() if examples is None else examples:
        add_library(source.stem, source, None)
    if examples is None:
        log("corpus programs:")
        for name, text in corpus_sources():
            add_library(name, text, {"__sweep_vjp": None}, low=0.25)  # positive: logs, roots
    log("benchmarks:")
    for bench in benchmark_programs(quick):
        manifest = add_library(bench["name"], bench["text"], {bench["function"]: bench["inputs"]})
        if manifest is None:
            continue
        signature = manifest["functions"][bench["function"]]
        minimum = sum(
            int(np.prod(value["shape"], dtype=np.int64)) * np.dtype(_NUMPY[value["element"]]).itemsize
            for value in (*signature["arguments"], *signature["results"])
        )
        plan["benchmarks"].append({
            "name": bench["name"], "title": bench["title"], "library": bench["name"], "function": bench["function"],
            "kind": bench["kind"], "inputs": bench["inputs"], "compile_budget_s": bench.get("compile_budget_s", 60),
            # The bytes a step touches are counted on the device (run.py's `step_traffic`).
            "minimum_bytes": minimum,
        })  # fmt: skip
    for module in LOADER_MODULES:
        target = bundle / module
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / _source_path(module), target)
    for module in BASELINE_MODULES:
        shutil.copyfile(module, bundle / module.name)
    shutil.copyfile(RUNNER, bundle / "run.py")
    (bundle / "plan.json").write_text(json.dumps(plan, indent=1) + "\n")
    (bundle / "README.md").write_text(
        "# gradir GPU check bundle\n\nOn a machine with an NVIDIA GPU, its driver, Python and NumPy "
        "(PyTorch for the baselines): `python run.py`. It writes results/gpu_device.md (copy it to "
        "bench/results/ in the repository) and exits 0 when every result matches the CPU's.\n"
    )
    size = sum(path.stat().st_size for path in bundle.rglob("*") if path.is_file())
    if size > MAX_BUNDLE_BYTES:
        raise SystemExit(f"gpu-check: the bundle is {size / 2**20:.1f} MiB, over {MAX_BUNDLE_BYTES // 2**20} MiB")
    log(f"bundle: {bundle} ({size / 2**20:.1f} MiB); on the GPU machine: python run.py")
    return plan


_NUMPY = {"f16": "float16", "f32": "float32", "f64": "float64", "i1": "bool", "i8": "int8", "i16": "int16",
          "i32": "int32", "i64": "int64", "index": "int64"}  # fmt: skip


def _source_path(module: str) -> str:
    """A loader module's file in this checkout (`gradir/gpu_backend/x.py` is gpu_backend/x.py)."""
    return module.removeprefix("gradir/") if module.startswith("gradir/gpu_backend/") else module


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Build the bundle that scripts/gpu-check runs on a GPU.")
    parser.add_argument("bundle", nargs="?", default=str(ROOT / "gpu-check-bundle"), help="directory to write")
    parser.add_argument("--quick", action="store_true", help="tiny benchmark sizes (for tests)")
    options = parser.parse_args(argv)
    build(Path(options.bundle), quick=options.quick)


if __name__ == "__main__":
    main()
