"""The persistent compilation cache (`gradir.compilation_cache`): a second process finds the
machine code on disk and compiles nothing; broken entries are compiled again; it can be off.

tests/conftest.py turns the cache off for the suite; these tests turn it on, each in a
temporary directory of its own."""
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import gradir
from child_process import run_python
from gradir import compilation_cache

ROOT = pathlib.Path(__file__).resolve().parents[2]
MLP = ROOT / "examples" / "mlp.mlir"

PROGRAM = """\
func.func @f(%x: tensor<4xf64>, %i: index) -> f64 {
  %v = tensor.extract %x[%i] : tensor<4xf64>
  %w = arith.mulf %v, %v : f64
  return %w : f64
}
"""

CHILD = """
import json, sys
import numpy as np
import gradir
with gradir.timing() as report:
    exe = gradir.compile({source!r})
rng = np.random.default_rng(0)
arguments = [rng.standard_normal(s.shape).astype(s.dtype) for s in exe.signatures["mlp_grad"].arguments]
results = exe.mlp_grad(*arguments)
np.savez({output!r}, *results)
print(json.dumps({{
    "from_disk": exe.from_disk,
    "stages": [stage.name for stage in report.stages()],
    "loaded": sorted({{m.split(".")[0] for m in sys.modules if m.split(".")[0] in ("xdsl", "mlir")}}),
}}))
"""


@pytest.fixture
def cache(tmp_path, monkeypatch) -> pathlib.Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv("GRADIR_CACHE", "1")
    monkeypatch.setenv("GRADIR_CACHE_DIR", str(directory))
    return directory


def _entries(directory: pathlib.Path) -> list[pathlib.Path]:
    return sorted(directory.glob("*/*/lib.so"))


def _child(tmp_path, output: str) -> dict:
    import json

    return json.loads(run_python(CHILD.format(source=str(MLP), output=str(tmp_path / output)), tmp_path))


def test_a_second_process_loads_the_machine_code_and_compiles_nothing(tmp_path, cache):
    first = _child(tmp_path, "first.npz")
    assert first["from_disk"] is False
    assert {"autodiff-reverse", "cpu-jit", "cache-store"} <= set(first["stages"])
    assert len(_entries(cache)) == 1
    second = _child(tmp_path, "second.npz")
    assert second == {"from_disk": True, "stages": ["cache-lookup", "cache-load"], "loaded": []}
    one, two = np.load(tmp_path / "first.npz"), np.load(tmp_path / "second.npz")
    assert len(one.files) == 6
    for name in one.files:
        assert one[name].tobytes() == two[name].tobytes()


def test_options_and_text_are_part_of_the_key(cache):
    assert gradir.compile(PROGRAM).from_disk is False
    assert gradir.compile(PROGRAM).from_disk is True
    assert gradir.compile(PROGRAM, opt_level=1).from_disk is False
    assert gradir.compile(PROGRAM + "\n// another text\n").from_disk is False
    assert len(_entries(cache)) == 3
    exe = gradir.compile(PROGRAM, opt_level=1)
    assert exe.from_disk and exe.compile_seconds == 0.0
    assert exe.f(np.arange(4.0), 3) == 9.0
    with pytest.raises(gradir.RunTimeCheckError, match=r"@f: an index out of bounds"):
        exe.f(np.arange(4.0), 4)
    with pytest.raises(gradir.ArgumentError, match="argument 0 has shape"):
        exe.f(np.arange(3.0), 1)
    with pytest.raises(gradir.PipelineError, match="came from the compilation cache"):
        exe.llvm_text


@pytest.mark.parametrize("damage", ["truncate library", "garbage manifest", "empty manifest", "no library"])
def test_a_broken_entry_is_compiled_again(cache, damage):
    assert gradir.compile(PROGRAM).from_disk is False
    [library] = _entries(cache)
    manifest = library.with_suffix(".json")
    if damage == "truncate library":
        library.write_bytes(library.read_bytes()[:1000])
    elif damage == "garbage manifest":
        manifest.write_bytes(os.urandom(300))
    elif damage == "empty manifest":
        manifest.write_text("")
    else:
        library.unlink()
    exe = gradir.compile(PROGRAM)
    assert exe.from_disk is False
    assert exe.f(np.arange(4.0), 2) == 4.0
    repaired = gradir.compile(PROGRAM)
    assert repaired.from_disk is True and repaired.f(np.arange(4.0), 2) == 4.0


def test_the_cache_can_be_turned_off(cache, monkeypatch):
    monkeypatch.setenv("GRADIR_CACHE", "0")
    assert gradir.compile(PROGRAM).from_disk is False
    with gradir.timing() as report:
        assert gradir.compile(PROGRAM).from_disk is False
    assert not cache.exists()
    names = [stage.name for stage in report.stages()]
    assert "cpu-jit" not in names  # this process's in-memory cache: nothing compiled again
    assert not any(name.startswith("cache-") for name in names)


def test_the_default_directory_follows_xdg(monkeypatch, tmp_path):
    monkeypatch.setenv("GRADIR_CACHE", "1")
    monkeypatch.delenv("GRADIR_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert compilation_cache.cache_directory() == tmp_path / "gradir"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert compilation_cache.cache_directory() == tmp_path / "home" / ".cache" / "gradir"


def test_the_suite_runs_with_the_cache_off():
    assert os.environ["GRADIR_CACHE"] == "0"
    assert compilation_cache.cache_directory() is None


def test_processes_compiling_at_once_share_one_entry(tmp_path, cache):
    source = tmp_path / "program.mlir"
    source.write_text(PROGRAM)
    script = textwrap.dedent(f"""
        import numpy as np, gradir
        exe = gradir.compile({str(source)!r})
        print(exe.from_disk, exe.f(np.arange(4.0), 3))
    """)
    children = [
        subprocess.Popen([sys.executable, "-c", script], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    outputs = [child.communicate(timeout=300) for child in children]
    assert [child.returncode for child in children] == [0, 0, 0], [err for _, err in outputs]
    assert all(out.split()[1] == "9.0" for out, _ in outputs)
    assert len(_entries(cache)) == 1
    assert [path.name for path in cache.glob("*/.*")] == []  # no staging directory left


def test_an_edited_source_file_changes_the_key(tmp_path, monkeypatch):
    package = tmp_path / "edited_package"
    (package / "rules").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "rules" / "table.yaml").write_text("a: 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(compilation_cache, "CODE_PACKAGES", ("edited_package",))
    fingerprints = []
    for text in ("a: 1\n", "a: 2\n", "a: 2\n"):
        (package / "rules" / "table.yaml").write_text(text)
        os.utime(package / "rules" / "table.yaml", ns=(len(fingerprints), 10**18 + 10**9 * min(len(fingerprints), 1)))
        compilation_cache.code_fingerprint.cache_clear()
        fingerprints.append(compilation_cache.code_fingerprint())
    compilation_cache.code_fingerprint.cache_clear()
    assert fingerprints[0] != fingerprints[1] == fingerprints[2]


def test_the_versions_in_the_key_are_the_installed_ones():
    import importlib.metadata

    assert compilation_cache.installed_versions() == {
        name: importlib.metadata.version(name) for name in compilation_cache.DISTRIBUTIONS
    }


SINE = """
func.func @f(%x: f64) -> f64 {
  %s = math.sin %x : f64
  return %s : f64
}
func.func @df(%x: f64) -> f64 {
  %g = autodiff.grad @f(%x) {wrt = array<i64: 0>} : (f64) -> f64
  return %g : f64
}
"""

CUSTOM_RULE_CHILD = """
import json, sys
import gradir
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr

def twice(builder, op, grads):  # a rule unlike math.sin's own: d sin(x) = 2 g
    two = builder.insert(arith.ConstantOp(FloatAttr(2.0, op.operands[0].type))).result
    return [builder.insert(arith.MulfOp(grads[0], two)).result]

values = {{"before": float(gradir.compile({source!r}).df(0.5))}}
if {register!r}:
    gradir.register_vjp("math.sin", twice)
    values["after"] = float(gradir.compile({source!r}).df(0.5))
print(json.dumps(values))
"""


def test_a_custom_rule_turns_the_cache_off_for_its_process(tmp_path, cache):
    """The key cannot fingerprint a Python rule: an entry compiled with a custom rule served to a
    process without it (or compiled before the rule, served after it) gave the other
    derivative, with no error. A process that registers one compiles without the cache."""
    import json

    def child(register: bool) -> dict:
        return json.loads(run_python(CUSTOM_RULE_CHILD.format(source=SINE, register=register), tmp_path))

    cos = float(np.cos(0.5))
    first = child(register=True)  # cached before the rule; compiled again after it
    assert first["before"] == pytest.approx(cos) and first["after"] == 2.0
    stored = _entries(cache)
    assert len(stored) == 1  # the compile before the registration only
    assert child(register=False)["before"] == pytest.approx(cos)  # not the rule's 2.0
    assert _entries(cache) == stored
