"""scripts/gpu-check without a GPU: the bundle it builds (small benchmark sizes, one example),
the PyTorch baselines computing the gradients the bundled programs compute, and the runner up
to the driver: no driver is exit status 2 with the reason; with the recording fake driver it
loads and runs every library (the kernels do not run, so the results differ) and writes the
results page, importing neither xDSL nor MLIR nor the installed gradir."""
import json
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

import gradir

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "examples" / "gmm"))
sys.path.insert(0, str(ROOT / "examples" / "lstm"))

import gpu_check  # noqa: E402
from child_process import WITHOUT_COMPILER_STACK  # noqa: E402
from gmm_reference import gmm_objective_torch  # noqa: E402
from lstm import lstm_objective_torch  # noqa: E402


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    directory = tmp_path_factory.mktemp("gpu-check") / "bundle"
    plan = gpu_check.build(directory, quick=True, examples=[ROOT / "examples" / "product.mlir"], log=lambda _: None)
    return directory, plan


@pytest.fixture(scope="module")
def fake_driver(tmp_path_factory) -> pathlib.Path:
    path = tmp_path_factory.mktemp("driver") / "libcuda_fake.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", str(path), str(HERE / "fake_libcuda.c")], check=True)
    return path


def test_the_bundle_holds_libraries_expected_results_the_loader_and_the_runner(bundle):
    directory, plan = bundle
    assert [entry["name"] for entry in plan["libraries"]] == ["product", "mlp_b4", "gmm", "lstm"]
    assert [bench["name"] for bench in plan["benchmarks"]] == ["mlp_b4", "gmm", "lstm"]
    for entry in plan["libraries"]:
        library = directory / entry["library"]
        assert json.loads(library.with_suffix(".json").read_text())["target"] == "cuda"
        for call in entry["calls"]:
            assert (directory / call["expected"]).is_file()
    assert (directory / "run.py").read_text() == (ROOT / "scripts" / "gpu_check_runner.py").read_text()
    assert (directory / "gradir" / "gpu_backend" / "cuda_library.py").is_file()
    assert sum(path.stat().st_size for path in directory.rglob("*") if path.is_file()) < 16 * 2**20
    assert json.loads((directory / "plan.json").read_text()) == plan


def _gradients(directory, bench):
    runner = gpu_check.runner_module()
    arrays = [runner.recipe_array(recipe) for recipe in bench["inputs"]]
    expected = np.load(directory / f"expected/{bench['name']}.{bench['function']}.npz")
    return runner, arrays, [expected[f"result{i}"] for i in range(len(expected.files))]


@pytest.mark.parametrize("name", ["mlp_b4", "gmm", "lstm"])
def test_the_pytorch_baselines_compute_the_gradients_of_the_bundled_programs(bundle, name):
    """The expected results (gradir, CPU) against the runner's PyTorch step on the CPU: the
    timings compare the same computation."""
    directory, plan = bundle
    bench = next(b for b in plan["benchmarks"] if b["name"] == name)
    runner, arrays, expected = _gradients(directory, bench)
    tensors = [torch.from_numpy(a.copy()) for a in arrays]
    if name.startswith("mlp"):
        wrt, value = [2, 3, 4, 5], lambda: runner.mlp_loss_torch(torch, *tensors)
    elif name == "gmm":
        wrt, value = [0, 1, 2], lambda: gmm_objective_torch(*tensors)
    else:
        wrt, value = [0, 1], lambda: lstm_objective_torch(torch, *tensors)
    for index in wrt:
        tensors[index].requires_grad_(True)
    gradients = torch.autograd.grad(value(), [tensors[i] for i in wrt])
    assert len(gradients) == len(expected)
    for ours, theirs in zip(expected, gradients):
        tolerance = 1e-5 if ours.dtype == np.float32 else 1e-10
        assert runner.relative_error(theirs.numpy(), ours) < tolerance


def test_recipes_make_the_recorded_inputs_and_differ_by_seed(bundle):
    _, plan = bundle
    runner = gpu_check.runner_module()
    for entry in plan["libraries"]:
        for call in entry["calls"]:
            assert runner.arrays_sha256([runner.recipe_array(r) for r in call["inputs"]]) == call["inputs_sha256"]
    recipe = {"kind": "uniform", "shape": [1000], "dtype": "float64", "seed": 1, "low": -1.0, "high": 1.0}
    values = runner.recipe_array(recipe)
    assert -1.0 <= values.min() < -0.99 and 0.99 < values.max() < 1.0 and abs(values.mean()) < 0.1
    assert not np.array_equal(values, runner.recipe_array({**recipe, "seed": 2}))
    onehot = runner.recipe_array({"kind": "onehot", "shape": [500, 10], "dtype": "float32", "seed": 3})
    assert (onehot.sum(axis=1) == 1).all() and len(set(onehot.argmax(axis=1))) == 10


def _run(directory: pathlib.Path, environment: dict) -> subprocess.CompletedProcess:
    script = WITHOUT_COMPILER_STACK + textwrap.dedent(f"""
        import runpy, sys
        sys.argv = ["run.py"]
        runpy.run_path({str(directory / "run.py")!r}, run_name="__main__")
    """)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=directory.parent,
                          env={"PATH": "/usr/bin:/bin", **environment}, timeout=600)  # fmt: skip


def test_the_runner_without_a_driver_says_so_and_exits_2(bundle):
    directory, _ = bundle
    done = _run(directory, {"GRADIR_CUDA_DRIVER": "/nonexistent/libcuda.so.1"})
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (
        "gpu-check: no usable CUDA driver here: libproduct.so: no CUDA driver: /nonexistent/libcuda.so.1 could not "
        "be loaded (/nonexistent/libcuda.so.1: cannot open shared object file: No such file or directory)"
    )
    assert not (directory / "results").exists()


def test_the_runner_with_the_fake_driver_runs_every_library_and_writes_the_page(bundle, fake_driver):
    directory, plan = bundle
    done = _run(directory, {"GRADIR_CUDA_DRIVER": str(fake_driver)})
    calls = [(entry["name"], call["function"]) for entry in plan["libraries"] for call in entry["calls"]]
    # The fake runs no kernel: every result differs from the CPU's, and the run says so.
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines()[0].startswith(f"gpu-check: 0 of {len(calls)} results match the CPU's")
    report = json.loads((directory / "results" / "gpu_device.json").read_text())
    assert report["loader"] == str(directory / "gradir")
    assert report["device"] == "Fake GPU, sm_90, CUDA driver 12.4, cuMemAlloc"
    assert [(row["library"], row["function"]) for row in report["checks"]] == calls
    assert all(row["launches"] > 0 and row["failure"].startswith("result ") for row in report["checks"])
    for entry in plan["libraries"]:
        manifest = json.loads((directory / entry["library"]).with_suffix(".json").read_text())
        assert report["images"][entry["name"]] == {"cubin": len(manifest["kernels"]), "ptx": 0, "refused": ""}
        assert report["kernels"][entry["name"]]["spills"] == 0
    # The checks again, every kernel from its PTX, in a child process.
    ptx = report["ptx_checks"]
    assert [(row["library"], row["function"]) for row in ptx["checks"]] == calls
    assert all(images["cubin"] == 0 and images["ptx"] == report["images"][name]["cubin"] for name, images in ptx["images"].items())
    assert [row["name"] for row in report["benchmarks"]] == ["mlp_b4", "gmm", "lstm"]
    assert all(row["gradir_kernels"] > 0 and row["gradir_ms"] > 0 for row in report["benchmarks"])
    # Bytes a step touches, from the launches the runtime counted per kernel: the MLP and GMM
    # launch each of their kernels once; the LSTM's loop over time steps launches some again.
    for row in report["benchmarks"]:
        bench = next(b for b in plan["benchmarks"] if b["name"] == row["name"])
        manifest = json.loads((directory / f"libs/lib{bench['library']}.json").read_text())
        kernels = manifest["functions"][bench["function"]]["kernels"]
        once = sum(manifest["kernels"][k]["bytes_read"] + manifest["kernels"][k]["bytes_written"] for k in kernels)
        looped = row["name"] == "lstm"
        assert (row["traffic_bytes"] > once > 0) if looped else (row["traffic_bytes"] == once > 0)
        assert (row["gradir_kernels"] > len(kernels)) if looped else (row["gradir_kernels"] == len(kernels))
    page = (directory / "results" / "gpu_device.md").read_text()
    assert "Device: Fake GPU, sm_90" in page and "| product | df | 4 |" in page
    assert f"(GRADIR_CUDA_IMAGE=ptx, {sum(i['ptx'] for i in ptx['images'].values())} modules compiled by the driver): 0 of {len(calls)} match" in page
    assert "| MLP 784-256-10 gradient, batch 4 (f32) |" in page


def test_a_baseline_past_the_time_budget_is_abandoned():
    """run.py's `deadline`: what would take the run past 8 minutes (a long torch.compile)
    becomes an error in the page instead."""
    import time

    runner = gpu_check.runner_module()
    start = time.perf_counter()
    with pytest.raises(TimeoutError, match="abandoned after 1 s"):
        with runner.deadline(1.0):
            time.sleep(30)
    assert time.perf_counter() - start < 10


def test_the_bundle_checks_corpus_programs_the_gpu_pipeline_takes():
    """The corpus programs the full bundle adds (`CORPUS_PROGRAMS`) are vjps the corpus sweep
    runs on the emulated GPU: none is listed as refused there."""
    sys.path.insert(0, str(ROOT / "tests" / "corpus"))
    from test_corpus_gpu import EXPECTED_REFUSALS

    sources = dict(gpu_check.corpus_sources())
    assert sorted(sources) == sorted(f"corpus_{name}" for name in gpu_check.CORPUS_PROGRAMS)
    for name in gpu_check.CORPUS_PROGRAMS:
        assert EXPECTED_REFUSALS.get(name, ("ok",))[0] == "ok", name
        assert "func.func @__sweep_vjp" in sources[f"corpus_{name}"]
        assert "@__sweep_vmap" not in sources[f"corpus_{name}"]
