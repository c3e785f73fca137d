"""The batching rules of element reads and writes, tensor ops and data-dependent control
flow (rules/batching_tensor.py, rules/batching_control_flow.py) through the real CPU pipeline
and the GPU pipeline with its kernels emulated on the CPU, in f64: vmap over the inputs
(each example reads its own element, takes its own branch, loops its own number of times),
whole Jacobians (vmap of vjp: the backward's inserts, slices and loops batched over the
cotangents), per-example gradients (vmap of grad) and Hessians, against `torch.func` or a
per-example loop on the same inputs."""
import numpy as np
import pytest

import gradir

torch = pytest.importorskip("torch")

ELEMENTS = """
func.func private @f(%x: tensor<5xf64>, %k: tensor<f64>) -> (tensor<f64>, tensor<5xf64>, tensor<f64>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %e = tensor.extract %x[%c1] : tensor<5xf64>
  %kk = tensor.extract %k[] : tensor<f64>
  %ki = arith.fptosi %kk : f64 to i64
  %lo = arith.constant 0 : i64
  %hi = arith.constant 4 : i64
  %kc = arith.maxsi %ki, %lo : i64
  %kd = arith.minsi %kc, %hi : i64
  %j = arith.index_cast %kd : i64 to index
  %g = tensor.extract %x[%j] : tensor<5xf64>
  %p = arith.mulf %e, %g : f64
  %ins = tensor.insert %p into %x[%j] : tensor<5xf64>
  %s = math.sin %e : f64
  %ins2 = tensor.insert %s into %ins[%c2] : tensor<5xf64>
  %zero = arith.constant 0.0 : f64
  %positive = arith.cmpf ogt, %g, %zero : f64
  %b = scf.if %positive -> (tensor<f64>) {
    %twice = arith.addf %g, %g : f64
    %t = tensor.from_elements %twice : tensor<f64>
    scf.yield %t : tensor<f64>
  } else {
    %ex = math.exp %e : f64
    %t = tensor.from_elements %ex : tensor<f64>
    scf.yield %t : tensor<f64>
  }
  %pt = tensor.from_elements %p : tensor<f64>
  return %pt, %ins2, %b : tensor<f64>, tensor<5xf64>, tensor<f64>
}
"""


def elements_reference(x, k):
    """`@f` of ELEMENTS on one example (torch, so that jacrev differentiates it)."""
    j = min(max(int(k), 0), 4)
    e, g = x[1], x[j]
    p = e * g
    ins = x.clone()
    ins[j] = p
    ins[2] = torch.sin(e)
    b = g + g if g > 0 else torch.exp(e)
    return p, ins, b


WHILE = """
func.func private @f(%x: tensor<2xf64>, %w: tensor<2xf64>) -> tensor<2xf64> {
  %r = scf.while (%v = %x) : (tensor<2xf64>) -> tensor<2xf64> {
    %s = autodiff.sum %v : tensor<2xf64> -> tensor<f64>
    %e = tensor.extract %s[] : tensor<f64>
    %lim = arith.constant 10.0 : f64
    %c = arith.cmpf olt, %e, %lim : f64
    scf.condition(%c) %v : tensor<2xf64>
  } do {
  ^bb0(%v: tensor<2xf64>):
    %t = autodiff.tanh %v : tensor<2xf64>
    %d = autodiff.mul %v, %w : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
    %n = autodiff.add %d, %t : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
    scf.yield %n : tensor<2xf64>
  }
  return %r : tensor<2xf64>
}
"""


def while_reference(x, w):
    while x.sum() < 10:
        x = x * w + np.tanh(x)
    return x


SHAPES = """
func.func private @f(%x: tensor<2x3xf64>, %k: tensor<f64>) -> (tensor<3x5xf64>, tensor<12xf64>, tensor<2x3xf64>, tensor<4x3xf64>, tensor<3x2xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %pv = tensor.extract %k[] : tensor<f64>
  %padded = tensor.pad %x low[1, 0] high[0, 2] {
  ^bb0(%i: index, %j: index):
    %half = arith.constant 0.5 : f64
    tensor.yield %half : f64
  } : tensor<2x3xf64> to tensor<3x5xf64>
  %flat = tensor.collapse_shape %x [[0, 1]] : tensor<2x3xf64> into tensor<6xf64>
  %twice = tensor.concat dim(0) %flat, %flat : (tensor<6xf64>, tensor<6xf64>) -> tensor<12xf64>
  %e00 = tensor.extract %x[%c0, %c0] : tensor<2x3xf64>
  %e12 = tensor.extract %x[%c1, %c2] : tensor<2x3xf64>
  %prod = arith.mulf %e00, %pv : f64
  %elements = tensor.from_elements %e12, %prod, %e00, %pv, %e12, %e00 : tensor<2x3xf64>
  %splat = tensor.splat %e12 : tensor<2x3xf64>
  %sum = autodiff.add %elements, %splat : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %shape = arith.constant dense<[4, 3]> : tensor<2xindex>
  %r = tensor.reshape %twice(%shape) : (tensor<12xf64>, tensor<2xindex>) -> tensor<4x3xf64>
  %wide = tensor.expand_shape %x [[0], [1, 2]] output_shape [2, 3, 1] : tensor<2x3xf64> into tensor<2x3x1xf64>
  %back = tensor.collapse_shape %wide [[0], [1, 2]] : tensor<2x3x1xf64> into tensor<2x3xf64>
  %t = autodiff.transpose %back {permutation = array<i64: 1, 0>} : tensor<2x3xf64> -> tensor<3x2xf64>
  %cast = tensor.cast %t : tensor<3x2xf64> to tensor<3x2xf64>
  return %padded, %twice, %sum, %r, %cast : tensor<3x5xf64>, tensor<12xf64>, tensor<2x3xf64>, tensor<4x3xf64>, tensor<3x2xf64>
}
"""


def shapes_reference(x, k):
    padded = torch.nn.functional.pad(x, (0, 2, 1, 0), value=0.5)
    flat = x.reshape(6)
    twice = torch.cat([flat, flat])
    e00, e12 = x[0, 0], x[1, 2]
    elements = torch.stack([e12, e00 * k, e00, k, e12, e00]).reshape(2, 3)
    return padded, twice, elements + e12, twice.reshape(4, 3), x.T


GATHER = """
func.func private @f(%x: tensor<4x3xf64>, %k: tensor<2xf64>) -> (tensor<2x1x3xf64>, tensor<2x3xf64>, tensor<4x3xf64>, tensor<2x1x3xf64>) {
  %fixed = arith.constant dense<[[3], [1]]> : tensor<2x1xindex>
  %g = tensor.gather %x[%fixed] gather_dims([0]) unique : (tensor<4x3xf64>, tensor<2x1xindex>) -> tensor<2x1x3xf64>
  %empty = tensor.empty() : tensor<2x1xi64>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%k : tensor<2xf64>) outs(%empty : tensor<2x1xi64>) {
  ^bb0(%v: f64, %o: i64):
    %i = arith.fptosi %v : f64 to i64
    %lo = arith.constant 0 : i64
    %hi = arith.constant 3 : i64
    %a = arith.maxsi %i, %lo : i64
    %b = arith.minsi %a, %hi : i64
    linalg.yield %b : i64
  } -> tensor<2x1xi64>
  %h = tensor.gather %x[%rows] gather_dims([0]) : (tensor<4x3xf64>, tensor<2x1xi64>) -> tensor<2x3xf64>
  %s = autodiff.mul %h, %h : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  %into = tensor.scatter %s into %x[%fixed] scatter_dims([0]) unique : (tensor<2x3xf64>, tensor<4x3xf64>, tensor<2x1xindex>) -> tensor<4x3xf64>
  %kept = tensor.gather %x[%rows] gather_dims([0]) : (tensor<4x3xf64>, tensor<2x1xi64>) -> tensor<2x1x3xf64>
  return %g, %h, %into, %kept : tensor<2x1x3xf64>, tensor<2x3xf64>, tensor<4x3xf64>, tensor<2x1x3xf64>
}
"""


def gather_reference(x, k):
    rows = [min(max(int(v), 0), 3) for v in k]
    h = x[rows]
    into = x.clone()
    into[[3, 1]] = h * h
    return x[[3, 1]].reshape(2, 1, 3), h, into, h.reshape(2, 1, 3)


AFFINE = """
func.func private @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %r = affine.for %i = 0 to 4 iter_args(%acc = %x) -> (tensor<3xf64>) {
    %t = autodiff.tanh %acc : tensor<3xf64>
    %n = autodiff.add %t, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    affine.yield %n : tensor<3xf64>
  }
  return %r : tensor<3xf64>
}
"""


def affine_reference(x):
    acc = x
    for _ in range(4):
        acc = torch.tanh(acc) + x
    return acc


def entry(source, name, inputs, outputs, op):
    """`source` plus a public `@name` holding one autodiff entry op `op` (its text,
    `%a0..` the arguments)."""
    arguments = ", ".join(f"%a{i}: {t}" for i, t in enumerate(inputs))
    names = ", ".join(f"%a{i}" for i in range(len(inputs)))
    results = ", ".join(f"%r#{i}" for i in range(len(outputs))) if len(outputs) > 1 else "%r"
    count = f":{len(outputs)}" if len(outputs) > 1 else ""
    signature = f"({', '.join(inputs)}) -> ({', '.join(outputs)})"
    return source + f"""
func.func @{name}({arguments}) -> ({', '.join(outputs)}) {{
  %r{count} = {op.format(args=names)} : {signature}
  return {results} : {', '.join(outputs)}
}}
"""


def vmap_op(size, in_axes, out_axes, callee="f"):
    axes = lambda values: ", ".join(map(str, values))  # noqa: E731
    return (f"autodiff.vmap @{callee}" + "({args}) {{in_axes = array<i64: " + axes(in_axes) + ">, out_axes = array<i64: "
            + axes(out_axes) + ">, size = " + str(size) + " : i64}}")


def run(source, name, arguments, target):
    """`@name` of `source` on `arguments`: compiled for the CPU, or for the GPU with its
    kernels run as CPU loops."""
    if target == "cpu":
        return gradir.compile(source).call(name, *arguments)
    return gradir.compile(source, target="cuda").emulate(name, *arguments)


def close(actual, expected):
    expected = expected.detach().numpy() if isinstance(expected, torch.Tensor) else expected
    np.testing.assert_allclose(actual, expected, rtol=1e-10, atol=1e-12)


def stacked(function, *batches):
    """`function` on each example (torch tensors), results stacked along a new first axis."""
    results = [function(*(torch.tensor(b[i]) for b in batches)) for i in range(len(batches[0]))]
    if not isinstance(results[0], tuple):
        return torch.stack(results)
    return tuple(torch.stack(parts) for parts in zip(*results))


TARGETS = ["cpu", "gpu-emulated"]

ELEMENT_TYPES = (["tensor<5xf64>", "tensor<f64>"], ["tensor<f64>", "tensor<5xf64>", "tensor<f64>"])
ELEMENT_INPUTS = (
    np.array([[0.3, -0.7, 1.1, 0.4, -1.3], [1.2, 0.5, -0.2, 0.9, 0.8], [-0.4, 1.5, 0.6, -0.9, 0.2],
              [0.7, -1.1, 0.3, 1.4, -0.5]]),
    np.array([0.5, 3.7, -2.0, 9.0]),  # rows 0, 3, 0 (clamped) and 4 (clamped): both branches
)


def batched_types(types, size):
    return [t.replace("tensor<", f"tensor<{size}x") for t in types]


@pytest.mark.parametrize("target", TARGETS)
def test_each_example_reads_writes_and_branches_on_its_own_element(target):
    """vmap over x and k: the index and the branch depend on the example."""
    (inputs, outputs), (xs, ks) = ELEMENT_TYPES, ELEMENT_INPUTS
    source = entry(ELEMENTS, "main", batched_types(inputs, 4), batched_types(outputs, 4),
                   vmap_op(4, [0, 0], [0, 0, 0]))
    actual = run(source, "main", [xs, ks], target)
    expected = stacked(elements_reference, xs, ks)
    for value, reference in zip(actual, expected):
        close(value, reference)


@pytest.mark.parametrize("target", ["cpu"])
def test_elements_at_an_unbatched_index_and_the_jacobian_through_them(target):
    """vmap over x alone (k shared: one index for all, a slice per lane), and the whole
    Jacobian of @f (reverse: the backward's inserts and extracts batched over cotangents).
    CPU only: the shared index is read from k's buffer by host code, which the GPU
    backend refuses (it reads device data on the host only for a branch condition)."""
    (inputs, outputs), (xs, ks) = ELEMENT_TYPES, ELEMENT_INPUTS
    k = ks[1:2].reshape(())
    source = entry(ELEMENTS, "main", [batched_types(inputs, 4)[0], inputs[1]], batched_types(outputs, 4),
                   vmap_op(4, [0, -1], [0, 0, 0]))
    jacobian_types = ["tensor<5xf64>", "tensor<5x5xf64>", "tensor<5xf64>"]
    source = entry(source, "jacobian", inputs, jacobian_types,
                   'autodiff.jacobian @f({args}) {{wrt = array<i64: 0>, mode = "rev"}}')
    actual = run(source, "main", [xs, k], target)
    expected = stacked(lambda x: elements_reference(x, torch.tensor(k)), xs)
    for value, reference in zip(actual, expected):
        close(value, reference)
    for x in xs:
        jacobians = run(source, "jacobian", [x, k], target)
        references = torch.func.jacrev(lambda v: elements_reference(v, torch.tensor(k)))(torch.tensor(x))
        for value, reference in zip(jacobians, references):
            close(value, reference)


@pytest.mark.parametrize("target", ["cpu"])  # the GPU backend has no scf.while on the host
def test_while_runs_until_every_example_stopped_and_stopped_examples_keep_their_state(target):
    """Lanes stop after 0, 2 and 4 iterations; an unbatched w first, then batched too."""
    xs = np.array([[20.0, 1.0], [0.1, 0.2], [3.0, 4.0]])
    w = np.array([1.5, 1.2])
    source = entry(WHILE, "main", ["tensor<3x2xf64>", "tensor<2xf64>"], ["tensor<3x2xf64>"],
                   vmap_op(3, [0, -1], [0]))
    close(run(source, "main", [xs, w], target)[0], np.stack([while_reference(x, w) for x in xs]))
    ws = np.array([[1.5, 1.2], [2.0, 1.1], [1.1, 1.3]])
    source = entry(WHILE, "main", ["tensor<3x2xf64>", "tensor<3x2xf64>"], ["tensor<3x2xf64>"],
                   vmap_op(3, [0, 0], [0]))
    close(run(source, "main", [xs, ws], target)[0], np.stack([while_reference(x, w) for x, w in zip(xs, ws)]))


SHAPE_TYPES = (["tensor<2x3xf64>", "tensor<f64>"],
               ["tensor<3x5xf64>", "tensor<12xf64>", "tensor<2x3xf64>", "tensor<4x3xf64>", "tensor<3x2xf64>"])


@pytest.mark.parametrize("target", TARGETS)
def test_tensor_shape_ops_match_torch_vmap(target):
    """pad, collapse/expand_shape, concat, from_elements, splat, reshape, cast on a batch."""
    rng = np.random.default_rng(3)
    xs, ks = rng.standard_normal((3, 2, 3)), rng.standard_normal(3)
    inputs, outputs = SHAPE_TYPES
    source = entry(SHAPES, "main", batched_types(inputs, 3), batched_types(outputs, 3),
                   vmap_op(3, [0, 0], [0] * 5))
    actual = run(source, "main", [xs, ks], target)
    expected = torch.func.vmap(shapes_reference)(torch.tensor(xs), torch.tensor(ks))
    for value, reference in zip(actual, expected):
        close(value, reference)


@pytest.mark.parametrize("target", ["cpu"])
def test_tensor_shape_ops_jacobian_matches_jacrev(target):
    """Their whole Jacobian (vmap of vjp: the backward's slices, pads and concats batched
    over the cotangents) against torch.func.jacrev. CPU only: the unbatched primal reads
    elements of k on the host, which the GPU backend refuses."""
    rng = np.random.default_rng(6)
    x, k = rng.standard_normal((2, 3)), rng.standard_normal(())
    inputs, outputs = SHAPE_TYPES
    jacobian_types = []  # result-major: d result / d x, then d result / d k
    for output in outputs:
        jacobian_types += [output.replace(">", "x2x3xf64>").replace("xf64x", "x"), output]
    source = entry(SHAPES, "jacobian", inputs, jacobian_types,
                   'autodiff.jacobian @f({args}) {{wrt = array<i64: 0, 1>, mode = "rev"}}')
    jacobians = run(source, "jacobian", [x, k], target)
    references = torch.func.jacrev(shapes_reference, argnums=(0, 1))(torch.tensor(x), torch.tensor(k))
    for index, reference in enumerate(references):
        close(jacobians[2 * index], reference[0])
        close(jacobians[2 * index + 1], reference[1])


@pytest.mark.parametrize("target", TARGETS)
def test_gather_and_scatter_at_fixed_and_per_example_rows(target):
    xs = np.random.default_rng(4).standard_normal((3, 4, 3))
    ks = np.array([[0.2, 3.5], [2.9, -1.0], [1.5, 1.2]])
    inputs = ["tensor<4x3xf64>", "tensor<2xf64>"]
    outputs = ["tensor<2x1x3xf64>", "tensor<2x3xf64>", "tensor<4x3xf64>", "tensor<2x1x3xf64>"]
    source = entry(GATHER, "main", batched_types(inputs, 3), batched_types(outputs, 3),
                   vmap_op(3, [0, 0], [0, 0, 0, 0]))
    actual = run(source, "main", [xs, ks], target)
    for value, reference in zip(actual, stacked(gather_reference, xs, ks)):
        close(value, reference)
    # x alone batched: the coordinates are the same for every lane
    source = entry(GATHER, "main", [batched_types(inputs, 3)[0], inputs[1]], batched_types(outputs, 3),
                   vmap_op(3, [0, -1], [0, 0, 0, 0]))
    actual = run(source, "main", [xs, ks[0]], target)
    for value, reference in zip(actual, stacked(lambda x: gather_reference(x, ks[0]), xs)):
        close(value, reference)


@pytest.mark.parametrize("target", TARGETS)
def test_affine_for_batches_as_its_scf_for(target):
    xs = np.random.default_rng(5).standard_normal((4, 3))
    source = entry(AFFINE, "main", ["tensor<4x3xf64>"], ["tensor<4x3xf64>"], vmap_op(4, [0], [0]))
    source = entry(source, "jacobian", ["tensor<3xf64>"], ["tensor<3x3xf64>"],
                   'autodiff.jacobian @f({args}) {{wrt = array<i64: 0>, mode = "rev"}}')
    close(run(source, "main", [xs], target)[0], torch.func.vmap(affine_reference)(torch.tensor(xs)))
    close(run(source, "jacobian", [xs[1]], target)[0], torch.func.jacrev(affine_reference)(torch.tensor(xs[1])))


WHILE_LOSS = WHILE + """
func.func private @loss(%x: tensor<2xf64>, %w: tensor<2xf64>) -> tensor<f64> {
  %r = func.call @f(%x, %w) : (tensor<2xf64>, tensor<2xf64>) -> tensor<2xf64>
  %s = autodiff.sum %r : tensor<2xf64> -> tensor<f64>
  return %s : tensor<f64>
}
func.func private @grads(%x: tensor<2xf64>, %w: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>) {
  %g:2 = autodiff.grad @loss(%x, %w) {wrt = array<i64: 0, 1>} : (tensor<2xf64>, tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>)
  return %g#0, %g#1 : tensor<2xf64>, tensor<2xf64>
}
"""


def test_per_example_gradients_through_a_while_loop_match_torch():
    """vmap of grad through scf.while: each example's backward undoes as many iterations
    as its forward made (the backward's scf.for runs to the largest count, an example past
    its own keeping its gradients; its tape row is a gather at the lane's iteration).
    One thread: the tape's dynamic size makes the CPU backend emit parallel loops, whose
    OpenMP runtime this test does not need."""
    xs = np.array([[20.0, 1.0], [0.1, 0.2], [3.0, 4.0], [1.0, -0.5]])
    w = np.array([1.5, 1.2])
    source = entry(WHILE_LOSS, "main", ["tensor<4x2xf64>", "tensor<2xf64>"], ["tensor<4x2xf64>", "tensor<4x2xf64>"],
                   vmap_op(4, [0, -1], [0, 0], callee="grads"))
    actual = gradir.compile(source, num_threads=1).main(xs, w)

    def loss(x, w):
        while x.sum() < 10:
            x = x * w + torch.tanh(x)
        return x.sum()

    expected = stacked(lambda x: torch.func.grad(loss, argnums=(0, 1))(x, torch.tensor(w)), xs)
    for value, reference in zip(actual, expected):
        close(value, reference)


FOR_TO_DATA = """
func.func private @f(%x: tensor<3xf64>, %n: tensor<f64>) -> tensor<3xf64> {
  %nn = tensor.extract %n[] : tensor<f64>
  %ni = arith.fptosi %nn : f64 to i64
  %count = arith.index_cast %ni : i64 to index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %count step %c1 iter_args(%v = %x) -> (tensor<3xf64>) {
    %t = autodiff.tanh %v : tensor<3xf64>
    %s = autodiff.add %t, %x : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    scf.yield %s : tensor<3xf64>
  }
  return %r : tensor<3xf64>
}
"""


@pytest.mark.parametrize("target", ["cpu", "cuda"])
def test_for_loop_to_a_per_example_count(target):
    """scf.for whose upper bound depends on the example (0, 1, 3 and 5 iterations): it runs
    to the largest, each example keeping its state past its own count. On the GPU the
    largest count is read back to the host (`map_to_gpu._scalars_across`)."""
    xs = np.random.default_rng(7).standard_normal((4, 3))
    ns = np.array([0.0, 1.0, 3.0, 5.0])
    source = entry(FOR_TO_DATA, "main", ["tensor<4x3xf64>", "tensor<4xf64>"], ["tensor<4x3xf64>"],
                   vmap_op(4, [0, 0], [0]))

    def reference(x, n):
        v = x
        for _ in range(int(n)):
            v = torch.tanh(v) + x
        return v

    close(run(source, "main", [xs, ns], target)[0], stacked(reference, xs, ns))


def _vmapped(name):
    """`main`: a vmap of one of the programs above over all its arguments."""
    if name == "elements":
        inputs, outputs = ELEMENT_TYPES
        return entry(ELEMENTS, "main", batched_types(inputs, 4), batched_types(outputs, 4),
                     vmap_op(4, [0, 0], [0, 0, 0])), [0]
    if name == "shapes":
        inputs, outputs = SHAPE_TYPES
        return entry(SHAPES, "main", batched_types(inputs, 3), batched_types(outputs, 3),
                     vmap_op(3, [0, 0], [0] * 5)), None
    if name == "gather":
        return entry(GATHER, "main", batched_types(["tensor<4x3xf64>", "tensor<2xf64>"], 3),
                     batched_types(["tensor<2x1x3xf64>", "tensor<2x3xf64>", "tensor<4x3xf64>", "tensor<2x1x3xf64>"], 3),
                     vmap_op(3, [0, 0], [0, 0, 0, 0])), [0]
    return entry(FOR_TO_DATA, "main", ["tensor<4x3xf64>", "tensor<4xf64>"], ["tensor<4x3xf64>"],
                 vmap_op(4, [0, 0], [0])), [0]


@pytest.mark.parametrize("name", ["elements", "shapes", "gather", "for-to-count"])
def test_batched_functions_pass_gradcheck(name):
    """Grad of vmap: the batched functions (slices, gathers, scatters, per-lane selects,
    a loop to the largest count) differentiated in both modes, against central differences."""
    source, wrt = _vmapped(name)
    result = gradir.gradcheck(source, "main", wrt=wrt)
    assert result.ok, result.report()


def test_grad_of_a_batched_while_loop_matches_torch():
    """Reverse mode through the batched scf.while (state and lane conditions carried, the
    stopped lanes' state kept by a select): the gradient of the batch's sum."""
    source = entry(WHILE, "main", ["tensor<3x2xf64>", "tensor<2xf64>"], ["tensor<3x2xf64>"],
                   vmap_op(3, [0, -1], [0])) + """
func.func private @total(%a: tensor<3x2xf64>, %w: tensor<2xf64>) -> tensor<f64> {
  %r = func.call @main(%a, %w) : (tensor<3x2xf64>, tensor<2xf64>) -> tensor<3x2xf64>
  %s = autodiff.sum %r : tensor<3x2xf64> -> tensor<f64>
  return %s : tensor<f64>
}
func.func @gradient(%a: tensor<3x2xf64>, %w: tensor<2xf64>) -> (tensor<3x2xf64>, tensor<2xf64>) {
  %g:2 = autodiff.grad @total(%a, %w) {wrt = array<i64: 0, 1>} : (tensor<3x2xf64>, tensor<2xf64>) -> (tensor<3x2xf64>, tensor<2xf64>)
  return %g#0, %g#1 : tensor<3x2xf64>, tensor<2xf64>
}
"""
    xs, w = np.array([[20.0, 1.0], [0.1, 0.2], [3.0, 4.0]]), np.array([1.5, 1.2])
    actual = gradir.compile(source, num_threads=1).gradient(xs, w)

    def total(xs, w):
        results = []
        for x in xs:
            while x.sum() < 10:
                x = x * w + torch.tanh(x)
            results.append(x)
        return torch.stack(results).sum()

    expected = torch.func.grad(total, argnums=(0, 1))(torch.tensor(xs), torch.tensor(w))
    for value, reference in zip(actual, expected):
        close(value, reference)


TWO_LOOPS_OVER_ONE_TENSOR = """
func.func @f(%Ls: tensor<3x3x3xf64>, %x: tensor<3xf64>) -> tensor<f64> {
  %zero = arith.constant 0.0 : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %a = scf.for %ik = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
    %L = tensor.extract_slice %Ls[%ik, 0, 0] [1, 3, 3] [1, 1, 1] : tensor<3x3x3xf64> to tensor<3x3xf64>
    %v = tensor.extract %L[%c0, %c1] : tensor<3x3xf64>
    %xi = tensor.extract %x[%ik] : tensor<3xf64>
    %p = arith.mulf %v, %xi : f64
    %e = math.exp %p : f64
    %n = arith.addf %acc, %e : f64
    scf.yield %n : f64
  }
  %b = scf.for %ik = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
    %L = tensor.extract_slice %Ls[%ik, 0, 0] [1, 3, 3] [1, 1, 1] : tensor<3x3x3xf64> to tensor<3x3xf64>
    %v = tensor.extract %L[%c1, %c0] : tensor<3x3xf64>
    %s = arith.mulf %v, %v : f64
    %n = arith.addf %acc, %s : f64
    scf.yield %n : f64
  }
  %t = arith.addf %a, %b : f64
  %r = tensor.from_elements %t : tensor<f64>
  return %r : tensor<f64>
}
func.func @vjp(%Ls: tensor<3x3x3xf64>, %x: tensor<3xf64>, %ct: tensor<f64>) -> tensor<3x3x3xf64> {
  %v, %d = autodiff.vjp @f(%Ls, %x, %ct) {wrt = array<i64: 0>} : (tensor<3x3x3xf64>, tensor<3xf64>, tensor<f64>) -> (tensor<f64>, tensor<3x3x3xf64>)
  return %d : tensor<3x3x3xf64>
}
"""


@pytest.mark.parametrize("in_axes", [(0, 0, 0), (0, None, 0), (0, 0, None)])
def test_per_example_gradients_through_two_loops_over_one_tensor(in_axes):
    """Two loops reading elements of `Ls` with f64 states: their reverses both add into
    `Ls`'s gradient, each iteration a slice inserted into a fresh zero tensor. MLIR 22's
    `eliminate-empty-tensors` made the CPU write that zero tensor in place across
    iterations (slice i counted i + 1 times: cpu_pipeline.BUFFER_PIPELINE)."""
    rng = np.random.default_rng(1)
    batch = 3
    full = (rng.standard_normal((batch, 3, 3, 3)), rng.standard_normal((batch, 3)), rng.standard_normal(batch))
    arguments = [a if axis == 0 else a[0] for a, axis in zip(full, in_axes)]
    compiled = gradir.compile(TWO_LOOPS_OVER_ONE_TENSOR)
    expected = np.stack([
        compiled.vjp(*(a[i] if axis == 0 else a for a, axis in zip(arguments, in_axes))) for i in range(batch)
    ])
    got = gradir.vmap(TWO_LOOPS_OVER_ONE_TENSOR, "vjp", in_axes=in_axes)(*arguments)
    assert np.max(np.abs(expected)) > 1.0
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


DIM_AS_A_BOUND = """
func.func @f(%x: tensor<3xf64>) -> tensor<1xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<3xf64>
  %zero = arith.constant 0.0 : f64
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %zero) -> (f64) {
    %e = tensor.extract %x[%i] : tensor<3xf64>
    %p = arith.mulf %a, %e : f64
    %q = math.sin %e : f64
    %t = arith.addf %p, %q : f64
    scf.yield %t : f64
  }
  %r = tensor.from_elements %s : tensor<1xf64>
  return %r : tensor<1xf64>
}
"""
"""A loop to `tensor.dim` of a batched tensor (as ADBench Hand bounds its loop over points)."""


@pytest.mark.parametrize("target", ["cpu", "cuda"])
def test_the_static_extent_of_a_batched_tensor_is_the_same_for_every_example(target):
    xs = np.random.default_rng(3).uniform(-1, 1, (4, 3))
    source = entry(DIM_AS_A_BOUND, "main", ["tensor<4x3xf64>"], ["tensor<4x1xf64>"], vmap_op(4, [0], [0]))

    def reference(x):
        total = 0.0
        for e in x:
            total = total * e + np.sin(e)
        return total

    close(run(source, "main", [xs], target)[0], np.array([[reference(x)] for x in xs]))


SIZED_BY_THE_EXAMPLE = """
func.func @f(%x: tensor<3xf64>) -> tensor<1xf64> {
  %c0 = arith.constant 0 : index
  %v = tensor.extract %x[%c0] : tensor<3xf64>
  %k = arith.fptosi %v : f64 to i64
  %n = arith.index_cast %k : i64 to index
  %e = tensor.empty(%n) : tensor<?xf64>
  USE
  %r = tensor.from_elements %f : tensor<1xf64>
  return %r : tensor<1xf64>
}
"""
"""A tensor of x[0] elements: each example's size is its own (2 and 5 below)."""

WHOLE_USES = {
    "dim": """%d = tensor.dim %e, %c0 : tensor<?xf64>
  %i = arith.index_cast %d : index to i64
  %f = arith.sitofp %i : i64 to f64""",
    # counting the elements by summing ones: said 5 for both examples, with no error
    "sum": """%one = arith.constant 1.0 : f64
  %ones = linalg.fill ins(%one : f64) outs(%e : tensor<?xf64>) -> tensor<?xf64>
  %z = arith.constant dense<0.0> : tensor<f64>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
      iterator_types = ["reduction"]} ins(%ones : tensor<?xf64>) outs(%z : tensor<f64>) {
  ^bb0(%a: f64, %b: f64):
    %t = arith.addf %a, %b : f64
    linalg.yield %t : f64
  } -> tensor<f64>
  %f = tensor.extract %s[] : tensor<f64>""",
}


@pytest.mark.parametrize("use", WHOLE_USES)
def test_a_tensor_sized_by_the_example_is_never_used_whole(use):
    """The batched tensor holds the largest example's size: a `tensor.dim` of it, or a
    reduction over it, would give 5 for both examples. Only reads and writes at indices
    (a backward's tape) may use it."""
    source = SIZED_BY_THE_EXAMPLE.replace("USE", WHOLE_USES[use])
    assert [gradir.compile(source, target="cpu").call("f", np.array([v, 0.0, 0.0]))[0][0] for v in (2.0, 5.0)] == [2, 5]
    name = {"dim": "tensor.dim", "sum": "linalg.fill"}[use]
    refusal = rf"vmap of '{name}' is not supported \(it takes whole a tensor whose size depends on the example"
    with pytest.raises(gradir.GradirError, match=refusal):
        gradir.vmap(source, "f")(np.array([[2.0, 0.0, 0.0], [5.0, 0.0, 0.0]]))


PAD_WITH_AN_ELEMENT = """
func.func @f(%x: tensor<3xf64>, %p: tensor<f64>) -> tensor<5xf64> {
  %v = tensor.extract %p[] : tensor<f64>
  %r = tensor.pad %x low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %v : f64
  } : tensor<3xf64> to tensor<5xf64>
  %s = arith.mulf %r, %r : tensor<5xf64>
  return %s : tensor<5xf64>
}
"""
"""A pad whose value is an element of a 0-d argument (StableHLO's reduce_window pads with its
init so): batched, each lane pads with its own value."""


@pytest.mark.parametrize("in_axes", [(0, 0), (None, 0), (0, None)], ids=["both", "value", "source"])
def test_vmap_of_a_pad_whose_value_depends_on_the_batch(in_axes):
    rng = np.random.default_rng(7)
    x = rng.normal(size=(4, 3) if in_axes[0] == 0 else 3)
    p = rng.normal(size=4) if in_axes[1] == 0 else np.array(0.5)
    got = gradir.vmap(PAD_WITH_AN_ELEMENT, "f", in_axes=in_axes)(x, p)
    want = np.stack([np.pad(x[b] if in_axes[0] == 0 else x, 1, constant_values=p[b] if in_axes[1] == 0 else p) ** 2
                     for b in range(4)])  # fmt: skip
    np.testing.assert_allclose(got, want, rtol=1e-12)


BRANCHES_OF_TWO_SIZES = """
func.func @pick(%x: tensor<3xf64>, %n: index) -> tensor<f64> {
  %c0 = arith.constant 0 : index
  %v = tensor.extract %x[%c0] : tensor<3xf64>
  %zero = arith.constant 0.0 : f64
  %positive = arith.cmpf ogt, %v, %zero : f64
  %r = scf.if %positive -> (tensor<?xf64>) {
    %s = tensor.extract_slice %x[0] [%n] [1] : tensor<3xf64> to tensor<?xf64>
    scf.yield %s : tensor<?xf64>
  } else {
    %a = tensor.cast %x : tensor<3xf64> to tensor<?xf64>
    scf.yield %a : tensor<?xf64>
  }
  %z = arith.constant dense<0.0> : tensor<f64>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
      iterator_types = ["reduction"]} ins(%r : tensor<?xf64>) outs(%z : tensor<f64>) {
  ^bb0(%a: f64, %b: f64):
    %t = arith.addf %a, %b : f64
    linalg.yield %t : f64
  } -> tensor<f64>
  return %sum : tensor<f64>
}
"""
"""The sum of the first `n` elements where x[0] > 0, else of all 3: branches of two sizes."""


def test_branches_of_different_run_time_sizes_are_a_run_time_error():
    """On a batched condition both branches run for every example and a per-lane select
    picks each one's: of sizes 2 and 3 it read the first 3 of both, so every example summed
    all three elements (6 for [1, 2, 3], not 3), silently. One batched tensor cannot hold
    two sizes: the select checks them at run time."""
    pick = gradir.compile(BRANCHES_OF_TWO_SIZES, target="cpu")
    examples = np.array([[1.0, 2.0, 3.0], [-1.0, 2.0, 3.0]])
    assert [pick.call("pick", x, 2)[0] for x in examples] == [3.0, 4.0]
    batched = gradir.vmap(BRANCHES_OF_TWO_SIZES, "pick", in_axes=(0, None))
    differ = "vmap: a value of dynamic shape whose size differs between examples"
    with pytest.raises(gradir.RunTimeCheckError, match=differ):
        batched(examples, 2)
    # Branches of the same size: no error, each example its own branch.
    np.testing.assert_array_equal(batched(examples, 3), [6.0, 4.0])


SCALAR_READ_TWICE = """
func.func @f(%t: tensor<f64>, %x: tensor<3xf64>) -> tensor<3xf64> {
  %s = tensor.extract %t[] : tensor<f64>
  %e = tensor.empty() : tensor<3xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
      iterator_types = ["parallel"]} ins(%x : tensor<3xf64>) outs(%e : tensor<3xf64>) {
  ^bb0(%a: f64, %o: f64):
    %u = tensor.extract %t[] : tensor<f64>
    %p = arith.mulf %a, %s : f64
    %q = arith.addf %p, %u : f64
    linalg.yield %q : f64
  } -> tensor<3xf64>
  return %r : tensor<3xf64>
}
"""
"""A body reading a batched 0-d tensor both as a scalar taken outside it and by its own
`tensor.extract`: batched, the two are one value (the 0-d tensor is its element's batched
scalar), and the scalar's replacement inside the body replaced the tensor read too (an
invalid `tensor.extract` of an f64; found by test_standard_programs_vmap.py, seeds 506 and
620)."""


def test_a_body_reading_a_batched_scalar_two_ways_agrees_with_a_loop():
    f = gradir.compile(SCALAR_READ_TWICE, target="cpu")
    t, x = np.array([0.5, -1.5, 2.0]), np.array([1.0, 2.0, 3.0])
    want = np.stack([f.call("f", np.array(v), x)[0] for v in t])
    np.testing.assert_array_equal(gradir.vmap(SCALAR_READ_TWICE, "f", in_axes=(0, None))(t, x), want)
    np.testing.assert_array_equal(want, t[:, None] * x + t[:, None])
