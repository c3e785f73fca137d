"""README's commands and examples, run: none can stop working, or stop printing what README
shows, without a test going red. (The "From JAX" section is run by
tests/jax_export/test_jax_export.py, the op table checked by tests/test_op_table.py.)"""
from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
BIN = pathlib.Path(sys.executable).parent


def blocks(language: str) -> list[tuple[str, str]]:
    """(section heading, code) of every fenced block in `language`, in order."""
    found, heading = [], ""
    for match in re.finditer(r"^(#+ [^\n]*)$|^```(\w*)\n(.*?)^```$", README, re.M | re.S):
        if match[1]:
            heading = match[1].lstrip("# ").strip()
        elif match[2] == language:
            found.append((heading, match[3]))
    return found


def block(language: str, heading: str, index: int = 0) -> str:
    matching = [code for section, code in blocks(language) if section == heading]
    assert len(matching) > index, f"README has no {language} block #{index} under '{heading}'"
    return matching[index]


def shell(command: str, **options) -> subprocess.CompletedProcess:
    """`command` as README writes it, with `.venv/bin/` meaning this interpreter's bin folder."""
    command = command.replace(".venv/bin/", f"{BIN}/")
    return subprocess.run(["bash", "-c", command], capture_output=True, text=True, cwd=ROOT, timeout=900, **options)


def test_readme_stands_alone():
    """A clone has no ../shared: README must not send readers there."""
    assert "../shared" not in README and "DESIGN.md" not in README
    for path in re.findall(r"`((?:docs|examples|scripts|tests|bench)/[\w./-]+\.(?:md|mlir|py))`", README):
        assert (ROOT / path).exists(), f"README names {path}, which does not exist"


def test_quick_start_main_job():
    """Quick start (a), after its set-up (`pip install -e`, which this environment has done):
    the gradcheck passes with every checked argument exercised, and PTX for sm_90 comes out."""
    (command,) = [line for line in block("sh", "Quick start (fresh machine)").splitlines() if "autodiff-gradcheck" in line]
    main_job = command.split("&& ", 2)[2]  # after `python3 -m venv .venv && .venv/bin/pip install ...`
    assert main_job.startswith(".venv/bin/autodiff-gradcheck"), main_job
    result = shell(main_job)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "VACUOUS" not in result.stdout and "gradcheck of @mlp_loss" in result.stdout
    assert ".target sm_90" in result.stdout and ".visible .entry" in result.stdout


def abridged_fragments(code: str) -> list[str]:
    """The pieces of an abridged listing that the real output must contain, in order: each line
    cut at `...` and `;`, braces at the cut ends dropped, whitespace collapsed."""
    fragments = []
    for line in code.splitlines():
        for piece in re.split(r"\s*(?:\.\.\.|;)\s*", line):
            piece = " ".join(piece.split()).strip("{} ").strip()
            if piece:
                fragments.append(piece)
    return fragments


def assert_shows(output: str, code: str) -> None:
    text = " ".join(output.split())
    position = 0
    for fragment in abridged_fragments(code):
        found = text.find(fragment, position)
        assert found >= 0, f"README shows {fragment!r}, which the output does not have (after position {position})"
        position = found + len(fragment)


@pytest.mark.parametrize("index,passes", [(0, "autodiff-reverse"), (1, "autodiff-reverse,autodiff-split")])
def test_worked_example_listings_are_what_autodiff_opt_prints(index, passes):
    result = shell(f".venv/bin/autodiff-opt examples/product.mlir -p {passes}")
    assert result.returncode == 0, result.stderr
    assert_shows(result.stdout, block("mlir", "Worked example", index))


def test_abridged_listing_check_can_fail():
    with pytest.raises(AssertionError, match="which the output does not have"):
        assert_shows("%a = autodiff.mul %x, %y", "%a = autodiff.add %x ...")
    with pytest.raises(AssertionError):  # in order
        assert_shows("%b = autodiff.neg %a %a = autodiff.exp %x", "%a = autodiff.exp %x\n%b = autodiff.neg %a")


def test_worked_example_ptx_and_report():
    """"`--pipeline gpu --emit ptx` takes the same file to PTX (`.target sm_90`, one `.visible
    .entry` per kernel); `--gpu-report` lists each kernel's grid, block, registers, ...\""""
    ptx = shell(".venv/bin/autodiff-opt examples/product.mlir --pipeline gpu --emit ptx")
    assert ptx.returncode == 0, ptx.stderr
    assert ".target sm_90" in ptx.stdout and ".visible .entry" in ptx.stdout
    report = shell(".venv/bin/autodiff-opt examples/product.mlir --pipeline gpu --gpu-report")
    assert report.returncode == 0, report.stderr
    assert report.stdout.split("\n")[0].split() == ["kernel", "grid", "block", "regs", "spills", "read", "B", "written", "B", "shared", "B"]


@pytest.mark.parametrize("tool", ["autodiff-opt", "autodiff-run", "autodiff-gradcheck"])
def test_every_flag_in_help_is_in_readme(tool):
    help_text = shell(f".venv/bin/{tool} --help").stdout
    flags = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", help_text)) - {"--help"}
    assert flags, help_text
    missing = sorted(flag for flag in flags if not re.search(rf"`{flag}\b|{flag}[ =`,/]", README))
    assert not missing, f"{tool} --help has flags README never mentions: {missing}"


def test_every_flag_of_readmes_autodiff_opt_table_exists():
    section = README.split("## `autodiff-opt`", 1)[1].split("### Errors", 1)[0]
    rows = re.findall(r"^\| `(--[a-z-]+)", section, re.M)
    assert len(rows) >= 10, rows
    help_text = shell(".venv/bin/autodiff-opt --help").stdout
    assert [flag for flag in rows if flag not in help_text] == []


def run_python_block(index: int, monkeypatch) -> dict:
    """Execute README's `index`-th Python block of "Python API" from the repository root
    (its paths are relative to it), with what the first block imports; its variables."""
    import gradir

    monkeypatch.chdir(ROOT)
    namespace: dict = {"gradir": gradir, "np": np}
    exec(compile(block("python", "Python API", index), f"README.md (Python API, block {index})", "exec"), namespace)
    return namespace


def test_python_api_block_runs_and_gives_what_its_comments_say(monkeypatch, capsys):
    seen = run_python_block(0, monkeypatch)
    assert isinstance(seen["loss"], np.ndarray) and float(seen["loss"]) == 16.0  # sum(a*b*a + b) at a=1, b=2
    np.testing.assert_allclose(seen["ga"], 2 * 1 * 2)  # d/da = 2ab
    np.testing.assert_allclose(seen["gb"], 1 + 1)  # d/db = a^2 + 1
    np.testing.assert_array_equal(seen["ga2"], seen["ga"])  # the deferred gradient: the same numbers
    np.testing.assert_array_equal(seen["gb2"], seen["gb"])
    assert seen["kernels"] and all(".target sm_90" in ptx for ptx in seen["kernels"].values())
    assert seen["res"].ok and "checkpoint" not in capsys.readouterr().err
    assert repr(seen["g"]).startswith("Gradient(f=@f_vjp_0_1_fwd, df=@f_vjp_0_1_bwd,")
    assert "cpu-jit" in [stage.name for stage in seen["report"].stages()]


def test_python_scalar_block_runs(monkeypatch):
    seen = run_python_block(1, monkeypatch)
    assert seen["y"] == 3.375 and type(seen["y"]) is np.float64
    assert seen["big"] is np.True_


def test_nan_inf_and_unused_arguments_blocks_run(monkeypatch):
    """The "NaN, Inf and unused arguments" blocks: each variable holds what its comment says
    (`message` and `refused` exist only if the `except` clause caught the error it names)."""
    monkeypatch.chdir(ROOT)
    namespace: dict = {}
    for index in (0, 1):
        code = block("python", "NaN, Inf and unused arguments", index)
        exec(compile(code, f"README.md (NaN, Inf and unused arguments, block {index})", "exec"), namespace)
    assert np.isnan(namespace["nans"]).all()
    np.testing.assert_allclose(namespace["gradient"], [0.6, 0.0, 0.8])
    shown = re.search(r"message = str\(error\)   # (.*); \.\.\.$", block("python", "NaN, Inf and unused arguments"), re.M)[1]
    assert namespace["message"].startswith(shown), namespace["message"]
    assert namespace["zeros"].df_output_vjps == (0, 1) and namespace["left_out"].df_output_vjps == (0,)
    assert namespace["refused"].startswith("<string>:2:1: error: argument 1 of @f does not influence its result (")


def test_custom_rule_sketch_names_the_real_interface():
    """The "Derivative rules" section sketches a Python rule (its op is the reader's own, so it
    cannot run here; tests/autodiff_pass/test_registry.py runs a complete one): the calls and
    keywords it shows must be gradir's."""
    import inspect

    import gradir

    sketch = block("python", "Derivative rules")
    for keyword in re.findall(r"register_vjp\([^)]*?(\w+)=", sketch) + ["saved_inputs", "saved_outputs"]:
        assert keyword in inspect.signature(gradir.register_vjp).parameters, keyword
    assert "def cube_vjp(builder, op, output_grads)" in sketch
    assert "gradir.register_jvp(\"mydialect.cube\", cube_jvp)" in sketch
    assert list(inspect.signature(gradir.register_jvp).parameters)[:2] == ["op_name", "rule"]


def test_derivative_rule_example_is_the_rule_file_entry():
    """README's YAML example is `mul`'s entry of autodiff_pass/rules/derivatives.yaml, as
    the loader reads it (comments aside)."""
    import yaml

    (shown,) = yaml.safe_load(block("yaml", "Derivative rules"))
    entries = yaml.safe_load((ROOT / "autodiff_pass" / "rules" / "derivatives.yaml").read_text())
    (real,) = [entry for entry in entries if entry["name"] == shown["name"]]
    assert shown == real


def test_batching_block_runs_and_gives_the_shapes_its_comments_say(monkeypatch):
    """README's "Batching, Jacobians and Hessians" example: vmap, vmap of grad, jacobian
    and hessian, with the shapes its comments give (and its own assertion: the per-example
    gradients sum to the gradients one by one)."""
    import gradir

    monkeypatch.chdir(ROOT)
    seen: dict = {}
    code = block("python", "Batching, Jacobians and Hessians")
    exec(compile(code, "README.md (Batching, Jacobians and Hessians)", "exec"), seen)
    shapes = {name: seen[name].shape for name in ("ys", "per_example", "J", "H")}
    assert shapes == {"ys": (8, 1, 4), "per_example": (8, 3, 4), "J": (1, 4, 3, 4), "H": (3, 4, 3, 4)}
    for name, shape in shapes.items():
        assert f"# {shape}".replace(" ", "") in code.replace(" ", ""), name
    np.testing.assert_allclose(seen["ys"][3], np.tanh(seen["xs"][3] @ seen["w"]))
    np.testing.assert_allclose(seen["H"], np.transpose(seen["H"], (2, 3, 0, 1)), atol=1e-12)


def test_linalg_batching_block_runs_and_batches_the_matmul(monkeypatch):
    """The second block of "Batching, Jacobians and Hessians": per-example gradients of a
    linalg.matmul program, each equal to the gradient of its example (its own assertion),
    and the batched function holds one linalg.matmul over the folded rows, no loop."""
    import gradir
    from gradir.autodiff_pass import AutodiffVmapPass
    from gradir.source import load_module, make_context

    monkeypatch.chdir(ROOT)
    seen: dict = {}
    code = block("python", "Batching, Jacobians and Hessians", 1)
    exec(compile(code, "README.md (Batching, Jacobians and Hessians, linalg)", "exec"), seen)
    assert seen["per_example"].shape == (8, 3, 4) and "# (8, 3, 4)" in code
    assert not np.allclose(seen["per_example"][0], seen["per_example"][1])
    vmapped = seen["source"] + """
func.func @per_example(%w: tensor<3x4xf64>, %xs: tensor<8x1x3xf64>) -> tensor<8x3x4xf64> {
  %g = autodiff.vmap @loss(%w, %xs) {in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>, size = 8 : i64} : (tensor<3x4xf64>, tensor<8x1x3xf64>) -> tensor<8xf64>
  %b = autodiff.broadcast_to %g : tensor<8xf64> -> tensor<8x3x4xf64>
  return %b : tensor<8x3x4xf64>
}"""
    module = load_module(vmapped)
    AutodiffVmapPass().apply(make_context(), module)
    text = str(module)
    assert "linalg.matmul ins(%0, %w : tensor<8x3xf64>, tensor<3x4xf64>)" in text and "scf.for" not in text


def test_machine_code_on_disk_block_runs(monkeypatch):
    """"Machine code on disk": export, load, and the results the comments promise."""
    import gradir

    monkeypatch.chdir(ROOT)
    namespace: dict = {"gradir": gradir, "np": np}
    code = block("python", "Machine code on disk: export, load, and the compilation cache")
    exec(compile(code, "README.md (Machine code on disk)", "exec"), namespace)
    out = namespace["out"]
    assert sorted(path.name for path in out.iterdir()) == ["libproduct.h", "libproduct.json", "libproduct.so"]
    assert namespace["names"] == ["df", "f", "f_grad_0_1", "f_vjp_0_1"]
    expected = gradir.compile("examples/product.mlir").df(namespace["a"], namespace["b"])
    for found, wanted in zip((namespace["ga"], namespace["gb"]), expected):
        assert found.tobytes() == wanted.tobytes()


def test_gpu_library_block_runs(monkeypatch):
    """"GPU libraries": a CUDA export loads without a driver; its call runs where one is and
    is the TargetError the comment shows where none is."""
    import gradir

    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("GRADIR_CUDA_DRIVER", "/nonexistent/libcuda.so.1")
    namespace: dict = {"gradir": gradir, "np": np}
    code = block("python", "GPU libraries: export for CUDA, and the device check")
    exec(compile(code, "README.md (GPU libraries)", "exec"), namespace)
    assert sorted(path.name for path in namespace["out"].iterdir()) == ["libproduct.h", "libproduct.json", "libproduct.so"]
    assert namespace["target"] == "cuda" and namespace["images"] in ("cubin+ptx", "ptx")
    assert namespace["ga"] is None
    assert namespace["why"].startswith("error: libproduct.so: no CUDA driver: /nonexistent/libcuda.so.1 could not be loaded (")
