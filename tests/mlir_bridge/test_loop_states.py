"""`scf.for` and `scf.while` loops whose states trade places (`loop_states`): each state
updates one buffer in place, and a yielded value held in another state's buffer is copied
out first.

Without the copies one-shot bufferization rejected these loops ("cannot avoid RaW
conflict"): writing `%b` into `%a`'s buffer destroys `%a` before it reaches `%b`'s.
Every loop runs on the CPU against the same recurrence in NumPy, for 0, 1, 2 and 5
iterations (an odd count catches a swap that happens only once).
"""
import numpy as np
import pytest

from gradir.cpu_backend.cpu_runtime import CpuExecutable
from gradir.gpu_backend.cuda_program import CudaProgram

T = "tensor<4xf32>"
HEADER = f"""
func.func @loop(%x: {T}, %y: {T}, %z: {T}, %n: index) -> ({T}, {T}, {T}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ten = arith.constant 10.0 : f32
  %a, %b, %c = scf.for %i = %c0 to %n step %c1 iter_args(%p = %x, %q = %y, %r = %z) -> ({T}, {T}, {T}) {{
"""
FOOTER = f"""
  }}
  return %a, %b, %c : {T}, {T}, {T}
}}
"""
YIELD = f"{T}, {T}, {T}"


def with_first(t: np.ndarray, value: float) -> np.ndarray:
    t = t.copy()
    t[0] = value
    return t


# name -> (loop body, the same iteration in NumPy)
LOOPS = {
    "swap": (f"scf.yield %q, %p, %r : {YIELD}", lambda p, q, r: (q, p, r)),
    "rotate_three": (f"scf.yield %q, %r, %p : {YIELD}", lambda p, q, r: (q, r, p)),
    "fibonacci": (
        f"%s = arith.addf %p, %q : {T}\n scf.yield %q, %s, %r : {YIELD}",
        lambda p, q, r: (q, p + q, r),
    ),
    "one_state_twice": (f"scf.yield %p, %p, %q : {YIELD}", lambda p, q, r: (p, p, q)),
    "computed_in_the_other_buffer": (
        f"%s = arith.subf %q, %r : {T}\n"
        f"%p2 = tensor.insert %ten into %p[%c0] : {T}\n"
        f"scf.yield %s, %p2, %r : {YIELD}",
        lambda p, q, r: (q - r, with_first(p, 10.0), r),
    ),
    "slice_of_the_other_state": (
        f"%head = tensor.extract_slice %q[0] [2] [1] : {T} to tensor<2xf32>\n"
        f"%p2 = tensor.insert_slice %head into %p[2] [2] [1] : tensor<2xf32> into {T}\n"
        f"scf.yield %q, %p2, %r : {YIELD}",
        lambda p, q, r: (q, np.concatenate([p[:2], q[:2]]), r),
    ),
    "chosen_by_a_branch": (
        f"%odd = arith.remui %i, %c2 : index\n"
        f"%is_odd = arith.cmpi eq, %odd, %c1 : index\n"
        f"%chosen = scf.if %is_odd -> ({T}) {{\n  scf.yield %p : {T}\n"
        f"}} else {{\n  scf.yield %r : {T}\n}}\n"
        f"%sum = arith.addf %q, %r : {T}\n"
        f"scf.yield %sum, %chosen, %r : {YIELD}",
        None,  # depends on the iteration number: see `reference`
    ),
}


def reference(name: str, x, y, z, n: int):
    p, q, r = x, y, z
    for i in range(n):
        if name == "chosen_by_a_branch":
            p, q, r = q + r, (p if i % 2 == 1 else r), r
        else:
            p, q, r = LOOPS[name][1](p, q, r)
    return p, q, r


def program(name: str) -> str:
    body = LOOPS[name][0]
    if name == "chosen_by_a_branch":
        body = "%c2 = arith.constant 2 : index\n" + body
    return HEADER + body + FOOTER


INPUTS = (
    np.arange(4, dtype=np.float32),
    np.arange(4, dtype=np.float32) + 10,
    -np.arange(4, dtype=np.float32) - 0.5,
)


@pytest.mark.parametrize("name", LOOPS)
def test_loops_permuting_their_states_match_numpy(name):
    exe = CpuExecutable(program(name))
    for n in (0, 1, 2, 5):
        results = exe.loop(*INPUTS, n)
        for result, expected in zip(results, reference(name, *INPUTS, n)):
            np.testing.assert_array_equal(result, expected, err_msg=f"{name}, {n} iterations")


def test_inputs_survive_a_swapping_loop():
    before = [a.copy() for a in INPUTS]
    CpuExecutable(program("swap")).loop(*INPUTS, 3)
    for original, now in zip(before, INPUTS):
        np.testing.assert_array_equal(original, now)


def test_states_that_stay_in_place_are_not_copied():
    from gradir.mlir_bridge import to_mlir_module, walk_ops
    from gradir.mlir_bridge.loop_states import yield_loop_states_in_place

    body = f"%s = arith.addf %p, %q : {T}\n%t = math.exp %r : {T}\n scf.yield %s, %q, %t : {YIELD}"
    module = to_mlir_module(HEADER + body + FOOTER)
    yield_loop_states_in_place(module)
    assert len(walk_ops(module, {"bufferization.alloc_tensor"})) == 0
    assert len(walk_ops(module, {"bufferization.materialize_in_destination"})) == 2

    module = to_mlir_module(program("swap"))
    yield_loop_states_in_place(module)
    assert len(walk_ops(module, {"bufferization.alloc_tensor"})) == 2


def test_swapping_loop_on_the_gpu_pipeline():
    # The GPU pipeline prepares its loops with the same `loop_states`.
    program_text = program("fibonacci")
    results = CudaProgram(program_text).emulate("loop", *INPUTS, 5)
    for result, expected in zip(results, reference("fibonacci", *INPUTS, 5)):
        np.testing.assert_array_equal(result, expected)


# The same loops as `scf.while` (counter `%i < %n`): both regions pass states on, so
# what `scf.condition` forwards must land in the `before` arguments and what `scf.yield`
# yields in the `after` arguments (one-shot bufferization refused every tensor state).
WHILE_HEADER = f"""
func.func @loop(%x: {T}, %y: {T}, %z: {T}, %n: index) -> ({T}, {T}, {T}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ten = arith.constant 10.0 : f32
  %w:4 = scf.while (%i0 = %c0, %p0 = %x, %q0 = %y, %r0 = %z) : (index, {YIELD}) -> (index, {YIELD}) {{
    %go = arith.cmpi slt, %i0, %n : index
    scf.condition(%go) %i0, FORWARDED : index, {YIELD}
  }} do {{
  ^bb0(%i: index, %p: {T}, %q: {T}, %r: {T}):
    %next = arith.addi %i, %c1 : index
"""
WHILE_FOOTER = f"""
  }}
  return %w#1, %w#2, %w#3 : {T}, {T}, {T}
}}
"""


def while_program(body: str, forwarded: str = "%p0, %q0, %r0") -> str:
    """`body` (one of LOOPS's, ending in `scf.yield` of the three states) as the
    `after` region of an scf.while counting to %n; the `before` region forwards
    `forwarded`."""
    *lines, last = body.strip().split("\n")
    last = last.replace("scf.yield ", "scf.yield %next, ").replace(f": {YIELD}", f": index, {YIELD}")
    return WHILE_HEADER.replace("FORWARDED", forwarded) + "\n".join([*lines, last]) + WHILE_FOOTER


@pytest.mark.parametrize("name", LOOPS)
def test_while_loops_permuting_their_states_match_numpy(name):
    body = LOOPS[name][0]
    if name == "chosen_by_a_branch":
        body = "%c2 = arith.constant 2 : index\n" + body
    exe = CpuExecutable(while_program(body))
    for n in (0, 1, 2, 5):
        results = exe.loop(*INPUTS, n)
        for result, expected in zip(results, reference(name, *INPUTS, n)):
            np.testing.assert_array_equal(result, expected, err_msg=f"{name}, {n} iterations")


def test_while_condition_permuting_the_states():
    """The `before` region swaps p and q on every test, the body passes them on:
    n iterations swap n + 1 times."""
    text = while_program(f"scf.yield %p, %q, %r : {YIELD}", forwarded="%q0, %p0, %r0")
    exe = CpuExecutable(text)
    x, y, z = INPUTS
    for n in (0, 1, 2, 5):
        expected = (y, x, z) if n % 2 == 0 else (x, y, z)
        for result, want in zip(exe.loop(*INPUTS, n), expected):
            np.testing.assert_array_equal(result, want, err_msg=f"{n} iterations")


# An inner loop starts from the outer state `%s`, its result is the next state, and `%s` is
# read after the inner loop (as reverse mode's forward loop caches the state it started
# from, in the ADBench LSTM of the corpus). Skipping the store back as "already in place"
# left the yield not equivalent to its state: one-shot bufferization rejected the loop
# ("Yield operand #0 is not equivalent to the corresponding iter bbArg").
STATE_READ_AFTER_INNER_LOOP = f"""
func.func @nested(%x: {T}, %n: index) -> ({T}, {T}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant dense<0.0> : {T}
  %half = arith.constant dense<0.5> : {T}
  %s_final, %acc_final = scf.for %i = %c0 to %n step %c1 iter_args(%s = %x, %acc = %zero) -> ({T}, {T}) {{
    %inner = scf.for %j = %c0 to %c2 step %c1 iter_args(%t = %s) -> ({T}) {{
      %u = arith.mulf %t, %half : {T}
      %v = arith.addf %u, %t : {T}
      scf.yield %v : {T}
    }}
    %acc_next = arith.addf %acc, %s : {T}
    scf.yield %inner, %acc_next : {T}, {T}
  }}
  return %s_final, %acc_final : {T}, {T}
}}
"""


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_state_read_after_the_inner_loop_that_updates_it(n):
    x = np.arange(1.0, 5.0, dtype=np.float32)
    s, acc = CpuExecutable(STATE_READ_AFTER_INNER_LOOP).nested(x, np.int64(n))
    expected_s, expected_acc = x.copy(), np.zeros(4, np.float32)
    for _ in range(n):
        expected_acc = expected_acc + expected_s
        expected_s = expected_s * 2.25
    np.testing.assert_allclose(s, expected_s, rtol=1e-6)
    np.testing.assert_allclose(acc, expected_acc, rtol=1e-6)


# An scf.while whose regions take different arguments: the `before` region takes (a, b, n)
# and forwards (b, n); the `after` region takes (x, n) and yields (x, x / 2, n + 1), halving
# until two successive values are close (the shape of JAX's `lax.while_loop` on
# (x_prev, x) after canonicalization drops the forwarded x_prev). One-shot bufferization
# pairs terminator operands with region arguments by position: gradir's in-place writes
# stored a tensor into the `index` argument and MLIR aborted the process.
DIFFERENT_REGION_ARGUMENTS = """
#scalar = affine_map<() -> ()>
func.func @halve(%a0: tensor<f32>, %b0: tensor<f32>, %scale: f32) -> (tensor<f32>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %tolerance = arith.constant 1.0e-3 : f32
  %empty = tensor.empty() : tensor<f32>
  %r:2 = scf.while (%a = %a0, %b = %b0, %n = %c0) : (tensor<f32>, tensor<f32>, index) -> (tensor<f32>, index) {
    %d = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []}
        ins(%a, %b : tensor<f32>, tensor<f32>) outs(%empty : tensor<f32>) {
    ^bb0(%x: f32, %y: f32, %o: f32):
      %s = arith.subf %x, %y : f32
      %t = math.absf %s : f32
      linalg.yield %t : f32
    } -> tensor<f32>
    %e = tensor.extract %d[] : tensor<f32>
    %go = arith.cmpf ogt, %e, %tolerance : f32
    scf.condition(%go) %b, %n : tensor<f32>, index
  } do {
  ^bb0(%x: tensor<f32>, %m: index):
    %h = linalg.generic {indexing_maps = [#scalar, #scalar], iterator_types = []}
        ins(%x : tensor<f32>) outs(%empty : tensor<f32>) {
    ^bb0(%v: f32, %o: f32):
      %y = arith.mulf %v, %scale : f32
      linalg.yield %y : f32
    } -> tensor<f32>
    %next = arith.addi %m, %c1 : index
    scf.yield %x, %h, %next : tensor<f32>, tensor<f32>, index
  }
  return %r#0, %r#1 : tensor<f32>, index
}
"""


def halve_reference(a: float, b: float, scale: float):
    a, b, n = np.float32(a), np.float32(b), 0
    while abs(a - b) > np.float32(1e-3):
        a, b, n = b, np.float32(b * np.float32(scale)), n + 1
    return b, n


@pytest.mark.parametrize("run", ["cpu", "gpu"])
def test_while_whose_regions_take_different_arguments(run):
    if run == "cpu":
        call = CpuExecutable(DIFFERENT_REGION_ARGUMENTS).halve
    else:
        program = CudaProgram(DIFFERENT_REGION_ARGUMENTS)
        call = lambda *args: program.emulate("halve", *args)  # noqa: E731
    for a, b, scale in [(1.0, 1.0, 0.5), (0.0, 1.0, 0.5), (0.0, 8.0, 0.25), (3.0, 0.5, 0.75)]:
        value, count = call(np.float32(a), np.float32(b), np.float32(scale))
        want_value, want_count = halve_reference(a, b, scale)
        assert int(count) == want_count, (a, b, scale)
        np.testing.assert_array_equal(value, want_value)


def test_while_whose_regions_take_different_arguments_is_rewritten_with_equal_ones():
    from gradir.mlir_bridge import to_mlir_module, walk_ops
    from gradir.mlir_bridge.loop_states import yield_loop_states_in_place

    module = to_mlir_module(DIFFERENT_REGION_ARGUMENTS)
    yield_loop_states_in_place(module)
    (loop,) = walk_ops(module, {"scf.while"})
    before = [str(argument.type) for argument in loop.regions[0].blocks[0].arguments]
    after = [str(argument.type) for argument in loop.regions[1].blocks[0].arguments]
    assert before == after == ["tensor<f32>", "tensor<f32>", "index", "tensor<f32>", "index"]


# A state written at one element, then updated by an inner loop (reverse mode's gradient of
# a Cholesky factorization's state: zeroed and summed at the element the forward body wrote,
# then added to by the reversed inner loop). The inner loop updates the state's buffer in
# place; storing it back at the yield copied the whole state every outer iteration.
INSERT_THEN_INNER_LOOP = f"""
func.func @written(%x: {T}, %n: index) -> ({T}, f32) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %s_final, %read_final = scf.for %i = %c0 to %n step %c1 iter_args(%s = %x, %read = %zero) -> ({T}, f32) {{
    %first = tensor.extract %s[%c0] : {T}
    %doubled = arith.addf %first, %first : f32
    %s1 = tensor.insert %doubled into %s[%c0] : {T}
    %inner = scf.for %j = %c1 to %c3 step %c1 iter_args(%t = %s1) -> ({T}) {{
      %e = tensor.extract %t[%j] : {T}
      %h = arith.mulf %e, %half : f32
      %u = tensor.insert %h into %t[%j] : {T}
      scf.yield %u : {T}
    }}
    READ_AFTER
    scf.yield %inner, %next_read : {T}, f32
  }}
  return %s_final, %read_final : {T}, f32
}}
"""
NOT_READ_AFTER = "%next_read = arith.addf %read, %first : f32"
READ_AFTER = "%last = tensor.extract %s[%c1] : {T}\n    %next_read = arith.addf %read, %last : f32".format(T=T)


@pytest.mark.parametrize("read_after", [False, True])
def test_state_written_then_updated_by_an_inner_loop(read_after):
    from gradir.mlir_bridge import to_mlir_module, walk_ops
    from gradir.mlir_bridge.loop_states import yield_loop_states_in_place

    text = INSERT_THEN_INNER_LOOP.replace("READ_AFTER", READ_AFTER if read_after else NOT_READ_AFTER)
    module = to_mlir_module(text)
    yield_loop_states_in_place(module)
    # the inner loop's state, and the outer one's only where the outer state is read after
    # the write (the inner loop then works on a copy, stored back at the yield)
    assert len(walk_ops(module, {"bufferization.materialize_in_destination"})) == (2 if read_after else 1)
    exe = CpuExecutable(text)
    for n in (0, 1, 3):
        x = np.arange(1.0, 5.0, dtype=np.float32)
        s, read = exe.written(x, np.int64(n))
        expected, total = x.copy(), np.float32(0)
        for _ in range(n):
            total += expected[1] if read_after else expected[0]
            expected[0] *= 2
            expected[1:3] *= 0.5
        np.testing.assert_array_equal(s, expected)
        assert read == total


# The inner loop starts from a value defined outside the outer loop (the function's
# argument), read at the function's top level too: looking for reads of it after the inner
# loop walked up from that top-level read to the module, whose parent block MLIR's bindings
# abort the process for (the whole pytest worker died in the corpus vmap sweep).
INNER_LOOP_FROM_OUTSIDE = f"""
func.func @restart(%x: {T}, %n: index) -> ({T}, {T}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %half = arith.constant dense<0.5> : {T}
  %doubled = arith.addf %x, %x : {T}
  %s_final = scf.for %i = %c0 to %n step %c1 iter_args(%s = %doubled) -> ({T}) {{
    %inner = scf.for %j = %c0 to %c2 step %c1 iter_args(%t = %x) -> ({T}) {{
      %u = arith.mulf %t, %half : {T}
      %v = arith.addf %u, %s : {T}
      scf.yield %v : {T}
    }}
    scf.yield %inner : {T}
  }}
  return %s_final, %doubled : {T}, {T}
}}
"""


@pytest.mark.parametrize("n", [0, 1, 3])
def test_inner_loop_started_from_a_value_outside_the_loop(n):
    x = np.arange(1.0, 5.0, dtype=np.float32)
    s, doubled = CpuExecutable(INNER_LOOP_FROM_OUTSIDE).restart(x, np.int64(n))
    expected = x + x
    for _ in range(n):
        t = x
        for _ in range(2):
            t = t * 0.5 + expected
        expected = t
    np.testing.assert_allclose(s, expected, rtol=1e-6)
    np.testing.assert_array_equal(doubled, x + x)


def test_reads_after_an_op_are_found_only_in_its_block():
    """`_read_after` of a value the function's top level reads: no read in the inner loop's
    block, and no walk past the module (MLIR's bindings abort on the top-level op's block)."""
    from gradir.mlir_bridge import to_mlir_module, walk_ops
    from gradir.mlir_bridge.loop_states import _read_after

    module = to_mlir_module(INNER_LOOP_FROM_OUTSIDE)
    outer, inner = walk_ops(module, {"scf.for"})
    function = walk_ops(module, {"func.func"})[0]
    x = function.regions[0].blocks[0].arguments[0]
    assert not _read_after(x, inner)
    assert _read_after(x, list(function.regions[0].blocks[0].operations)[0])  # the first op: the addf and the loop read x after it


# An inner loop started from a new tensor computed from the state (not the state with
# elements inserted): it has a buffer of its own, stored into the state's at the yield.
INNER_LOOP_FROM_A_SUM = f"""
func.func @summed(%x: {T}, %n: index) -> {T} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %half = arith.constant dense<0.5> : {T}
  %s_final = scf.for %i = %c0 to %n step %c1 iter_args(%s = %x) -> ({T}) {{
    %start = arith.addf %half, %s : {T}
    %inner = scf.for %j = %c0 to %c2 step %c1 iter_args(%t = %start) -> ({T}) {{
      %u = arith.mulf %t, %half : {T}
      scf.yield %u : {T}
    }}
    scf.yield %inner : {T}
  }}
  return %s_final : {T}
}}
"""


@pytest.mark.parametrize("n", [0, 1, 3])
def test_inner_loop_started_from_a_new_tensor(n):
    x = np.arange(1.0, 5.0, dtype=np.float32)
    expected = x.copy()
    for _ in range(n):
        expected = (expected + 0.5) * 0.25
    np.testing.assert_allclose(CpuExecutable(INNER_LOOP_FROM_A_SUM).summed(x, np.int64(n)), expected, rtol=1e-6)
