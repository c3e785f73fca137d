"""Second derivatives of generated programs (`standard_programs.py`, or `named_programs.py`
with `named`): `gradir.hessian` of a loss made of the program (its results weighted by fixed
random tensors and summed) against central differences of the loss's compiled gradient, in
f64 through the CPU pipeline, and the symmetry of the Hessian. Forward over reverse
differentiates every rule's backward a second time: a rule whose backward is right but whose
own derivative is not shows here only.

    python standard_hessian.py FIRST COUNT [named]

prints one line per seed: `ok`, `vacuous` (the loss is linear in every argument: nothing
checked), `refused` (the one-line error) or `wrong` (what differs).
"""

from __future__ import annotations

import sys

import numpy as np

STEP = 1e-5
"""Central differences of the f64 gradient: truncation ~STEP^2, rounding ~1e-16 / STEP."""
RTOL = 1e-6
"""Of the Hessian's largest entry: a wrong rule is off by O(1), the differences by ~1e-10."""
COLUMNS = 48
"""Entries of each argument whose Hessian columns are differenced (a random sample of larger ones)."""
NONZERO = 1e-4


def _literal(values: np.ndarray) -> str:
    return f"dense<{np.asarray(values).tolist()}>".replace("dense<[]>", "dense<0.0>")


def loss_module(program) -> tuple[str, list[int], list]:
    """(text, float arguments, inputs): the program promoted to f64, `@loss` (every float
    result times a fixed random tensor, summed; scalar arguments and results as 0-d tensors)
    and `@grad` (its vjp at cotangent 1)."""
    from xdsl.dialects.func import FuncOp

    from gradir.gradient_check import promote_to_f64
    from gradir.source import load_module

    module = promote_to_f64(load_module(program.text))
    callee = next(op for op in module.ops if isinstance(op, FuncOp) and op.sym_name.data == program.name)
    inputs = [str(t) for t in callee.function_type.inputs.data]
    outputs = [str(t) for t in callee.function_type.outputs.data]
    as_tensor = [t if t.startswith("tensor<") else f"tensor<{t}>" for t in inputs]
    floats = [k for k, t in enumerate(as_tensor) if t.endswith("f64>")]
    rng = np.random.default_rng(program.seed + 17)
    lines = [f"func.func @loss({', '.join(f'%a{k}: {t}' for k, t in enumerate(as_tensor))}) -> tensor<f64> {{"]
    arguments = []
    for k, (type_, tensor_type) in enumerate(zip(inputs, as_tensor)):
        if type_ == tensor_type:
            arguments.append(f"%a{k}")
        else:
            lines.append(f"  %s{k} = tensor.extract %a{k}[] : {tensor_type}")
            arguments.append(f"%s{k}")
    lines.append(f"  %r:{len(outputs)} = func.call @{program.name}({', '.join(arguments)}) : "
                 f"({', '.join(inputs)}) -> ({', '.join(outputs)})")  # fmt: skip
    lines += [
        "  %zero = arith.constant 0.0 : f64",
        "  %empty = tensor.empty() : tensor<f64>",
        "  %acc0 = linalg.fill ins(%zero : f64) outs(%empty : tensor<f64>) -> tensor<f64>",
    ]
    accumulated = "%acc0"
    for k, type_ in enumerate(outputs):
        if not type_.endswith("f64>") and type_ != "f64":
            continue  # an integer result has no derivative
        value = f"%r#{k}"
        if type_ == "f64":
            lines.append(f"  %t{k} = tensor.from_elements %r#{k} : tensor<f64>")
            value, type_ = f"%t{k}", "tensor<f64>"
        shape = [int(d) for d in type_[len("tensor<") : -len("f64>")].split("x") if d]
        weights = rng.choice([-1.0, 1.0], shape) * rng.uniform(0.5, 1.5, shape)
        dims = ", ".join(f"d{i}" for i in range(len(shape)))
        iterators = ", ".join('"reduction"' for _ in shape)
        lines += [
            f"  %w{k} = arith.constant {_literal(weights)} : {type_}",
            (
                f"  %acc{k + 1} = linalg.generic {{indexing_maps = [affine_map<({dims}) -> ({dims})>, "
                f"affine_map<({dims}) -> ({dims})>, affine_map<({dims}) -> ()>], "
                f"iterator_types = [{iterators}]}} "
                f"ins({value}, %w{k} : {type_}, {type_}) outs({accumulated} : tensor<f64>) {{"
            ),
            "  ^bb0(%x: f64, %w: f64, %acc: f64):",
            "    %p = arith.mulf %x, %w : f64",
            "    %s = arith.addf %acc, %p : f64",
            "    linalg.yield %s : f64",
            "  } -> tensor<f64>",
        ]
        accumulated = f"%acc{k + 1}"
    lines += [f"  return {accumulated} : tensor<f64>", "}"]
    wrt = ", ".join(map(str, floats))
    operands = ", ".join(f"%a{k}" for k in range(len(inputs)))
    gradient_types = [as_tensor[k] for k in floats]
    lines += [
        f"func.func @grad({', '.join(f'%a{k}: {t}' for k, t in enumerate(as_tensor))}) -> ({', '.join(gradient_types)}) {{",
        "  %one = arith.constant dense<1.0> : tensor<f64>",
        (
            f"  %g:{len(floats) + 1} = autodiff.vjp @loss({operands}, %one) {{wrt = array<i64: {wrt}>}} : "
            f"({', '.join(as_tensor)}, tensor<f64>) -> (tensor<f64>, {', '.join(gradient_types)})"
        ),
        f"  return {', '.join(f'%g#{k + 1}' for k in range(len(floats)))} : {', '.join(gradient_types)}",
        "}",
    ]
    text = str(module).rstrip()
    values = [np.asarray(x, dtype=np.float64) if k in floats else np.asarray(x) for k, x in enumerate(program.inputs)]
    return text[:-1] + "\n".join(lines) + "\n}\n", floats, values


def check_hessian(seed: int, generator) -> tuple[str, str]:
    """(outcome, detail) for the program `generator` draws for `seed`."""
    import gradir

    program = generator(seed)
    text, floats, inputs = loss_module(program)
    try:
        hessian = gradir.hessian(text, "loss", wrt=floats, opt_level=0)
        blocks = hessian(*inputs)
        gradient = gradir.compile(text, opt_level=0)
    except gradir.GradirError as error:
        return "refused", str(error).splitlines()[0]
    blocks = {
        (i, j): np.asarray(blocks[p * len(floats) + q]) for p, i in enumerate(floats) for q, j in enumerate(floats)
    }
    scale = max(float(np.max(np.abs(b), initial=0.0)) for b in blocks.values())
    if scale < NONZERO:
        return "vacuous", "every second derivative is zero"
    tolerance = RTOL * max(scale, 1.0)
    for (i, j), block in blocks.items():  # symmetry: d2/da_i da_j = (d2/da_j da_i)^T
        size_i, size_j = inputs[i].size, inputs[j].size
        other = blocks[(j, i)].reshape(size_j, size_i).T
        if not np.allclose(block.reshape(size_i, size_j), other, rtol=0, atol=tolerance):
            return (
                "wrong",
                f"H[{i},{j}] is not H[{j},{i}] transposed: max difference {np.max(np.abs(block.reshape(size_i, size_j) - other)):.3g}",
            )
    rng = np.random.default_rng(seed)
    for j in floats:
        entries = np.arange(inputs[j].size)
        if entries.size > COLUMNS:
            entries = rng.choice(entries, COLUMNS, replace=False)
        for entry in entries:
            index = np.unravel_index(entry, inputs[j].shape)
            columns = []
            for sign in (1.0, -1.0):
                moved = [x.copy() for x in inputs]
                moved[j][index] += sign * STEP
                columns.append(gradient.call("grad", *moved))
            for p, i in enumerate(floats):
                numeric = (np.asarray(columns[0][p]) - np.asarray(columns[1][p])) / (2 * STEP)
                analytic = blocks[(i, j)][(..., *index)] if index else blocks[(i, j)]
                if not np.allclose(analytic, numeric, rtol=0, atol=tolerance):
                    error = np.max(np.abs(analytic - numeric))
                    return (
                        "wrong",
                        f"H[{i},{j}] column {list(index)}: max |analytic - differences| {error:.3g} (scale {scale:.3g})",
                    )
    return "ok", f"scale {scale:.3g}"


if __name__ == "__main__":
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
    first, count = int(sys.argv[1]), int(sys.argv[2])
    if sys.argv[3:] == ["named"]:
        from named_programs import generate
    else:
        from standard_programs import generate
    for seed in range(first, first + count):
        outcome, detail = check_hessian(seed, generate)
        print(f"{seed:6d} {outcome:8s} {detail[:300]}", flush=True)
