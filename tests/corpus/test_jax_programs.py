"""The JAX corpus programs (`jax_programs.py`) are what `gradir.from_jax` and
`jax.grad` give today: regenerating them changes nothing. Skipped without JAX,
or with another JAX than the one they were exported with (the text may differ)."""
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import jax_programs  # noqa: E402
import run_corpus  # noqa: E402

EXPORTED_WITH = "0.10.2"


def test_every_jax_program_is_in_the_corpus():
    names = {program.name for program in run_corpus.discover()}
    for spec in jax_programs.SPECS:
        assert f"jax_{spec.name}" in names
        assert jax_programs.reference_path(spec).exists()


def test_committed_jax_programs_and_references_are_fresh():
    from importlib.metadata import PackageNotFoundError, version

    try:
        installed = version("jax")
    except PackageNotFoundError:
        pytest.skip("JAX is not installed (pip install -e '.[jax]')")
    if installed != EXPORTED_WITH:
        pytest.skip(f"the JAX programs were exported with JAX {EXPORTED_WITH}, this is {installed}")
    # In a child process: the export runs JAX, whose threads should not live on in this one
    # (later tests fork their workers).
    # The six first programs and a share of the others (`run_corpus.sweep_sample`): each is
    # exported and its JAX reference computed again, 2-3 s a program.
    named = {f"jax_{spec.name}" for spec in jax_programs.SPECS[:6]}
    sample = {program.name for program in run_corpus.sweep_sample(run_corpus.discover(), named)}
    names = [spec.name for spec in jax_programs.SPECS if f"jax_{spec.name}" in sample]
    done = subprocess.run(
        [sys.executable, str(HERE / "jax_programs.py"), "--check", *names], capture_output=True, text=True
    )
    assert done.returncode == 0, f"rerun: python tests/corpus/jax_programs.py\n{done.stderr}"


NOT_EXPORTED_PROBE = """
import sys
sys.path.insert(0, {here!r})
import jax_programs
from gradir.errors import GradirError
from gradir.jax_export import from_jax

for spec in jax_programs.NOT_EXPORTED:
    try:
        from_jax(spec.function, *jax_programs._example_args(spec), name=spec.function_name)
    except GradirError as error:
        print(spec.name, "refused:", str(error).splitlines()[0])
    else:
        print(spec.name, "exports")
"""


def test_the_programs_listed_as_not_exported_still_do_not_export():
    """`NOT_EXPORTED` waits for `from_jax` to take its programs; the day one exports, this turns
    red so that it moves into `SPECS` and the corpus (four of them exported for a week unnoticed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        version("jax")
    except PackageNotFoundError:
        pytest.skip("JAX is not installed (pip install -e '.[jax]')")
    done = subprocess.run(
        [sys.executable, "-c", NOT_EXPORTED_PROBE.format(here=str(HERE))], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(jax_programs.NOT_EXPORTED), done.stdout
    exported = [line for line in lines if not line.split(" ", 1)[1].startswith("refused:")]
    assert not exported, f"move these into jax_programs.SPECS and regenerate: {exported}"
