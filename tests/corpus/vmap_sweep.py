#!/usr/bin/env python3
"""Per-example gradients of every corpus program: `autodiff.vmap` of its vjp, checked
against a loop over the examples of the same compiled vjp (which `run_corpus.py`
checks against central differences and PyTorch).

For a program with entry `E` and `wrt`, the f64-promoted module gains

    @__sweep_vjp(arguments..., cotangents...) -> gradients   (autodiff.vjp @E)
    @__sweep_vmap(batched arguments..., batched cotangents...) -> batched gradients
                                                             (autodiff.vmap @__sweep_vjp)

every float tensor argument and every cotangent batched at axis 0, other arguments
shared by the examples; f64 scalar arguments are batched only where they are all there is to
batch, and f64 results and their cotangents are batched as vectors (vmap batches float
scalars as `tensor<SIZE x f64>`). Both are compiled together once; `__sweep_vmap` on a
batch of `SIZE` examples must equal `__sweep_vjp` called on each (the examples: the
program's input generator with other seeds; recorded inputs scaled by 1 +- 5%).

Outcome per program: `pass`; `refused` (autodiff-vmap has no rule for an op: the
first error line); `n/a` (nothing to batch: no float argument in `wrt`); `fail` (another
error); `wrong` (the batched gradients differ from the loop's).

    python tests/corpus/vmap_sweep.py [NAME ...]
"""
from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import references  # noqa: E402
import run_corpus  # noqa: E402

SIZE = 3
JACOBIAN_ROWS = 16
RTOL, ATOL = 1e-9, 1e-12
OPT_LEVEL = 0
"""LLVM's level for the sweeps' CPU modules: they compare numbers, not speed, and -O0 swept
the JAX transformer in 11 s instead of 20 (the main check, `run_corpus`, compiles at -O0
too)."""


@dataclass
class SweepResult:
    name: str
    status: str  # pass | refused | n/a | fail | wrong
    detail: str = ""
    jacobian: str = "n/a"
    """The same for `autodiff.jacobian` (reverse: a vmap of the vjp over the output
    basis) against rows of the vjp at one-hot cotangents: pass, refused, wrong, fail,
    n/a (too many result elements, or the vmap was not checked)."""
    integers: str = "n/a"
    """Whether the vmap batched the integer arguments too (labels, indices, loop bounds:
    each example its own): pass, or `refused: <line>` where it could not (an offset or a
    size per example) and the sweep shared them instead; n/a: no integer argument."""


def _batched_text(type_text: str) -> str:
    """The text of a batch of `SIZE` values of a tensor or scalar type (`tensor<SIZE x f64>`)."""
    if not type_text.startswith("tensor<"):
        return f"tensor<{SIZE}x{type_text}>"
    return f"tensor<{SIZE}x{type_text[len('tensor<'):]}"


def sweep_module_text(program: run_corpus.Program, batch_integers: bool = True) -> "SweepModules":
    """The promoted module with the sweep functions (see SweepModules); integer and index
    arguments are batched with `batch_integers`, shared by the examples otherwise."""
    from xdsl.dialects.builtin import TensorType, f64
    from xdsl.dialects.func import FuncOp

    from gradir.dialects.type_checks import is_differentiable_tensor, is_float_tensor, is_integer_valued
    from gradir.gradient_check import checked_wrt, promote_to_f64
    from gradir.source import load_module

    module = promote_to_f64(load_module(str(program.path)))
    callee = next(op for op in module.ops if isinstance(op, FuncOp) and op.sym_name.data == program.entry)
    inputs = list(callee.function_type.inputs.data)
    outputs = list(callee.function_type.outputs.data)
    # f64 scalar arguments are shared by the examples, unless they are all there is to batch.
    batch_scalars = not any(is_differentiable_tensor(t) for t in inputs)
    if not all(isinstance(t, TensorType) or t == f64 or is_integer_valued(t) for t in outputs):
        raise LookupError(f"a result is neither a tensor, f64 nor an integer: {outputs}")
    entry = f'"{callee.sym_name.data}"'
    input_types, output_types = [str(t) for t in inputs], [str(t) for t in outputs]
    float_tensor = [is_differentiable_tensor(t) or (t == f64 and batch_scalars) for t in inputs]
    wrt = [i for i in checked_wrt(callee, program.wrt) if float_tensor[i]]
    # integers (labels, indices, trip counts) differ per example
    batched_inputs = [f or (batch_integers and is_integer_valued(t)) for f, t in zip(float_tensor, inputs)]
    if not wrt:
        raise LookupError("no float argument to differentiate")
    gradients = [input_types[i] for i in wrt]
    types = input_types + output_types
    # an integer result's cotangent is shared
    batched = batched_inputs + [is_differentiable_tensor(t) or t == f64 for t in outputs]
    batched_types = [_batched_text(t) if b else t for t, b in zip(types, batched)]
    batched_grads = [_batched_text(t) for t in gradients]
    operands = ", ".join(f"%a{k}" for k in range(len(types)))
    count = len(outputs) + len(gradients)
    return_values = ", ".join(f"%r#{len(outputs) + k}" for k in range(len(gradients)))
    base = str(module).rstrip()
    base = base[: base.rfind("}")] + f"""
func.func @__sweep_vjp({', '.join(f'%a{k}: {t}' for k, t in enumerate(types))}) -> ({', '.join(gradients)}) {{
  %r:{count} = autodiff.vjp @{entry}({operands}) {{wrt = array<i64: {', '.join(map(str, wrt))}>}} : ({', '.join(types)}) -> ({', '.join(output_types + gradients)})
  func.return {return_values} : {', '.join(gradients)}
}}
"""
    text = base + f"""func.func @__sweep_vmap({', '.join(f'%a{k}: {t}' for k, t in enumerate(batched_types))}) -> ({', '.join(batched_grads)}) {{
  %r:{len(gradients)} = autodiff.vmap @__sweep_vjp({operands}) {{in_axes = array<i64: {', '.join('0' if b else '-1' for b in batched)}>, out_axes = array<i64: {', '.join('0' for _ in gradients)}>, size = {SIZE} : i64}} : ({', '.join(batched_types)}) -> ({', '.join(batched_grads)})
  func.return {', '.join(f'%r#{k}' for k in range(len(gradients)))} : {', '.join(batched_grads)}
}}
}}
"""
    shapes = [tuple(t.get_shape()) if isinstance(t, TensorType) else () for t in outputs]
    jacobian = None
    # A Jacobian has float blocks of static shape only.
    float_results = all(is_float_tensor(t) or t == f64 for t in (*outputs, *(inputs[i] for i in wrt)))
    if float_results and sum(int(np.prod(shape)) for shape in shapes) <= JACOBIAN_ROWS:
        wrt_shapes = [() if inputs[i] == f64 else tuple(inputs[i].get_shape()) for i in wrt]
        blocks = [_tensor_text((*r, *a)) for r in shapes for a in wrt_shapes]
        arguments = ", ".join(f"%a{k}" for k in range(len(input_types)))
        jacobian = f"""func.func @__sweep_jacobian({', '.join(f'%a{k}: {t}' for k, t in enumerate(input_types))}) -> ({', '.join(blocks)}) {{
  %j:{len(blocks)} = autodiff.jacobian @{entry}({arguments}) {{wrt = array<i64: {', '.join(map(str, wrt))}>, mode = "rev"}} : ({', '.join(input_types)}) -> ({', '.join(blocks)})
  func.return {', '.join(f'%j#{k}' for k in range(len(blocks)))} : {', '.join(blocks)}
}}
"""
    integers = any(b and not f for b, f in zip(batched_inputs, float_tensor))
    return SweepModules(text, batched, len(gradients), jacobian, shapes, [*outputs, *(inputs[i] for i in wrt)], integers)


def _with_function(module_text: str, function: str) -> str:
    """`module_text` with `function` added as its last function."""
    return module_text[: module_text.rindex("}")] + function + "}\n"


def _tensor_text(shape) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f64>"


@dataclass
class SweepModules:
    vmap_text: str
    """The module with `__sweep_vjp` and `__sweep_vmap`."""
    batched: list[bool]
    """Which arguments of `__sweep_vjp` `__sweep_vmap` batches."""
    gradient_count: int
    jacobian_function: str | None
    """`__sweep_jacobian` (reverse mode), for an entry with at most JACOBIAN_ROWS result
    elements; else None."""
    output_shapes: list[tuple[int, ...]]
    jacobian_types: list
    """The results' and the differentiated arguments' types: a Jacobian's blocks."""
    batches_integers: bool = False
    """Whether `__sweep_vmap` batches an integer or index argument."""

    def called(self, program: run_corpus.Program, jacobian: bool = False) -> list[str]:
        """The functions the sweep calls (`gradir.compile`'s `functions`): the entry (which
        sizes a result of dynamic shape), `__sweep_vjp`, `__sweep_vmap`, and with `jacobian`
        `__sweep_jacobian` where there is one. The derived helpers, compiled only where
        inlined, took half the sweep's time when each was compiled for itself too."""
        names = [program.entry, "__sweep_vjp", "__sweep_vmap"]
        return names + (["__sweep_jacobian"] if jacobian and self.jacobian_function is not None else [])

    @property
    def jacobian_text(self) -> str | None:
        """The module with `__sweep_vjp` and `__sweep_jacobian` (`vjp_text` plus it)."""
        return None if self.jacobian_function is None else _with_function(self.vjp_text, self.jacobian_function)

    @property
    def all_text(self) -> str:
        """`vmap_text` plus `__sweep_jacobian` where there is one: what a program that
        batches compiles, once (a program is as slow to compile as its vjp: each
        `gradir.compile` of it lowers it anew)."""
        return self.vmap_text if self.jacobian_function is None else _with_function(self.vmap_text, self.jacobian_function)

    @property
    def vjp_text(self) -> str:
        """The module with `__sweep_vjp` only (`vmap_text` less `__sweep_vmap`, its last function)."""
        return self.vmap_text[: self.vmap_text.index("func.func @__sweep_vmap")] + "}\n"


def example_inputs(program: run_corpus.Program, input_specs, example: int) -> list[np.ndarray]:
    """One example's arguments: the program's own generator with another seed, or the
    recorded inputs scaled by up to 5% (they may hold a domain the generator knows)."""
    if program.inputs == "recorded":
        arrays = run_corpus.make_inputs(program, input_specs)
        rng = np.random.default_rng(100 + example)
        return [
            a * (1 + 0.05 * rng.uniform(-1, 1, np.shape(a))) if np.asarray(a).dtype.kind == "f" else a
            for a in arrays
        ]
    specs = [(() if shape is None else shape, element) for shape, element in input_specs]
    return references.INPUTS[program.inputs](np.random.default_rng(100 + example), specs)


_INTEGER_DTYPES = {"i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "index": np.int64}
"""An integer result's (ignored) cotangent takes the result's own dtype: the compiled
function checks it (StableHLO's variadic reduce returns an i32 index beside its float)."""


def has_dynamic_shape(specs) -> bool:
    """Whether a tensor of `run_corpus._mlir22_inspect`'s specs has a run-time size."""
    return any(shape is not None and any(d < 0 for d in shape) for shape, _ in specs)


def examples_with_cotangents(
    program: run_corpus.Program, input_specs, result_specs, executable=None
) -> list[list[np.ndarray]]:
    """`SIZE` examples: each one's arguments (`example_inputs`, floats in f64) followed by
    random cotangents for the program's results. A result of dynamic shape takes the shape
    `executable` (a compilation of the promoted program) gives it on the example."""
    examples = []
    for example in range(SIZE):
        arguments = [np.asarray(a) for a in example_inputs(program, input_specs, example)]
        arguments = [a.astype(np.float64) if a.dtype.kind == "f" else a for a in arguments]
        shapes = [() if shape is None else shape for shape, _ in result_specs]
        if has_dynamic_shape(result_specs):
            shapes = [np.shape(result) for result in executable.call(program.entry, *arguments)]
        rng = np.random.default_rng(200 + example)
        cotangents = [
            rng.standard_normal(shape) if element.startswith(("f", "bf"))
            else np.zeros(shape, _INTEGER_DTYPES.get(element, np.int64))  # ignored
            for shape, (_, element) in zip(shapes, result_specs)
        ]
        examples.append(arguments + cotangents)
    return examples


def check(program: run_corpus.Program) -> SweepResult:
    from gradir.errors import GradirError
    from gradir.tools.cli import one_line_message

    from gradir.autodiff_pass.batch_builder import VmapError

    try:
        modules = sweep_module_text(program)
    except LookupError as error:
        return SweepResult(program.name, "n/a", str(error))
    integers = "pass" if modules.batches_integers else "n/a"
    try:
        try:
            executable, jacobians = _compiled(program, modules)
        except VmapError as error:
            if not modules.batches_integers:
                raise
            # An offset or a size per example: the integers are shared, the rest still checked.
            integers = f"refused: {one_line_message(error)}"
            modules = sweep_module_text(program, batch_integers=False)
            executable, jacobians = _compiled(program, modules)
    except VmapError as error:
        return SweepResult(program.name, "refused", one_line_message(error), integers=integers)
    except GradirError as error:
        return SweepResult(program.name, "fail", one_line_message(error), integers=integers)
    batched, gradient_count = modules.batched, modules.gradient_count
    input_specs, result_specs, _ = run_corpus._mlir22_inspect(program)  # noqa: SLF001
    examples = examples_with_cotangents(program, input_specs, result_specs, executable)
    shared = [examples[0][k] for k in range(len(batched))]
    for example in examples:  # an unbatched argument is the same in every example
        for k, is_batched in enumerate(batched):
            if not is_batched:
                example[k] = shared[k]
    stacked = [np.stack([e[k] for e in examples]) if b else shared[k] for k, b in enumerate(batched)]
    try:
        got = executable.call("__sweep_vmap", *stacked)
        want = [executable.call("__sweep_vjp", *example) for example in examples]
    except Exception as error:  # noqa: BLE001 - reported as this program's failure
        return SweepResult(program.name, "fail", f"running: {one_line_message(error)}")
    for k in range(gradient_count):
        expected = np.stack([np.asarray(w[k]) for w in want])
        problem = run_corpus._mismatch(f"gradient {k}", got[k], expected, RTOL, ATOL)  # noqa: SLF001
        if problem:
            return SweepResult(program.name, "wrong", problem)
    if all(np.allclose(got[k][0], got[k][1]) for k in range(gradient_count)):
        return SweepResult(program.name, "wrong", "every example has the same gradient: the batch is not exercised")
    arguments = examples[0][: len(input_specs)]
    jacobian = check_jacobian(modules, executable, arguments, jacobians)
    return SweepResult(program.name, "pass", jacobian=jacobian, integers=integers)


def _compiled(program: run_corpus.Program, modules: "SweepModules"):
    """(the executable of the vmap, that of the Jacobian or None): one compilation of both;
    apart where that fails, to say which."""
    import gradir
    from gradir.errors import GradirError

    try:
        executable = gradir.compile(
            modules.all_text, target="cpu", opt_level=OPT_LEVEL, functions=modules.called(program, jacobian=True)
        )
        return executable, executable
    except GradirError:
        functions = modules.called(program)
        return gradir.compile(modules.vmap_text, target="cpu", opt_level=OPT_LEVEL, functions=functions), None


def check_jacobian(modules: SweepModules, executable, arguments, jacobians=None) -> str:
    """`__sweep_jacobian` against rows of `__sweep_vjp` at one-hot cotangents; `jacobians`:
    a compilation of `modules.all_text`, else `jacobian_text` is compiled here."""
    import gradir
    from gradir.autodiff_pass.batch_builder import VmapError
    from gradir.errors import GradirError
    from gradir.tools.cli import one_line_message

    if modules.jacobian_text is None:
        from gradir.dialects.type_checks import dynamic_dims

        if any(dynamic_dims(t) for t in modules.jacobian_types):
            return "n/a: a tensor of dynamic shape"
        elements = sum(int(np.prod(shape)) for shape in modules.output_shapes)
        if elements <= JACOBIAN_ROWS:
            return "n/a: a result that is not a float"
        return f"n/a: {elements} result elements, more than {JACOBIAN_ROWS}"
    try:
        if jacobians is None:
            jacobians = gradir.compile(
                modules.jacobian_text, target="cpu", opt_level=OPT_LEVEL, functions=["__sweep_jacobian"]
            )
        blocks = jacobians.call("__sweep_jacobian", *arguments)
    except VmapError as error:
        return f"refused: {one_line_message(error)}"
    except GradirError as error:
        return f"fail: {one_line_message(error)}"
    shapes = modules.output_shapes
    for r, shape in enumerate(shapes):
        for index in np.ndindex(*shape):
            cotangents = [np.zeros(s) for s in shapes]
            cotangents[r][index] = 1.0
            row = executable.call("__sweep_vjp", *arguments, *cotangents)
            for a in range(modules.gradient_count):
                block = np.asarray(blocks[r * modules.gradient_count + a])
                problem = run_corpus._mismatch(f"jacobian block ({r}, {a}) at {index}", block[index], row[a], RTOL, ATOL)  # noqa: SLF001
                if problem:
                    return f"wrong: {problem}"
    return "pass"


def main(argv: list[str]) -> int:
    results = [check(program) for program in run_corpus.discover(argv or None)]
    for result in results:
        print(f"{result.name:40s} {result.status:8s} jacobian {result.jacobian.split(':')[0]:8s} "
              f"integers {result.integers.split(':')[0]:8s} {result.detail}")
        if result.jacobian != "pass" and not result.jacobian.startswith("n/a"):
            print(f"{'':40s} jacobian: {result.jacobian}")
        if result.integers.startswith("refused"):
            print(f"{'':40s} integers: {result.integers}")
    counts: dict[str, int] = {}
    for result in results:
        counts[result.status] = counts.get(result.status, 0) + 1
    print(", ".join(f"{status} {count}" for status, count in sorted(counts.items())), f"of {len(results)}")
    jacobians: dict[str, int] = {}
    for result in results:
        jacobians[result.jacobian.split(":")[0]] = jacobians.get(result.jacobian.split(":")[0], 0) + 1
    print("jacobians:", ", ".join(f"{status} {count}" for status, count in sorted(jacobians.items())))
    return 0 if not counts.get("wrong") and not counts.get("fail") else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
