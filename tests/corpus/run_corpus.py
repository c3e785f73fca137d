#!/usr/bin/env python3
"""Run gradir on the corpus of programs taken from other projects' AD test suites.

Every `programs/*.mlir` file holds one upstream program (adapted to MLIR 22, see
its header) and a gradir entry below the line `// ---- gradir entry ...`.  Its
header line

    // gradir-corpus: entry=<func> wrt=<i,j,...|all> [modes=vjp,jvp] [reference=<name>] [inputs=<name>] [rtol=<r>]

says what to check; `rtol` loosens the comparison with the reference (values and
gradients, default 1e-7 and 1e-6) where the header says why the reference cannot be the
program's own f64 arithmetic; `reference` names a PyTorch function and `inputs` an input
generator in `references.py` (default `pos`: floats in [0.25, 1.25)).
`inputs=recorded` reads the inputs from `<name>.npz` beside the program, and
`reference=jax` its results and `jax.grad` recorded there too (the programs
exported from JAX, written by `jax_programs.py`; no JAX needed to check them).

For each program, in a worker process (2 at a time by default):

1. `mlir22`: the upstream part (above the marker) must parse and verify with
   MLIR 22's own parser; otherwise the corpus file is broken (`invalid`).
2. `primal` (programs with a reference whose arguments and results are all
   tensors): the upstream part alone, run by MLIR 22 through gradir's CPU
   backend (no differentiation), must agree with the reference; this checks
   the reference against the program independently of gradir's AD. A
   disagreement is `invalid` (the corpus is wrong); a program the backend
   cannot run is only noted.
3. `opt`: `autodiff-opt FILE --pipeline grad` must exit 0.
4. `gradcheck`: `gradir.gradcheck` semantics (`autodiff-gradcheck FILE --entry E
   --wrt W` with this file's inputs): reverse and forward mode against central
   differences in f64.  The program is compiled once, by `gradir.compile(...,
   target="cpu")` inside the checker, at -O0 (`OPT_LEVEL`).
5. `reference`: the same f64 executable's results and vector-Jacobian products
   (random cotangents) against `torch.autograd` on the same inputs (against
   the recorded `jax.grad` for `reference=jax`).

`test_corpus.py` (CI) runs stage `primal` only where the later stages did not pass and stage
`opt` only on the sweeps' sample and where they did not pass (`check_program`; every stage with
`GRADIR_CORPUS_SWEEP=all`); this script runs every stage unless given `--ci-stages`.

Outcome per program: `pass`; `fail` (a stage raised; the first error line is
kept); `wrong` (a stage ran to the end and found a wrong value or gradient: the
worst outcome); `invalid` (the corpus file itself is wrong).

    python tests/corpus/run_corpus.py [NAME ...] [--jobs 2] [--json out.json] [--status-md tests/corpus/STATUS.md]
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import queue
import re
import select
import subprocess
import sys
import threading
import time
import zlib
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "programs"
MARKER = "// ---- gradir entry"
RESULT_PREFIX = "@@corpus-result "
TIMEOUT_S = float(os.environ.get("GRADIR_CORPUS_TIMEOUT", "300"))
JOBS = int(os.environ.get("GRADIR_CORPUS_JOBS", "2"))
SEED = 0

OPT_LEVEL = 0
"""LLVM's level for the compiled gradients checked here: -O0 took a quarter off the corpus's
compile time (LLVM's code generation was most of it: LeNet-5's 9.2 s of 12 at -O2, 2.2 s at
-O0), the derivatives checked being the same code. The default level's machine code is what
the numerics, example, README and benchmark tests run."""

REFERENCED_ENTRIES = 256
"""Entries of each argument checked by central differences in a program with a reference."""

# f64 comparisons of gradir against PyTorch (same inputs, different op order).
REF_RTOL, REF_ATOL = 1e-7, 1e-9
# the primal check runs the program in its own precision (often f32).
PRIMAL_RTOL = {"f64": 1e-9, "f32": 2e-5}


@dataclass(frozen=True)
class Program:
    name: str
    path: Path
    entry: str
    wrt: tuple[int, ...] | None
    modes: tuple[str, ...]
    reference: str | None
    inputs: str
    source: str
    rtol: float | None = None
    """The reference comparison's relative tolerance, where the header gives one."""


@dataclass
class Result:
    name: str
    status: str  # pass | fail | wrong | invalid
    stage: str = ""
    error: str = ""
    stages: dict = field(default_factory=dict)
    details: list = field(default_factory=list)
    features: list = field(default_factory=list)
    seconds: float = 0.0


# ---------------------------------------------------------------- discovery

_HEADER = re.compile(r"^// gradir-corpus:(.*)$", re.M)
_SOURCE = re.compile(r"^// Source: (\S+) ", re.M)


def load_program(path: Path) -> Program:
    text = path.read_text()
    found = _HEADER.search(text)
    if not found:
        raise ValueError(f"{path.name}: no '// gradir-corpus:' line")
    fields = dict(item.split("=", 1) for item in found.group(1).split())
    unknown = set(fields) - {"entry", "wrt", "modes", "reference", "inputs", "rtol"}
    if unknown or "entry" not in fields or "wrt" not in fields:
        raise ValueError(f"{path.name}: bad gradir-corpus line (unknown {sorted(unknown)} or no entry/wrt)")
    if MARKER not in text:
        raise ValueError(f"{path.name}: no '{MARKER}' marker line")
    wrt = None if fields["wrt"] == "all" else tuple(int(i) for i in fields["wrt"].split(","))
    source = _SOURCE.search(text)
    reference = fields.get("reference")
    return Program(
        name=path.stem,
        path=path,
        entry=fields["entry"],
        wrt=wrt,
        modes=tuple(fields.get("modes", "vjp,jvp").split(",")),
        reference=None if reference in (None, "none") else reference,
        inputs=fields.get("inputs", "pos"),
        source=source.group(1) if source else "?",
        rtol=float(fields["rtol"]) if "rtol" in fields else None,
    )


SWEEP_SHARE = 12
"""The checks that run corpus programs again in other forms (`test_corpus_vmap.py`,
`test_corpus_gpu.py`, `test_corpus_branches.py`, the JAX programs' freshness) take, in CI,
the programs a test names and about one in `SWEEP_SHARE` of the others (one in
`GPU_SWEEP_SHARE` for the GPU sweep), chosen by a hash of the name, so adding a program
changes no other's membership: the vmap sweep costs 2 s a program and the GPU sweep 9 s
(NVVM and the emulation's JIT), so every program of a corpus of 200 would be 40 minutes of
CI. `GRADIR_CORPUS_SWEEP=all` runs them on every program; the main
check (`test_corpus.py`) always does."""

GPU_SWEEP_SHARE = 36
"""A multiple of `SWEEP_SHARE`: the GPU sweep's programs are among the others'. A sixth took
5 of the 24 minutes a clean CI run took with 209 programs; every program is swept before a
release (`GRADIR_CORPUS_SWEEP=all`, README's figures). With the sweeps at LLVM -O0, the
slowest GPU programs left out, and a quarter instead of a third for the others, the test
command took 17 minutes on 2 cores instead of 21; with 268 programs it took 19 to 20, and a
sixth for the others (an eighteenth for the GPU, whose 40 programs took 125 s of one worker)
kept the 349 of 2026-11-29 under 20; an eighth (a twenty-fourth) with the 417 after them. A
twelfth (a thirty-sixth) from 425 programs, when CI's machine took 42 minutes (the vmap sweep
352 s of one worker, the GPU sweep 148 s)."""


def sweeps_everything() -> bool:
    """Whether the sweeps take every program (`GRADIR_CORPUS_SWEEP=all`)."""
    return os.environ.get("GRADIR_CORPUS_SWEEP") == "all"


def sweep_sample(programs: list[Program], named=frozenset(), share: int = SWEEP_SHARE) -> list[Program]:
    """`programs` a sweep takes: all with `GRADIR_CORPUS_SWEEP=all`, else those in `named`
    and those whose name hashes into one in `share`."""
    if sweeps_everything():
        return list(programs)
    return [p for p in programs if p.name in named or zlib.crc32(p.name.encode()) % share == 0]


def discover(names=None) -> list[Program]:
    programs = [load_program(p) for p in sorted(PROGRAMS.glob("*.mlir"))]
    if names:
        unknown = set(names) - {p.name for p in programs}
        if unknown:
            raise SystemExit(f"unknown corpus programs: {sorted(unknown)}")
        programs = [p for p in programs if p.name in names]
    return programs


# ---------------------------------------------------------------- the checks (worker side)


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return " ".join(line.split())
    return ""


_STOP_GRADIENT = re.compile(r'"autodiff\.stop_gradient"\((%[\w.]+)\) : \((tensor<[^>]*>)\) -> (tensor<[^>]*>)')
"""`from_jax` writes each `jax.lax.stop_gradient` as gradir's `autodiff.stop_gradient`
(StableHLO has none); for MLIR 22 alone it is the identity it computes."""


def _upstream_text(program: Program) -> str:
    """The upstream part, as MLIR 22 reads it (gradir's stop_gradient as a same-type cast)."""
    return _STOP_GRADIENT.sub(r"tensor.cast \1 : \2 to \3", program.path.read_text().split(MARKER)[0])


_TRIVIAL_OPS = {"func.func", "func.return", "arith.constant", "linalg.yield", "scf.yield", "tensor.yield",
                "affine.yield", "scf.condition", "tensor.empty", "builtin.module"}


def _walk(operation):
    for region in operation.regions:
        for block in region.blocks:
            for op in block.operations:
                yield op.operation
                yield from _walk(op.operation)


def _features(module, entry_inputs, entry_results) -> list[str]:
    """Op names of the upstream program plus a few structural facts that decide
    what gradir must support (machine-derived, for STATUS.md)."""
    from mlir import ir

    features = set()
    if any(shape is None and element in ("f16", "bf16", "f32", "f64") for shape, element in entry_inputs):
        features.add("signature: float scalar argument")
    if any(shape is None and element not in ("f16", "bf16", "f32", "f64") for shape, element in entry_inputs):
        features.add("signature: integer/index scalar argument")
    if any(shape is None for shape, _ in entry_results):
        features.add("signature: float scalar result")
    if any(shape is not None and element not in ("f16", "bf16", "f32", "f64") for shape, element in entry_inputs):
        features.add("signature: integer/index tensor argument")
    functions = 0
    for op in _walk(module.operation):
        name = op.name
        if name == "func.func":
            functions += 1
        if name not in _TRIVIAL_OPS:
            features.add(name)
        if name == "scf.for":
            bounds = list(op.operands)[:3]
            if any(isinstance(v.owner, ir.Block) or v.owner.name != "arith.constant" for v in bounds):
                features.add("scf.for: bounds not constant")
            carried = [str(r.type) for r in op.results]
            if any(t in ("f16", "bf16", "f32", "f64") for t in carried):
                features.add("scf.for: float scalar iter_args")
            if any(t == "index" or t.startswith("i") and "x" not in t for t in carried):
                features.add("scf.for: integer/index iter_args")
        if name == "scf.if" and any(str(r.type) in ("f32", "f64") for r in op.results):
            features.add("scf.if: float scalar results")
        if name == "linalg.generic":
            body = op.regions[0].blocks[0]
            inside = list(_walk(op))
            for inner in inside:
                for value in inner.operands:
                    owner = value.owner
                    outside = (owner != body) if isinstance(owner, ir.Block) else all(owner.operation != o for o in inside)
                    if outside and str(value.type) in ("f16", "bf16", "f32", "f64"):
                        features.add("linalg.generic: body captures a float scalar")
                if inner.name not in _TRIVIAL_OPS:
                    features.add(f"linalg.generic body: {inner.name}")
            for results in re.findall(r"-> \((.*?)\)>", str(op.attributes["indexing_maps"])):
                if any(not re.fullmatch(r"d\d+", r.strip()) for r in results.split(",") if r.strip()):
                    features.add("linalg.generic: indexing map not a projected permutation")
            if len(list(op.results)) > 1:
                features.add("linalg.generic: several results")
    if functions > 1:
        features.add("func.call between functions")
    return sorted(features)


def _mlir22_inspect(program: Program):
    """Parse the upstream part with MLIR 22; return the entry's (inputs, results)
    as [(shape, element)] (shape None for a non-tensor) and the program's features."""
    from mlir import ir

    context = ir.Context()
    context.allow_unregistered_dialects = False
    module = ir.Module.parse(_upstream_text(program), context)
    if not module.operation.verify():
        raise ValueError("module does not verify")

    def spec(t):
        if isinstance(t, ir.RankedTensorType):
            return tuple(t.shape), str(t.element_type)
        return None, str(t)

    for op in module.body.operations:
        if op.operation.name == "func.func" and op.attributes["sym_name"].value == program.entry:
            ftype = op.attributes["function_type"].value
            inputs, results = [spec(t) for t in ftype.inputs], [spec(t) for t in ftype.results]
            return inputs, results, _features(module, inputs, results)
    raise ValueError(f"no func.func @{program.entry}")


def make_inputs(program: Program, input_specs):
    import numpy as np

    import references

    if program.inputs == "recorded":
        recorded = np.load(recorded_path(program))
        arrays = [recorded[f"arg{i}"] for i in range(len(input_specs))]
        assert f"arg{len(input_specs)}" not in recorded, f"{program.name}: more recorded inputs than arguments"
        return arrays
    generator = references.INPUTS[program.inputs]
    specs = [(() if shape is None else shape, element) for shape, element in input_specs]
    arrays = generator(np.random.default_rng(SEED), specs)
    assert len(arrays) == len(specs), f"{program.inputs}: {len(arrays)} inputs for {len(specs)} arguments"
    return arrays


def recorded_path(program: Program) -> Path:
    """`<name>.npz` beside the program: recorded inputs (`arg<i>`) and, for
    `reference=jax`, JAX's results (`result<k>`) and `jax.grad` (`grad<i>`)."""
    return program.path.with_suffix(".npz")


def _recorded_reference(program: Program, inputs, wrt, cotangents=None):
    """Results and vjp from the recorded `jax.grad` of a scalar loss (float64):
    the vjp with cotangent c is c times the gradient. The inputs must be the
    recorded ones."""
    import numpy as np

    recorded = np.load(recorded_path(program))
    for i, array in enumerate(inputs):
        array = np.asarray(array)  # the primal stage passes f32 arguments in f32
        if not np.array_equal(recorded[f"arg{i}"].astype(array.dtype), array):
            raise ValueError(f"{program.name}: argument {i} is not the recorded input the reference was computed on")
    values = [recorded[f"result{k}"] for k in range(sum(key.startswith("result") for key in recorded))]
    if cotangents is None:
        return values, None
    if len(values) != 1 or np.shape(values[0]) != ():
        raise ValueError(f"{program.name}: a recorded jax.grad reference needs one 0-d result")
    return values, [float(cotangents[0]) * recorded[f"grad{i}"] for i in wrt]


def _torch_reference(program: Program, inputs, wrt, cotangents=None):
    """Reference results and, given cotangents, the vjp wrt `wrt` (float64)."""
    import numpy as np

    import references

    if program.reference == "jax":
        return _recorded_reference(program, inputs, wrt, cotangents)
    torch = references.torch
    if torch is None:
        raise RuntimeError("PyTorch is not installed: the reference checks need the `oracle` extra (pip install -e '.[oracle]')")
    function = references.REFERENCES[program.reference]
    args = []
    for index, array in enumerate(inputs):
        array = np.asarray(array)
        if array.dtype.kind == "f":
            args.append(torch.tensor(array, dtype=torch.float64, requires_grad=index in wrt))
        elif array.dtype == np.bool_:
            args.append(torch.tensor(array))
        else:
            args.append(torch.tensor(array.astype(np.int64)))
    outputs = function(*args)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    values = [o.detach().numpy() for o in outputs]
    if cotangents is None:
        return values, None
    # Integer results, and results that do not depend on the inputs (a constant), add nothing.
    differentiated = [(o, c) for o, c in zip(outputs, cotangents) if o.is_floating_point() and o.requires_grad]
    grads = torch.autograd.grad(
        [o for o, _ in differentiated], [args[i] for i in wrt],
        grad_outputs=[torch.tensor(c, dtype=torch.float64) for _, c in differentiated], allow_unused=True,
    ) if differentiated else [None] * len(wrt)  # fmt: skip
    grads = [np.zeros(args[i].shape) if g is None else g.numpy() for i, g in zip(wrt, grads)]
    return values, grads


def _mismatch(what: str, got, want, rtol: float, atol: float) -> str | None:
    import numpy as np

    got, want = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        return f"{what}: shape {got.shape}, reference {want.shape}"
    if got.size == 0:
        return None
    finite = np.abs(want[np.isfinite(want)])
    scale = max(1.0, float(finite.max())) if finite.size else 1.0  # an infinity must not scale the tolerance
    with np.errstate(invalid="ignore"):
        error = np.abs(got - want)
    # An infinite or NaN reference agrees only with the same value (a max from -inf over nothing).
    close = np.isfinite(want) & (error <= atol * scale + rtol * np.abs(np.where(np.isfinite(want), want, 0.0)))
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    bad = ~(close | same)
    if not bad.any():
        return None
    index = np.unravel_index(int(np.argmax(np.where(bad, error, -1))), got.shape)
    return (f"{what}: {int(bad.sum())} of {got.size} entries differ, worst at {list(map(int, index))}: "
            f"gradir {got[index]:.10g}, reference {want[index]:.10g}")  # fmt: skip


def _tensor_type(shape, element: str) -> str:
    """MLIR's spelling of a tensor type; a negative extent (MLIR's dynamic marker) is `?`."""
    return "tensor<" + "".join(f"{'?' if d < 0 else d}x" for d in shape) + element + ">"


def primal_module_text(program: Program, input_specs, result_specs) -> str:
    """The upstream part, every function made private, plus a public
    `@__corpus_primal` that takes and returns only tensors (0-d tensors for
    scalars, i64 for index) and calls the entry: what MLIR 22 runs in stage
    `primal`, untouched by gradir's passes."""
    from mlir import ir

    context = ir.Context()
    module = ir.Module.parse(_upstream_text(program), context)
    with context:
        for op in module.body.operations:
            if op.operation.name == "func.func" and len(op.regions[0].blocks) > 0:
                op.attributes["sym_visibility"] = ir.StringAttr.get("private")
    params, body, args, arg_types = [], [], [], []
    for i, (shape, element) in enumerate(input_specs):
        if shape is None and element == "index":
            params.append(f"%t{i}: tensor<i64>")
            body.append(f"%e{i} = tensor.extract %t{i}[] : tensor<i64>")
            body.append(f"%a{i} = arith.index_cast %e{i} : i64 to index")
            arg_types.append(element)
        elif shape is None:
            params.append(f"%t{i}: tensor<{element}>")
            body.append(f"%a{i} = tensor.extract %t{i}[] : tensor<{element}>")
            arg_types.append(element)
        elif element == "index":  # the runtime has no index arrays: pass i64, cast
            params.append(f"%t{i}: {_tensor_type(shape, 'i64')}")
            body.append(f"%a{i} = arith.index_cast %t{i} : {_tensor_type(shape, 'i64')} to {_tensor_type(shape, element)}")
            arg_types.append(_tensor_type(shape, element))
        else:
            params.append(f"%a{i}: {_tensor_type(shape, element)}")
            arg_types.append(_tensor_type(shape, element))
        args.append(f"%a{i}")
    result_types = [element if shape is None else _tensor_type(shape, element) for shape, element in result_specs]
    outs = []  # (defining line or None, value, type)
    for k, (shape, element) in enumerate(result_specs):
        if shape is None:
            outs.append((f"%o{k} = tensor.from_elements %r#{k} : tensor<{element}>", f"%o{k}", f"tensor<{element}>"))
        else:
            outs.append((None, f"%r#{k}", result_types[k]))
    n = len(result_specs)
    lines = [f"func.func @__corpus_primal({', '.join(params)}) -> ({', '.join(o[2] for o in outs)}) {{", *body]
    lines.append(f"%r:{n} = func.call @{program.entry}({', '.join(args)}) : ({', '.join(arg_types)}) -> ({', '.join(result_types)})")
    lines += [o[0] for o in outs if o[0]]
    lines.append(f"func.return {', '.join(o[1] for o in outs)} : {', '.join(o[2] for o in outs)}")
    lines.append("}")
    text = str(module).rstrip()
    assert text.endswith("}")
    return text[:-1] + "\n".join(lines) + "\n}\n"


def check_primal(program: Program, input_specs, result_specs, inputs, stages, details) -> str | None:
    """Stage `primal`: MLIR 22 runs the upstream program; compare with the reference.
    Returns an `invalid` message, or None."""
    import numpy as np

    if program.reference is None:
        stages["primal"] = "n/a (no reference)"
        return None
    import references

    if references.torch is None and program.reference != "jax":
        stages["primal"] = "n/a (PyTorch not installed)"
        return None
    from gradir.cpu_backend.cpu_runtime import CpuExecutable

    native = []
    for array, (_, element) in zip(inputs, input_specs):
        array = np.asarray(array)
        native.append(array.astype(np.float32) if element == "f32" else array)
    try:
        # -O0: this checks the corpus file, not gradir's code; it saved a tenth of the corpus
        # check.
        exe = CpuExecutable(primal_module_text(program, input_specs, result_specs), opt_level=0)
        got = exe.call("__corpus_primal", *native)
    except Exception as error:  # the backend cannot run it: nothing to compare
        stages["primal"] = f"n/a (MLIR 22 backend: {_first_line(str(error))[:160]})"
        return None
    want, _ = _torch_reference(program, native, ())
    rtol = max(PRIMAL_RTOL.get(element, 1e-9) for _, element in [*input_specs, *result_specs])
    for k, (g, w) in enumerate(zip(got, want)):
        problem = _mismatch(f"result {k} (MLIR 22 vs reference)", g, w, rtol, rtol)
        if problem:
            stages["primal"] = "mismatch"
            details.append(problem)
            return f"reference disagrees with MLIR 22 running the program: {problem}"
    stages["primal"] = "ok"
    return None


def opt_stage(program: Program, stages: dict) -> str | None:
    """`run_opt`, its outcome recorded in `stages`."""
    opt_error = run_opt(program)
    stages["opt"] = "ok" if opt_error is None else f"fail: {opt_error}"
    return opt_error


def run_opt(program: Program) -> str | None:
    """Stage `opt`: `autodiff-opt FILE --pipeline grad`; the first error line, or None."""
    from gradir.tools.autodiff_opt import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(program.path), "--pipeline", "grad"])
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
    if code == 0:
        return None
    return _first_line(err.getvalue()).replace(str(program.path), program.path.name) or f"exit status {code}"


_QUOTED_PREDICATE = re.compile(r'(arith\.cmp[fi]) "(\w+)"')
_UNPARENTHESISED = re.compile(r"->\s*([^\s({][^{]*?)\s*\{\s*$")
_SPARSE_SPLAT = re.compile(r"sparse<(\[\[[^>]*?\]\]), ([-+0-9.eE]+)> : tensor<([0-9x]+)x(f\d+)>")


def _dense_from_sparse(match) -> str:
    import numpy as np

    indices = json.loads(match.group(1))
    shape = tuple(int(d) for d in match.group(3).split("x"))
    dense = np.zeros(shape)
    for index in indices:
        dense[tuple(index)] = float(match.group(2))
    return f"dense<{json.dumps(dense.tolist())}> : tensor<{match.group(3)}x{match.group(4)}>"


def normalise_syntax(text: str) -> str:
    """The same program in the spellings gradir's parser knows (for the `probe`
    only; corpus files stay as upstream wrote them): quoted `arith.cmpf "olt"`
    predicates unquoted, unparenthesised `scf.for/scf.if ... -> T {` result
    types parenthesised, a `sparse<...>` splat constant written dense."""
    text = _QUOTED_PREDICATE.sub(r"\1 \2", text)
    lines = []
    for line in text.split("\n"):
        if "scf.for" in line or "scf.if" in line or "iter_args(" in line:
            line = _UNPARENTHESISED.sub(r"-> (\1) {", line)
        lines.append(line)
    return _SPARSE_SPLAT.sub(_dense_from_sparse, "\n".join(lines))


def probe_normalised(program: Program, inputs) -> str | None:
    """Stage `probe` (informational): if `normalise_syntax` changes the file, run
    opt, gradcheck and the reference on the normalised copy; say what happens
    next once the parser accepts the upstream spelling."""
    import tempfile

    text = program.path.read_text()
    normalised = normalise_syntax(text)
    if normalised == text:
        return None
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / program.path.name
        path.write_text(normalised)
        copy = Program(**{**asdict_program(program), "path": path})
        outcome = check_compiled(copy, inputs)
    status, stage, error = outcome
    return "would pass" if status == "pass" else f"{'WRONG' if status == 'wrong' else 'fail'} at {stage}: {error}"


def asdict_program(program: Program) -> dict:
    return {f: getattr(program, f) for f in Program.__dataclass_fields__}


def check_program(program: Program, every_stage: bool = True) -> Result:
    """All stages (`every_stage`), or CI's share of them: stage `primal` only where the
    compiled stages did not pass (it decides whether a disagreement is the corpus file's fault;
    where gradir agrees with the reference there is nothing to decide), stage `opt` only for
    `sweep_sample`'s programs and where the compiled stages did not pass (the same passes as
    the gradcheck's compile, through the CLI). Each was a ninth of the corpus's time."""
    start = time.monotonic()
    result = Result(program.name, "pass")
    stages, details = result.stages, result.details
    try:
        input_specs, result_specs, result.features = _mlir22_inspect(program)
    except Exception as error:
        stages["mlir22"] = "fail"
        result.status, result.stage, result.error = "invalid", "mlir22", _first_line(str(error))
        return result
    stages["mlir22"] = "ok"
    inputs = make_inputs(program, input_specs)

    with_opt = every_stage or bool(sweep_sample([program]))
    result.status, result.stage, result.error = check_compiled(program, inputs, stages, details, with_opt)
    if result.status != "pass" and not with_opt:
        opt_error = opt_stage(program, stages)
        if opt_error and result.status == "fail":  # as `check_compiled` reports it: opt first
            result.stage, result.error = "opt", opt_error
    if every_stage or result.status != "pass":
        invalid = check_primal(program, input_specs, result_specs, inputs, stages, details)
        if invalid:
            result.status, result.stage, result.error = "invalid", "primal", invalid
    else:
        stages["primal"] = "skipped (gradir agrees with the reference)" if program.reference else "n/a (no reference)"
    if result.status not in ("pass", "invalid"):
        probe = probe_normalised(program, inputs)
        if probe:
            stages["probe"] = probe
    result.seconds = time.monotonic() - start
    return result


def check_compiled(program: Program, inputs, stages=None, details=None, with_opt: bool = True) -> tuple[str, str, str]:
    """Stages `opt` (`with_opt`), `gradcheck` and `reference`: (status, stage, first error line)."""
    stages = {} if stages is None else stages
    details = [] if details is None else details
    failures: list[tuple[str, str]] = []  # (stage, first line): a stage raised
    wrong: list[tuple[str, str]] = []  # (stage, first line): a stage found wrong numbers

    if with_opt:
        opt_error = opt_stage(program, stages)
        if opt_error:
            failures.append(("opt", opt_error))

    from gradir.tools.cli import one_line_message
    from gradir.gradient_check import MAX_CHECKED_ENTRIES, GradChecker

    checker = None
    try:
        checker = GradChecker(str(program.path), [(program.entry, program.wrt)], opt_level=OPT_LEVEL)
        # An argument may have no derivative at these inputs (the smaller of a max, the branch
        # not taken); the program as a whole must still be exercised (below).
        # With a reference, stage `reference` compares every entry of the vjp with PyTorch's
        # or JAX's; central differences then check a sample (LeNet-5's 11,800 weights took 13 s).
        max_entries = REFERENCED_ENTRIES if program.reference is not None else MAX_CHECKED_ENTRIES
        report = checker.check(
            program.entry, inputs, modes=program.modes, seed=SEED, allow_vacuous=True, max_entries=max_entries
        )
    except Exception as error:
        message = one_line_message(error).replace(str(program.path), program.path.name)
        stages["gradcheck"] = f"fail: {message}"
        failures.append(("gradcheck", message))
    else:
        bad = [check for check in report.checks if not check.ok]
        for mode in program.modes:
            checks = [check for check in report.checks if check.mode == mode]
            if checks and all(check.vacuous for check in checks) and not bad:
                bad = checks[:1]  # every check compares zeros: the inputs exercise nothing
        stages["gradcheck"] = "ok" if not bad else "mismatch"
        details.extend(check.describe() for check in report.checks)
        if bad:
            wrong.append(("gradcheck", bad[0].describe()))

    if program.reference is None:
        stages["reference"] = "n/a"
    elif checker is None:
        stages["reference"] = "skipped (not compiled)"
    else:
        try:
            problems = compare_with_reference(program, checker, inputs)
        except Exception as error:
            stages["reference"] = f"fail: {one_line_message(error)}"
            failures.append(("reference", one_line_message(error)))
        else:
            stages["reference"] = "ok" if not problems else "mismatch"
            details.extend(problems)
            if problems:
                wrong.append(("reference", problems[0]))

    if wrong:
        return ("wrong", *wrong[0])
    if failures:
        return ("fail", *failures[0])
    return ("pass", "", "")


def compare_with_reference(program: Program, checker, inputs) -> list[str]:
    """Stage `reference`: gradir's f64 results and vjp against torch.autograd."""
    import numpy as np

    exe = checker.executable
    entry = program.entry
    wrt = checker.wrt[entry]
    arguments = [np.asarray(a, dtype=np.float64) if np.asarray(a).dtype.kind == "f" else np.asarray(a) for a in inputs]
    outputs = exe.call(entry, *arguments)
    rng = np.random.default_rng(SEED + 7)
    cotangents = [  # an integer result's cotangent is ignored by the vjp
        rng.standard_normal(np.shape(o)) if np.asarray(o).dtype.kind == "f" else np.ones_like(o) for o in outputs
    ]
    want_values, want_grads = _torch_reference(program, arguments, wrt, cotangents)
    problems = []
    for k, (got, want) in enumerate(zip(outputs, want_values)):
        problem = _mismatch(f"result {k}", got, want, program.rtol or REF_RTOL, REF_ATOL)
        if problem:
            problems.append("value " + problem)
    if "vjp" in program.modes:
        grads = exe.call(f"__gradcheck_vjp_{entry}", *arguments, *cotangents)[len(outputs):]
        for index, got, want in zip(wrt, grads, want_grads):
            oracle = "jax.grad" if program.reference == "jax" else "torch.autograd"
            problem = _mismatch(f"vjp wrt argument {index} vs {oracle}", got, want, program.rtol or 1e-6, 1e-8)
            if problem:
                problems.append(problem)
    return problems


def worker_main(every_stage: bool) -> int:
    """Read program paths on stdin, write one result line per program on stdout."""
    sys.path.insert(0, str(HERE))
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    for line in sys.stdin:
        path = Path(line.strip())
        if not line.strip():
            continue
        try:
            result = check_program(load_program(path), every_stage)
        except Exception as error:  # a bug in the runner itself: report, keep going
            result = Result(path.stem, "fail", "runner", f"runner error ({type(error).__name__}): {error}")
        sys.stdout.write("\n" + RESULT_PREFIX + json.dumps(asdict(result)) + "\n")
        sys.stdout.flush()
    return 0


# ---------------------------------------------------------------- the driver (parent side)


class _Worker:
    def __init__(self, every_stage: bool):
        env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONUNBUFFERED="1")
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker", *(["--every-stage"] if every_stage else [])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, bufsize=1, env=env, start_new_session=True,
        )  # fmt: skip
        self.buffer = ""

    def run(self, program: Program, timeout: float) -> Result:
        start = time.monotonic()
        try:
            self.process.stdin.write(str(program.path) + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            return self._died(program, start)
        fd = self.process.stdout.fileno()
        while True:
            while "\n" in self.buffer:
                line, self.buffer = self.buffer.split("\n", 1)
                if line.startswith(RESULT_PREFIX):
                    return Result(**json.loads(line[len(RESULT_PREFIX):]))
            left = timeout - (time.monotonic() - start)
            if left <= 0:
                self.kill()
                return Result(program.name, "fail", "timeout", f"no result after {timeout:.0f} s",
                              seconds=time.monotonic() - start)  # fmt: skip
            ready, _, _ = select.select([fd], [], [], min(left, 5.0))
            if ready:
                chunk = os.read(fd, 1 << 16).decode(errors="replace")
                if not chunk:
                    return self._died(program, start)
                self.buffer += chunk

    def _died(self, program: Program, start: float) -> Result:
        code = self.process.wait()
        how = f"signal {-code}" if code < 0 else f"exit status {code}"
        return Result(program.name, "fail", "crash", f"worker process died ({how})",
                      seconds=time.monotonic() - start)  # fmt: skip

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self):
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, 9)
            except ProcessLookupError:
                pass
            self.process.wait()

    def close(self):
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


def run_all(
    programs=None, jobs: int = JOBS, timeout: float = TIMEOUT_S, progress=None, every_stage: bool = True
) -> dict[str, Result]:
    """Check every program (or `programs`) with `jobs` worker processes; name -> Result
    (`every_stage`: see `check_program`)."""
    programs = discover() if programs is None else programs
    todo: queue.Queue = queue.Queue()
    # Longest first (by file size, a fair proxy), so the two workers finish together.
    for program in sorted(programs, key=lambda p: -p.path.stat().st_size):
        todo.put(program)
    results: dict[str, Result] = {}
    lock = threading.Lock()

    def work():
        worker = None
        try:
            while True:
                try:
                    program = todo.get_nowait()
                except queue.Empty:
                    return
                if worker is None or not worker.alive():
                    worker = _Worker(every_stage)
                result = worker.run(program, timeout)
                with lock:
                    results[program.name] = result
                    if progress:
                        progress(result)
        finally:
            if worker is not None:
                worker.close()

    threads = [threading.Thread(target=work, daemon=True) for _ in range(max(1, jobs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {p.name: results[p.name] for p in programs}


# ---------------------------------------------------------------- reporting


def _expected_table():
    sys.path.insert(0, str(HERE))
    from test_corpus import CATEGORIES, EXPECTED

    return EXPECTED, CATEGORIES


def _short_source(source: str) -> str:
    return {"pengmai/lagrad": "LAGrad", "EnzymeAD/Enzyme": "Enzyme-MLIR", "llvm/llvm-project": "MLIR",
            "plaidml/mlir-generator": "torch-mlir", "iree-org/iree": "IREE"}.get(source, source)  # fmt: skip


OTHER_FINDINGS = [
    "`gradir.gradcheck` / `autodiff-gradcheck` promote the program to f64 by rewriting every f32 type, "
    "which turns `arith.truncf %cst : f64 to f32` into the invalid `truncf f64 to f64` "
    "(`mlir-parse: 'arith.truncf' op operand type 'f64' and result type 'f64' are cast incompatible`, "
    "reproduced on a 10-line program); torchmlir_mlp_log_softmax, torchmlir_resnet_stem and "
    "torchmlir_resnet_block contain such a truncf and will meet it once their first blocker is fixed.",
    "Errors found while gradchecking are located in `<string>` (the promoted text) instead of the user's file, "
    "e.g. `<string>:4:5: error: differentiation of 'linalg.generic': ...` for lagrad_cross_product "
    "(the `opt` stage of the same file says `lagrad_cross_product.mlir:8:3`).",
]


def _cell(text: str, limit: int = 200) -> str:
    text = text.replace("|", "\\|")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def status_markdown(results: dict[str, Result], programs: list[Program]) -> str:
    expected, categories = _expected_table()
    by_name = {p.name: p for p in programs}
    counts = {s: sum(r.status == s for r in results.values()) for s in ("pass", "fail", "wrong", "invalid")}
    sources: dict[str, int] = {}
    for p in programs:
        sources[_short_source(p.source)] = sources.get(_short_source(p.source), 0) + 1
    groups: dict[str, list[Result]] = {}
    for name, result in results.items():
        if result.status == "pass":
            key = "pass"
        elif result.status in ("wrong", "invalid"):
            key = result.status.upper()
        else:
            key = expected.get(name, ("UNLISTED",))[0]
        groups.setdefault(key, []).append(result)
    special = {
        "pass": "passes: gradcheck (vjp and jvp vs central differences, f64) and the reference (PyTorch; `jax.grad` for the JAX exports)",
        "WRONG": "WRONG: the pipeline succeeded and the numbers are wrong",
        "INVALID": "the corpus file itself is wrong",
        "UNLISTED": "failing, not listed in EXPECTED",
    }
    order = ["WRONG", "INVALID", "UNLISTED"]
    order += sorted((c for c in categories if c in groups), key=lambda c: -len(groups[c])) + ["pass"]
    source_counts = ", ".join(f"{s} {n}" for s, n in sorted(sources.items(), key=lambda kv: -kv[1]))
    lines = [
        "# Corpus status",
        "",
        "Generated by `python tests/corpus/run_corpus.py --status-md tests/corpus/STATUS.md` (the",
        "runner and its stages are described at the top of `run_corpus.py`). Causes are the",
        "categories of `EXPECTED` in `test_corpus.py`. *First error* is the first line gradir",
        "printed (stage `opt` = `autodiff-opt FILE --pipeline grad`). *Notes* give the",
        "`EXPECTED` reason and, after a parse error, the `probe` stage: the same file with quoted",
        "predicates unquoted, single result types parenthesised and the sparse constant written",
        "dense, run again (opt, gradcheck, reference), which shows the blocker behind the parse error.",
        "",
        f"**{len(programs)} programs** ({source_counts}): "
        f"**pass {counts['pass']}, fail {counts['fail']}, wrong {counts['wrong']}**"
        + (f", invalid {counts['invalid']}" if counts["invalid"] else "") + ".",
        "",
        "| cause | programs | what |",
        "| --- | --- | --- |",
    ]
    for key in order:
        if key in groups:
            lines.append(f"| `{key}` | {len(groups[key])} | {_cell(special.get(key) or categories[key], 400)} |")
    for key in order:
        if key not in groups:
            continue
        lines += ["", f"## `{key}` ({len(groups[key])})", "", special.get(key) or categories[key], ""]
        lines += ["| program | source | status | first error line | notes |", "| --- | --- | --- | --- | --- |"]
        for result in sorted(groups[key], key=lambda r: r.name):
            if result.status == "pass":
                notes = ", ".join(f"{s} {v}" for s, v in result.stages.items() if s in ("gradcheck", "reference"))
            else:
                notes = expected.get(result.name, ("", ""))[1]
                if result.stages.get("probe"):
                    notes += f" -- probe (normalised syntax): {result.stages['probe']}"
            lines.append(
                f"| {result.name} | {_short_source(by_name[result.name].source)} | {result.status} "
                f"| {_cell(result.error) or '-'} | {_cell(notes, 400)} |"
            )
    # What the programs contain, and how many of those pass: the issues that unblock most.
    features: dict[str, list[str]] = {}
    for name, result in results.items():
        for feature in result.features:
            features.setdefault(feature, []).append(name)
    lines += [
        "",
        "## Constructs in the corpus",
        "",
        "Machine-derived from MLIR 22's parse of each upstream program (op names, generic body ops, and",
        "structural facts): how many programs contain each, and how many of those pass today.",
        "",
        "| construct | programs | pass |",
        "| --- | --- | --- |",
    ]
    for feature, names in sorted(features.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        passing = sum(results[n].status == "pass" for n in names)
        lines.append(f"| `{feature}` | {len(names)} | {passing} |")
    lines += ["", "## Other findings", ""] + [f"- {finding}" for finding in OTHER_FINDINGS]
    primal = [(name, r.stages.get("primal", "")) for name, r in results.items()]
    checked = sorted(name for name, s in primal if s == "ok")
    unchecked = sorted(f"{name} ({s})" for name, s in primal if s != "ok")
    lines += [
        "",
        "## References checked against MLIR 22",
        "",
        f"The reference (PyTorch, or JAX's recorded value) of {len(checked)} of {len(results)} programs agrees with MLIR 22 running the "
        "upstream program itself (stage `primal`: gradir's CPU backend on the unmodified program with a "
        "tensor-only wrapper, no differentiation).",
    ]
    if unchecked:
        lines += ["", "Not checked: " + "; ".join(unchecked) + "."]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="programs to run (default: all)")
    parser.add_argument("--jobs", type=int, default=JOBS)
    parser.add_argument("--timeout", type=float, default=TIMEOUT_S)
    parser.add_argument("--json", help="write the results as JSON")
    parser.add_argument("--status-md", help="write the STATUS.md table")
    parser.add_argument("--details", action="store_true", help="print every check line")
    parser.add_argument(
        "--ci-stages", action="store_true",
        help="the stages CI runs (see check_program): stage primal only where the others did not pass, "
        "stage opt only on the sweeps' sample (default: every stage, as STATUS.md needs)",
    )  # fmt: skip
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--every-stage", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.status_md and args.ci_stages:
        parser.error("--status-md needs every stage (STATUS.md counts the references stage primal checked)")
    if args.worker:
        return worker_main(args.every_stage)
    programs = discover(args.names)
    start = time.monotonic()

    def progress(result: Result):
        print(f"{result.status:7} {result.name:42} {result.seconds:6.1f}s  {result.stage:9} {result.error[:150]}",
              flush=True)  # fmt: skip
        if args.details:
            for line in result.details:
                print("        " + line)

    results = run_all(programs, args.jobs, args.timeout, progress, every_stage=not args.ci_stages)
    counts = {s: sum(r.status == s for r in results.values()) for s in ("pass", "fail", "wrong", "invalid")}
    print(f"{len(results)} programs in {time.monotonic() - start:.0f} s: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    if args.json:
        Path(args.json).write_text(json.dumps({k: asdict(v) for k, v in results.items()}, indent=1))
    if args.status_md:
        Path(args.status_md).write_text(status_markdown(results, programs))
    return 0 if counts["wrong"] == 0 and counts["invalid"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
