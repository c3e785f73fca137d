"""A LeNet-5 training loss in linalg on tensors, written the way torch-mlir lowers
a PyTorch module, for any batch size.

    python examples/cnn/lenet.py 64 > lenet_b64.mlir

The model is the `Net` of PyTorch's tutorial "Neural Networks"
(pytorch/tutorials beginner_source/blitz/neural_networks_tutorial.py, LeNet-5)
on 28x28 MNIST images, padded by 2 as LeNet-5 pads them (the tutorial expects
32x32), trained as PyTorch's MNIST example trains its net (pytorch/examples
mnist/main.py: log-softmax, then `F.nll_loss` with its mean):

    conv 5x5, 1 -> 6 channels, padding 2, + bias, ReLU, max-pool 2x2
    conv 5x5, 6 -> 16 channels, + bias, ReLU, max-pool 2x2, flatten (400)
    linear 400 -> 120, ReLU, linear 120 -> 84, ReLU, linear 84 -> 10
    log-softmax, NLL loss with integer labels (mean over the non-ignored ones)

    @lenet(x: Bx1x28x28, labels: B (i64), w1, b1, w2, b2, w3, b3, w4, b4, w5, b5) -> loss (0-d)

As torch-mlir's linalg-on-tensors output does: NCHW convolutions
(`linalg.conv_2d_nchw_fchw`) into an init holding the broadcast bias, the
padding as `tensor.pad` with 0, ReLU as `cmpf ugt` + `select` generics, max
pooling into a `-FLT_MAX` fill with an empty window tensor, `tensor.collapse_shape`
to flatten, linear layers as `linalg.transpose` + `linalg.matmul` into a zero
fill + a bias generic, log-softmax as generics (max, subtract, exp, sum, log),
and the NLL loss as a generic gathering `logp[i, label[i]]` with
`tensor.extract` (labels equal to -100 ignored, as `ignore_index`; the gather
reads before it selects, so labels must be in range). Two differences: the
maximum that log-softmax subtracts is a one-result reduction generic with
`arith.maximumf` (torch-mlir's lowering of `aten.amax`) where torch-mlir's
decomposition of log-softmax writes a two-result max/argmax generic, which
xDSL 0.74 cannot parse; and the weights are function arguments where
torch-mlir inlines them as constants. `tests/corpus/programs/torchmlir_lenet.mlir`
is this program at batch 4.
"""
from __future__ import annotations

import argparse

PARAMETER_SHAPES = {
    "w1": (6, 1, 5, 5), "b1": (6,), "w2": (16, 6, 5, 5), "b2": (16,),
    "w3": (120, 400), "b3": (120,), "w4": (84, 120), "b4": (84,), "w5": (10, 84), "b5": (10,),
}  # fmt: skip
"""PyTorch's parameter shapes (nn.Conv2d: F x C x KH x KW, nn.Linear: out x in)."""

PARALLEL = '"parallel"'


def _t(*shape: int, element: str = "f32") -> str:
    return "tensor<" + "".join(f"{s}x" for s in shape) + f"{element}>"


def _iterators(*kinds: str) -> str:
    return "[" + ", ".join(f'"{k}"' for k in kinds) + "]"


def lenet(batch: int) -> str:
    """The module text: the maps, `@lenet` and `@lenet_grad` (the gradient
    with respect to the ten parameters, for the benchmark)."""
    b = batch
    x, labels = _t(b, 1, 28, 28), _t(b, element="i64")
    params = ", ".join(f"%{name}: {_t(*shape)}" for name, shape in PARAMETER_SHAPES.items())
    relu4 = """ {
    ^bb0(%in: f32, %out: f32):
      %r = arith.cmpf ugt, %in, %cst : f32
      %s = arith.select %r, %in, %cst : f32
      linalg.yield %s : f32
    }"""
    bias4 = """ {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }"""
    add2 = """ {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %a = arith.addf %in, %in_0 : f32
      linalg.yield %a : f32
    }"""
    par4 = _iterators(*["parallel"] * 4)
    par2 = _iterators("parallel", "parallel")

    def conv_block(index: int, source: str, channels: int, size: int, padding: int, filters: int) -> list[str]:
        out = size + 2 * padding - 4
        pooled = out // 2
        lines = []
        padded = source
        if padding:
            padded = f"%padded_{index}"
            lines.append(
                f"    {padded} = tensor.pad {source} low[0, 0, {padding}, {padding}] high[0, 0, {padding}, {padding}] {{\n"
                f"    ^bb0(%arg20: index, %arg21: index, %arg22: index, %arg23: index):\n"
                f"      tensor.yield %cst : f32\n"
                f"    }} : {_t(b, channels, size, size)} to {_t(b, channels, size + 2 * padding, size + 2 * padding)}"
            )
        conv_in = _t(b, channels, size + 2 * padding, size + 2 * padding)
        y, p = _t(b, filters, out, out), _t(b, filters, pooled, pooled)
        lines += [
            f"    %empty_{index} = tensor.empty() : {y}",
            f"    %bias_{index} = linalg.generic {{indexing_maps = [#map, #map1], iterator_types = {par4}}} "
            f"ins(%b{index} : {_t(filters)}) outs(%empty_{index} : {y}){bias4} -> {y}",
            f"    %conv_{index} = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>}} "
            f"ins({padded}, %w{index} : {conv_in}, {_t(filters, channels, 5, 5)}) outs(%bias_{index} : {y}) -> {y}",
            f"    %relu_{index} = linalg.generic {{indexing_maps = [#map1, #map1], iterator_types = {par4}}} "
            f"ins(%conv_{index} : {y}) outs(%empty_{index} : {y}){relu4} -> {y}",
            f"    %pool_empty_{index} = tensor.empty() : {p}",
            f"    %pool_init_{index} = linalg.fill ins(%cst_0 : f32) outs(%pool_empty_{index} : {p}) -> {p}",
            f"    %window_{index} = tensor.empty() : {_t(2, 2)}",
            f"    %pool_{index} = linalg.pooling_nchw_max {{dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}} "
            f"ins(%relu_{index}, %window_{index} : {y}, {_t(2, 2)}) outs(%pool_init_{index} : {p}) -> {p}",
        ]
        return lines

    def linear(index: int, source: str, inputs: int, outputs: int, relu: bool) -> list[str]:
        y = _t(b, outputs)
        lines = [
            f"    %t_empty_{index} = tensor.empty() : {_t(inputs, outputs)}",
            f"    %transposed_{index} = linalg.transpose ins(%w{index} : {_t(outputs, inputs)}) "
            f"outs(%t_empty_{index} : {_t(inputs, outputs)}) permutation = [1, 0]",
            f"    %mm_empty_{index} = tensor.empty() : {y}",
            f"    %mm_init_{index} = linalg.fill ins(%cst : f32) outs(%mm_empty_{index} : {y}) -> {y}",
            f"    %mm_{index} = linalg.matmul ins({source}, %transposed_{index} : {_t(b, inputs)}, {_t(inputs, outputs)}) "
            f"outs(%mm_init_{index} : {y}) -> {y}",
            f"    %linear_{index} = linalg.generic {{indexing_maps = [#map2, #map3, #map2], iterator_types = {par2}}} "
            f"ins(%mm_{index}, %b{index} : {y}, {_t(outputs)}) outs(%mm_empty_{index} : {y}){add2} -> {y}",
        ]
        if relu:
            lines.append(
                f"    %hidden_{index} = linalg.generic {{indexing_maps = [#map2, #map2], iterator_types = {par2}}} "
                f"ins(%linear_{index} : {y}) outs(%mm_empty_{index} : {y}){relu4} -> {y}"
            )
        return lines

    logits, rows, scalar = _t(b, 10), _t(b), _t()
    body = [
        "    %cst = arith.constant 0.000000e+00 : f32",
        "    %cst_0 = arith.constant -3.40282347E+38 : f32",
        "    %cst_1 = arith.constant 1.000000e+00 : f32",
        "    %c-100_i64 = arith.constant -100 : i64",
        *conv_block(1, "%x", 1, 28, 2, 6),
        *conv_block(2, "%pool_1", 6, 14, 0, 16),
        f"    %flat = tensor.collapse_shape %pool_2 [[0], [1, 2, 3]] : {_t(b, 16, 5, 5)} into {_t(b, 400)}",
        *linear(3, "%flat", 400, 120, True),
        *linear(4, "%hidden_3", 120, 84, True),
        *linear(5, "%hidden_4", 84, 10, False),
        # log-softmax over the classes
        f"    %max_empty = tensor.empty() : {rows}",
        f"    %max_init = linalg.fill ins(%cst_0 : f32) outs(%max_empty : {rows}) -> {rows}",
        f"    %max = linalg.generic {{indexing_maps = [#map2, #map4], iterator_types = {_iterators('parallel', 'reduction')}}} "
        f"ins(%linear_5 : {logits}) outs(%max_init : {rows}) {{\n"
        "    ^bb0(%in: f32, %out: f32):\n"
        "      %m = arith.maximumf %in, %out : f32\n"
        "      linalg.yield %m : f32\n"
        f"    }} -> {rows}",
        f"    %ls_empty = tensor.empty() : {logits}",
        f"    %shifted = linalg.generic {{indexing_maps = [#map2, #map4, #map2], iterator_types = {par2}}} "
        f"ins(%linear_5, %max : {logits}, {rows}) outs(%ls_empty : {logits}) {{\n"
        "    ^bb0(%in: f32, %in_0: f32, %out: f32):\n"
        "      %d = arith.subf %in, %in_0 : f32\n"
        "      linalg.yield %d : f32\n"
        f"    }} -> {logits}",
        f"    %exp = linalg.generic {{indexing_maps = [#map2, #map2], iterator_types = {par2}}} "
        f"ins(%shifted : {logits}) outs(%ls_empty : {logits}) {{\n"
        "    ^bb0(%in: f32, %out: f32):\n"
        "      %e = math.exp %in : f32\n"
        "      linalg.yield %e : f32\n"
        f"    }} -> {logits}",
        f"    %sum_init = linalg.fill ins(%cst : f32) outs(%max_empty : {rows}) -> {rows}",
        f"    %sum = linalg.generic {{indexing_maps = [#map2, #map4], iterator_types = {_iterators('parallel', 'reduction')}}} "
        f"ins(%exp : {logits}) outs(%sum_init : {rows}) {{\n"
        "    ^bb0(%in: f32, %out: f32):\n"
        "      %s = arith.addf %in, %out : f32\n"
        "      linalg.yield %s : f32\n"
        f"    }} -> {rows}",
        f"    %logp = linalg.generic {{indexing_maps = [#map2, #map4, #map2], iterator_types = {par2}}} "
        f"ins(%shifted, %sum : {logits}, {rows}) outs(%ls_empty : {logits}) {{\n"
        "    ^bb0(%in: f32, %in_0: f32, %out: f32):\n"
        "      %l = math.log %in_0 : f32\n"
        "      %d = arith.subf %in, %l : f32\n"
        "      linalg.yield %d : f32\n"
        f"    }} -> {logits}",
        # NLL loss: -logp[i, label[i]], mean over the labels that are not -100
        f"    %picked = linalg.generic {{indexing_maps = [#map5, #map5], iterator_types = {_iterators('parallel')}}} "
        f"ins(%labels : {labels}) outs(%max_empty : {rows}) {{\n"
        "    ^bb0(%in: i64, %out: f32):\n"
        "      %i = linalg.index 0 : index\n"
        "      %c = arith.index_cast %in : i64 to index\n"
        f"      %v = tensor.extract %logp[%i, %c] : {logits}\n"
        "      %keep = arith.cmpi ne, %in, %c-100_i64 : i64\n"
        "      %n = arith.negf %v : f32\n"
        "      %r = arith.select %keep, %n, %cst : f32\n"
        "      linalg.yield %r : f32\n"
        f"    }} -> {rows}",
        f"    %loss_empty = tensor.empty() : {scalar}",
        f"    %loss_init = linalg.fill ins(%cst : f32) outs(%loss_empty : {scalar}) -> {scalar}",
        f"    %total = linalg.generic {{indexing_maps = [#map5, #map6], iterator_types = {_iterators('reduction')}}} "
        f"ins(%picked : {rows}) outs(%loss_init : {scalar}) {{\n"
        "    ^bb0(%in: f32, %out: f32):\n"
        "      %s = arith.addf %in, %out : f32\n"
        "      linalg.yield %s : f32\n"
        f"    }} -> {scalar}",
        f"    %count = linalg.generic {{indexing_maps = [#map5, #map6], iterator_types = {_iterators('reduction')}}} "
        f"ins(%labels : {labels}) outs(%loss_init : {scalar}) {{\n"
        "    ^bb0(%in: i64, %out: f32):\n"
        "      %keep = arith.cmpi ne, %in, %c-100_i64 : i64\n"
        "      %one = arith.select %keep, %cst_1, %cst : f32\n"
        "      %s = arith.addf %one, %out : f32\n"
        "      linalg.yield %s : f32\n"
        f"    }} -> {scalar}",
        f"    %loss = linalg.generic {{indexing_maps = [#map7, #map7, #map7], iterator_types = []}} "
        f"ins(%total, %count : {scalar}, {scalar}) outs(%loss_empty : {scalar}) {{\n"
        "    ^bb0(%in: f32, %in_0: f32, %out: f32):\n"
        "      %q = arith.divf %in, %in_0 : f32\n"
        "      linalg.yield %q : f32\n"
        f"    }} -> {scalar}",
        f"    return %loss : {scalar}",
    ]
    maps = [
        "#map = affine_map<(d0, d1, d2, d3) -> (d1)>",
        "#map1 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>",
        "#map2 = affine_map<(d0, d1) -> (d0, d1)>",
        "#map3 = affine_map<(d0, d1) -> (d1)>",
        "#map4 = affine_map<(d0, d1) -> (d0)>",
        "#map5 = affine_map<(d0) -> (d0)>",
        "#map6 = affine_map<(d0) -> ()>",
        "#map7 = affine_map<() -> ()>",
    ]
    return "\n".join(maps) + f"\n  func.func @lenet(%x: {x}, %labels: {labels}, {params}) -> {scalar} {{\n" + "\n".join(body) + "\n  }\n"


def lenet_gradient(batch: int) -> str:
    """`@lenet_grad`: the loss's gradient with respect to the ten parameters."""
    x, labels = _t(batch, 1, 28, 28), _t(batch, element="i64")
    types = [_t(*shape) for shape in PARAMETER_SHAPES.values()]
    names = [f"%{name}" for name in PARAMETER_SHAPES]
    params = ", ".join(f"{n}: {t}" for n, t in zip(names, types))
    results = ", ".join(types)
    return (
        f"func.func @lenet_grad(%x: {x}, %labels: {labels}, {params}) -> ({results}) {{\n"
        f"  %g:10 = autodiff.grad @lenet(%x, %labels, {', '.join(names)}) {{wrt = array<i64: 2, 3, 4, 5, 6, 7, 8, 9, 10, 11>}}"
        f" : ({x}, {labels}, {results}) -> ({results})\n"
        f"  return {', '.join(f'%g#{k}' for k in range(10))} : {results}\n}}\n"
    )


def torch_loss(torch, x, labels, w1, b1, w2, b2, w3, b3, w4, b4, w5, b5):
    """The same loss in PyTorch (`torch` passed in: the example does not need it)."""
    functional = torch.nn.functional
    h = functional.max_pool2d(functional.relu(functional.conv2d(x, w1, b1, padding=2)), 2)
    h = functional.max_pool2d(functional.relu(functional.conv2d(h, w2, b2)), 2).flatten(1)
    h = functional.relu(functional.linear(h, w3, b3))
    h = functional.relu(functional.linear(h, w4, b4))
    return functional.nll_loss(functional.log_softmax(functional.linear(h, w5, b5), dim=1), labels)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("batch", type=int, nargs="?", default=64)
    batch = parser.parse_args().batch
    print(lenet(batch) + "\n" + lenet_gradient(batch))


if __name__ == "__main__":
    main()
