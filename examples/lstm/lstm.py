"""The ADBench LSTM objective as an `scf.for` program, for any (l, c, b), with its
gradient w.r.t. the main and extra parameters through `autodiff.grad`.

    python examples/lstm/lstm.py 2 1024 14 > lstm_l2_c1024_b14.mlir

ADBench's model (float64): l stacked LSTM layers over vectors of width b,
unrolled over a sequence of c steps; at each step the prediction is
normalised by a log-sum-exp and scored against the next sequence entry.

    @lstm_objective(main: 2l x 4b, extra: 3 x b, state: 2l x b, sequence: c x b) -> f64
    @lstm_gradient(same arguments) -> (d main, d extra)

`main` row 2i holds layer i's gate weights (forget, input, output, change, b
each), row 2i+1 its biases; `extra` holds the input scale, output scale and
output bias; `state` row 2i is layer i's hidden state, 2i+1 its cell. The time
loop is an `scf.for` whose iteration arguments are each layer's hidden and
cell state and the running total; each step reads `sequence[t]` and
`sequence[t + 1]` with `tensor.extract_slice`. The layers are unrolled here.
"""
from __future__ import annotations

import argparse

import numpy as np


def _t(*shape: int) -> str:
    return "tensor<" + "".join(f"{s}x" for s in shape) + "f64>"


class _Writer:
    """Emits SSA lines with fresh names."""

    def __init__(self, indent: str):
        self.lines: list[str] = []
        self.indent = indent
        self.count = 0

    def emit(self, text: str, name: str = "v") -> str:
        self.count += 1
        value = f"%{name}{self.count}"
        self.lines.append(f"{self.indent}{value} = {text}")
        return value

    def row(self, source: str, source_shape: tuple[int, int], index: str) -> str:
        """Row `index` (an SSA index or an integer) of a 2-D tensor, as a 1-D tensor."""
        rows, width = source_shape
        return self.emit(
            f"tensor.extract_slice {source}[{index}, 0] [1, {width}] [1, 1] : "
            f"{_t(rows, width)} to {_t(width)}"
        )

    def unary(self, op: str, x: str, shape: tuple[int, ...]) -> str:
        return self.emit(f"autodiff.{op} {x} : {_t(*shape)}")

    def binary(self, op: str, x: str, y: str, xs: tuple[int, ...], ys: tuple[int, ...], out) -> str:
        return self.emit(f"autodiff.{op} {x}, {y} : ({_t(*xs)}, {_t(*ys)}) -> {_t(*out)}")


def lstm_program(layers: int, steps: int, width: int) -> str:
    """MLIR text of @lstm_objective and @lstm_gradient for (l, c, b) = (layers, steps, width)."""
    l, c, b = layers, steps, width
    main_t, extra_t, state_t, seq_t = _t(2 * l, 4 * b), _t(3, b), _t(2 * l, b), _t(c, b)
    w = _Writer("  ")
    weights, biases = [], []
    for layer in range(l):
        for rows, index in ((weights, 2 * layer), (biases, 2 * layer + 1)):
            flat = w.row("%main", (2 * l, 4 * b), str(index))
            rows.append(
                w.emit(f"autodiff.reshape {flat} : {_t(4 * b)} -> {_t(4, b)}", "gates")
            )
    scale_in, scale_out, bias_out = (w.row("%extra", (3, b), str(i)) for i in range(3))
    initial = [w.row("%state", (2 * l, b), str(i)) for i in range(2 * l)]
    w.lines.append("  %c0 = arith.constant 0 : index")
    w.lines.append("  %c1 = arith.constant 1 : index")
    w.lines.append(f"  %steps = arith.constant {c - 1} : index")
    w.lines.append(f"  %zero = arith.constant dense<0.0> : {_t()}")
    carried = [f"%s{i}" for i in range(2 * l)]
    iter_args = ", ".join(f"{name} = {init}" for name, init in zip(carried, initial))
    result_types = ", ".join([_t(b)] * (2 * l) + [_t()])
    w.lines.append(
        f"  %final:{2 * l + 1} = scf.for %t = %c0 to %steps step %c1 "
        f"iter_args({iter_args}, %total = %zero) -> ({result_types}) {{"
    )
    body = _Writer("    ")
    body.count = w.count
    body.lines.append("    %next = arith.addi %t, %c1 : index")
    x = body.row("%sequence", (c, b), "%t")
    gold = body.row("%sequence", (c, b), "%next")
    x = body.binary("mul", x, scale_in, (b,), (b,), (b,))
    new_state = []
    for layer in range(l):
        hidden, cell = carried[2 * layer], carried[2 * layer + 1]
        gates = body.binary("mul", x, weights[layer], (b,), (4, b), (4, b))
        gates = body.binary("add", gates, biases[layer], (4, b), (4, b), (4, b))
        sig = body.emit(
            f"tensor.extract_slice {gates}[0, 0] [3, {b}] [1, 1] : {_t(4, b)} to {_t(3, b)}"
        )
        sig = body.unary("sigmoid", sig, (3, b))
        forget, ingate, outgate = (
            body.emit(
                f"tensor.extract_slice {sig}[{i}, 0] [1, {b}] [1, 1] : {_t(3, b)} to {_t(b)}"
            )
            for i in range(3)
        )
        change = body.emit(
            f"tensor.extract_slice {gates}[3, 0] [1, {b}] [1, 1] : {_t(4, b)} to {_t(b)}"
        )
        change = body.unary("tanh", change, (b,))
        kept = body.binary("mul", cell, forget, (b,), (b,), (b,))
        added = body.binary("mul", ingate, change, (b,), (b,), (b,))
        cell = body.binary("add", kept, added, (b,), (b,), (b,))
        hidden = body.binary("mul", outgate, body.unary("tanh", cell, (b,)), (b,), (b,), (b,))
        new_state += [hidden, cell]
        x = hidden
    prediction = body.binary("mul", x, scale_out, (b,), (b,), (b,))
    prediction = body.binary("add", prediction, bias_out, (b,), (b,), (b,))
    top = body.emit(f"autodiff.max {prediction} : {_t(b)} -> {_t()}")
    shifted = body.binary("sub", prediction, top, (b,), (), (b,))
    total_exp = body.emit(f"autodiff.sum {body.unary('exp', shifted, (b,))} : {_t(b)} -> {_t()}")
    lse = body.binary("add", body.unary("log", total_exp, ()), top, (), (), ())
    normalised = body.binary("sub", prediction, lse, (b,), (), (b,))
    score = body.binary("mul", gold, normalised, (b,), (b,), (b,))
    score = body.emit(f"autodiff.sum {score} : {_t(b)} -> {_t()}")
    total = body.binary("add", "%total", score, (), (), ())
    body.lines.append(
        f"    scf.yield {', '.join(new_state)}, {total} : {result_types}"
    )
    w.lines += body.lines
    w.lines.append("  }")
    w.count = body.count
    scale = w.emit(f"arith.constant dense<{-1.0 / ((c - 1) * b)!r}> : {_t()}")
    loss = w.binary("mul", f"%final#{2 * l}", scale, (), (), ())
    w.lines.append(f"  return {loss} : {_t()}")

    signature = f"%main: {main_t}, %extra: {extra_t}, %state: {state_t}, %sequence: {seq_t}"
    types = f"{main_t}, {extra_t}, {state_t}, {seq_t}"
    return "\n".join(
        [
            f"// ADBench LSTM objective, l = {l}, c = {c}, b = {b} (generated by examples/lstm/lstm.py)",
            f"func.func @lstm_objective({signature}) -> {_t()} {{",
            *w.lines,
            "}",
            f"func.func @lstm_gradient({signature}) -> ({main_t}, {extra_t}) {{",
            f"  %g:2 = autodiff.grad @lstm_objective(%main, %extra, %state, %sequence) "
            f"{{wrt = array<i64: 0, 1>}} : ({types}) -> ({main_t}, {extra_t})",
            f"  return %g#0, %g#1 : {main_t}, {extra_t}",
            "}",
            "",
        ]
    )


def lstm_inputs(layers: int, steps: int, width: int, seed: int = 0) -> list[np.ndarray]:
    """Seeded inputs of ADBench's shapes: parameters and state uniform in
    [-1, 1] scaled down, the sequence uniform in [0, 1]."""
    rng = np.random.default_rng(seed)
    main = rng.uniform(-1.0, 1.0, (2 * layers, 4 * width)) * 0.5
    extra = rng.uniform(-1.0, 1.0, (3, width)) * 0.5
    state = rng.uniform(-1.0, 1.0, (2 * layers, width)) * 0.5
    sequence = rng.uniform(0.0, 1.0, (steps, width))
    return [main, extra, state, sequence]


def lstm_reference(main, extra, state, sequence) -> float:
    """ADBench's LSTM objective in NumPy (the oracle for the program)."""
    layers = main.shape[0] // 2
    width = main.shape[1] // 4
    state = state.copy()
    total = 0.0
    for t in range(sequence.shape[0] - 1):
        x = sequence[t] * extra[0]
        for layer in range(layers):
            gates = np.tile(x, 4) * main[2 * layer] + main[2 * layer + 1]
            sig = 1.0 / (1.0 + np.exp(-gates[: 3 * width]))
            forget, ingate, outgate = sig[:width], sig[width : 2 * width], sig[2 * width :]
            change = np.tanh(gates[3 * width :])
            cell = state[2 * layer + 1] * forget + ingate * change
            hidden = outgate * np.tanh(cell)
            state[2 * layer], state[2 * layer + 1] = hidden, cell
            x = hidden
        prediction = x * extra[1] + extra[2]
        top = prediction.max()
        lse = np.log(np.exp(prediction - top).sum()) + top
        total += float((sequence[t + 1] * (prediction - lse)).sum())
    return -total / ((sequence.shape[0] - 1) * width)


def lstm_objective_torch(torch, main, extra, state, sequence):
    """ADBench's LSTM objective in PyTorch (float64), on the tensors' device: the baseline of
    bench/lstm.py (CPU) and scripts/gpu-check (CUDA)."""
    layers, width = main.shape[0] // 2, main.shape[1] // 4
    hidden_cells = list(state)
    total = torch.zeros((), dtype=torch.float64, device=main.device)
    for t in range(sequence.shape[0] - 1):
        x = sequence[t] * extra[0]
        for layer in range(layers):
            gates = x.repeat(4) * main[2 * layer] + main[2 * layer + 1]
            sig = torch.sigmoid(gates[: 3 * width])
            forget, ingate, outgate = sig[:width], sig[width : 2 * width], sig[2 * width :]
            change = torch.tanh(gates[3 * width :])
            cell = hidden_cells[2 * layer + 1] * forget + ingate * change
            hidden = outgate * torch.tanh(cell)
            hidden_cells[2 * layer], hidden_cells[2 * layer + 1] = hidden, cell
            x = hidden
        prediction = x * extra[1] + extra[2]
        total = total + (sequence[t + 1] * (prediction - torch.logsumexp(prediction, 0))).sum()
    return -total / ((sequence.shape[0] - 1) * width)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("layers", type=int)
    parser.add_argument("steps", type=int)
    parser.add_argument("width", type=int)
    args = parser.parse_args()
    print(lstm_program(args.layers, args.steps, args.width), end="")


if __name__ == "__main__":
    main()
