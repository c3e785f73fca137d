#!/usr/bin/env python3
"""The corpus programs exported from JAX, and their `jax.grad` references.

Each program below is ordinary JAX. `gradir.from_jax` exports it (f32, the
example shapes below) to `programs/jax_<name>.mlir`: `jax.jit(f).lower(...)`,
jaxlib's `stablehlo-legalize-to-linalg`, MLIR 22 normalisation (see
`gradir/jax_export.py`). Its inputs (float64) and JAX's own results and
gradients, computed with `jax_enable_x64` by `jax.value_and_grad`, are recorded
in `programs/jax_<name>.npz`; the corpus runner reads them (`inputs=recorded
reference=jax`), so running the corpus needs no JAX.

    python tests/corpus/jax_programs.py            # (re)write every jax_* program and reference
    python tests/corpus/jax_programs.py mlp        # one of them
    python tests/corpus/jax_programs.py --check    # compare the files with a fresh export (exit 1 if stale)

Needs `pip install -e '.[jax]'` (jax==0.10.2).
"""
from __future__ import annotations

import argparse
import inspect
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
PROGRAMS_DIR = HERE / "programs"
SEED = 0

try:
    import jax
    import jax.numpy as jnp
    from jax import lax
except ImportError:  # the module still lists the programs (tests read SPECS)
    jax = jnp = lax = None


# ---------------------------------------------------------------- the JAX programs


def mlp_loss(w1, b1, w2, b2, x, y):
    h = jnp.tanh(x @ w1 + b1)
    out = h @ w2 + b2
    return jnp.mean((out - y) ** 2)


def layer_norm_loss(x, gamma, beta):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.var(x, axis=-1, keepdims=True)
    y = (x - mean) * lax.rsqrt(var + 1e-5) * gamma + beta
    return jnp.sum(jnp.tanh(y))


def attention_loss(x, wq, wk, wv):
    q, k, v = x @ wq, x @ wk, x @ wv
    scores = q @ k.T / jnp.sqrt(jnp.asarray(q.shape[-1], x.dtype))
    out = jax.nn.softmax(scores, axis=-1) @ v
    return jnp.sum(out**2)


def logsumexp_loss(x):
    return jnp.sum(jax.nn.logsumexp(x, axis=-1))


def cross_entropy_loss(w, b, x, labels):
    logits = x @ w + b
    log_probs = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.mean(jnp.take_along_axis(log_probs, labels[:, None], axis=-1))


def rnn_loss(w, u, b, h0, xs):
    def step(h, x):
        h = jnp.tanh(h @ w + x @ u + b)
        return h, h

    _, hs = lax.scan(step, h0, xs)
    return jnp.sum(hs**2)


# ---------------------------------------------------------------- what is exported


@dataclass(frozen=True)
class Spec:
    name: str
    function_name: str
    args: tuple  # (shape, dtype name, role); role: "data", "weight" (scaled by 1/sqrt(fan-in)) or "labels<N>"
    what: str

    @property
    def function(self):
        return globals()[self.function_name]

    @property
    def wrt(self) -> tuple[int, ...]:
        return tuple(i for i, (_, dtype, _) in enumerate(self.args) if dtype.startswith("float"))


SPECS = [
    Spec("mlp", "mlp_loss", (((3, 5), "float32", "weight"), ((5,), "float32", "data"), ((5, 2), "float32", "weight"),
                             ((2,), "float32", "data"), ((4, 3), "float32", "data"), ((4, 2), "float32", "data")),
         "two-layer tanh MLP with a mean squared error: linalg.matmul on a zero fill, bias broadcasts through "
         "`(d0, d1) -> (0, d1)` maps, a 0-d reduction, a 0-d divide generic"),
    Spec("layer_norm", "layer_norm_loss", (((4, 6), "float32", "data"), ((6,), "float32", "data"),
                                           ((6,), "float32", "data")),
         "layer normalisation (jnp.mean, jnp.var, lax.rsqrt) then sum(tanh(.)): row reductions, "
         "`(d0, 0)` broadcast maps, math.rsqrt"),
    Spec("attention", "attention_loss", (((4, 3), "float32", "data"), ((3, 3), "float32", "weight"),
                                         ((3, 3), "float32", "weight"), ((3, 3), "float32", "weight")),
         "single-head self-attention, softmax(q kᵀ / sqrt(d)) v, then sum of squares: matmuls, a transpose "
         "generic, jax.nn.softmax's max-shifted exp (arith.maximumf reduction from -inf)"),
    Spec("logsumexp", "logsumexp_loss", (((3, 4), "float32", "data"),),
         "jax.nn.logsumexp over rows, summed: a maximumf reduction from -inf, is_finite as absf + cmpf, a "
         "select, exp, a sum, absf, log"),
    Spec("cross_entropy", "cross_entropy_loss", (((3, 5), "float32", "weight"), ((5,), "float32", "data"),
                                                 ((4, 3), "float32", "data"), ((4,), "int32", "labels5")),
         "linear layer, jax.nn.log_softmax, jnp.take_along_axis with integer labels (a gather: tensor.extract "
         "at clamped data indices in a generic body), negative mean"),
    Spec("rnn", "rnn_loss", (((3, 3), "float32", "weight"), ((2, 3), "float32", "weight"), ((3,), "float32", "data"),
                             ((2, 3), "float32", "data"), ((5, 2, 2), "float32", "data")),
         "tanh RNN over 5 steps with lax.scan (batch 2): scf.while (from stablehlo.while) carrying a tensor<i32> "
         "counter, the state and the stacked outputs; dynamic extract_slice/insert_slice at the clamped counter"),
]  # fmt: skip
BY_NAME = {spec.name: spec for spec in SPECS}


def program_path(spec: Spec) -> Path:
    return PROGRAMS_DIR / f"jax_{spec.name}.mlir"


def reference_path(spec: Spec) -> Path:
    return PROGRAMS_DIR / f"jax_{spec.name}.npz"


# ---------------------------------------------------------------- export


def _example_args(spec: Spec):
    return [jax.ShapeDtypeStruct(shape, jnp.dtype(dtype)) for shape, dtype, _ in spec.args]


def _entry_wrapper(spec: Spec, text: str) -> str:
    """The `autodiff.grad` entry below the marker, from the exported signature."""
    signature = next(line for line in text.splitlines() if line.startswith(f"func.func @{spec.function_name}("))
    types = [part.split(": ", 1)[1] for part in signature.split("(", 1)[1].split(") ->")[0].split(", ")]
    params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    args = ", ".join(f"%a{i}" for i in range(len(types)))
    grads = [types[i] for i in spec.wrt]
    n = len(grads)
    results = ", ".join(f"%g#{k}" for k in range(n)) if n > 1 else "%g"
    lhs = f"%g:{n}" if n > 1 else "%g"
    wrt = ", ".join(str(i) for i in spec.wrt)
    return (
        f"func.func @grad_{spec.function_name}({params}) -> ({', '.join(grads)}) {{\n"
        f"  {lhs} = autodiff.grad @{spec.function_name}({args}) {{wrt = array<i64: {wrt}>}} : "
        f"({', '.join(types)}) -> ({', '.join(grads)})\n"
        f"  return {results} : {', '.join(grads)}\n"
        f"}}\n"
    )


def _jaxlib_version() -> str:
    import jaxlib

    return jaxlib.__version__


def program_text(spec: Spec) -> str:
    """The corpus file: header (with the JAX source), the export, the gradir entry."""
    from gradir.jax_export import from_jax

    exported = from_jax(spec.function, *_example_args(spec), name=spec.function_name)
    source = textwrap.dedent(inspect.getsource(spec.function)).rstrip().splitlines()
    shapes = ", ".join(f"{dtype}{list(shape)}" for shape, dtype, _ in spec.args)
    header = [
        f"// Source: JAX {jax.__version__} (jaxlib {_jaxlib_version()}): "
        f"`gradir.from_jax({spec.function_name}, ...)` with example arguments {shapes}; "
        "jax.jit(f).lower(...) then jaxlib's stablehlo-legalize-to-linalg (see gradir/jax_export.py)",
        f"// What: {spec.what}",
        "// Adaptations: none by hand; generated by `python tests/corpus/jax_programs.py "
        f"{spec.name}` (references: jax.value_and_grad in float64, recorded in jax_{spec.name}.npz)",
        "// JAX source:",
        *[f"//   {line}" if line else "//" for line in source],
        f"// gradir-corpus: entry={spec.function_name} wrt={','.join(map(str, spec.wrt))} reference=jax inputs=recorded",
        "",
    ]
    marker = "// ---- gradir entry (added for the corpus, not upstream) ----"
    return "\n".join(header) + exported + "\n" + marker + "\n" + _entry_wrapper(spec, exported)


# ---------------------------------------------------------------- references


def make_inputs(spec: Spec) -> list[np.ndarray]:
    """float64 inputs: magnitudes in [0.25, 1.25) with random signs (weights
    scaled by 1/sqrt(fan-in)), integer labels in range."""
    rng = np.random.default_rng([SEED, *map(ord, spec.name)])
    arrays = []
    for shape, dtype, role in spec.args:
        if role.startswith("labels"):
            arrays.append(rng.integers(0, int(role[len("labels"):]), size=shape).astype(dtype))
            continue
        values = rng.uniform(0.25, 1.25, size=shape) * rng.choice([-1.0, 1.0], size=shape)
        if role == "weight":
            values = values / np.sqrt(shape[0])
        arrays.append(values)
    return arrays


def reference_arrays(spec: Spec) -> dict[str, np.ndarray]:
    """`arg<i>` (inputs), `result0` and `grad<i>` for every float argument i:
    JAX's value and `jax.grad`, in float64."""
    inputs = make_inputs(spec)
    with jax.enable_x64(True):
        args = [jnp.asarray(a) for a in inputs]
        value, grads = jax.value_and_grad(spec.function, argnums=spec.wrt)(*args)
        arrays = {f"arg{i}": np.asarray(a) for i, a in enumerate(inputs)}
        arrays["result0"] = np.asarray(value, dtype=np.float64)
        for i, g in zip(spec.wrt, grads):
            arrays[f"grad{i}"] = np.asarray(g, dtype=np.float64)
    return arrays


# ---------------------------------------------------------------- CLI


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"programs (default: all of {', '.join(BY_NAME)})")
    parser.add_argument("--check", action="store_true", help="compare with a fresh export instead of writing")
    args = parser.parse_args(argv)
    if jax is None:
        print("error: needs JAX: pip install -e '.[jax]'", file=sys.stderr)
        return 2
    unknown = set(args.names) - set(BY_NAME)
    if unknown:
        parser.error(f"unknown programs {sorted(unknown)}")
    stale = []
    for spec in [BY_NAME[n] for n in args.names] if args.names else SPECS:
        text, arrays = program_text(spec), reference_arrays(spec)
        if args.check:
            if not program_path(spec).exists() or program_path(spec).read_text() != text:
                stale.append(program_path(spec).name)
            recorded = np.load(reference_path(spec)) if reference_path(spec).exists() else {}
            if set(recorded) != set(arrays) or any(not np.allclose(recorded[k], v, rtol=1e-12, atol=0)
                                                   for k, v in arrays.items()):  # fmt: skip
                stale.append(reference_path(spec).name)
            continue
        program_path(spec).write_text(text)
        np.savez(reference_path(spec), **arrays)
        print(f"wrote {program_path(spec).relative_to(HERE)} and {reference_path(spec).name}")
    if stale:
        print("stale (rerun python tests/corpus/jax_programs.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
