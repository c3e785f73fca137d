"""Undo logs (`autodiff_pass/rules/loop_undo.py`): the reverse of an `scf.for` whose tensor
state the body writes element by element caches the overwritten elements, not the state.

Each program is gradchecked (vjp and jvp, float64 central differences, through the CPU
pipeline), with and without checkpointing, and the caches are measured: one scalar per
insert where the undo log applies, the whole state where it must not (an insert index
read from the state itself)."""

import numpy as np
import pytest
from exercised import assert_exercised
from gradir.autodiff_pass.rules.loop_cache import CACHE_ATTRIBUTE

import gradir
from gradir.compilation import lower_to_linalg

N = 5

# x = solve(L, b) for lower-triangular L, row by row: the state x is written one element
# per iteration and read (x[k], k < i) by an inner loop, as LAPACK's trsm written as loops
# (`from_jax`'s `jax_linalg`) does; a sine of the result makes the gradient depend on x.
FORWARD_SUBSTITUTION = f"""
func.func @solve(%l: tensor<{N}x{N}xf64>, %b: tensor<{N}xf64>) -> tensor<f64> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant {N} : index
  %zero = arith.constant 0.0 : f64
  %x = scf.for %i = %c0 to %n step %c1 iter_args(%s = %b) -> (tensor<{N}xf64>) {{
    %dot = scf.for %k = %c0 to %i step %c1 iter_args(%acc = %zero) -> (f64) {{
      %lik = tensor.extract %l[%i, %k] : tensor<{N}x{N}xf64>
      %xk = tensor.extract %s[%k] : tensor<{N}xf64>
      %p = arith.mulf %lik, %xk : f64
      %a = arith.addf %acc, %p : f64
      scf.yield %a : f64
    }}
    %bi = tensor.extract %s[%i] : tensor<{N}xf64>
    %lii = tensor.extract %l[%i, %i] : tensor<{N}x{N}xf64>
    %r = arith.subf %bi, %dot : f64
    %xi = arith.divf %r, %lii : f64
    %next = tensor.insert %xi into %s[%i] : tensor<{N}xf64>
    scf.yield %next : tensor<{N}xf64>
  }}
  %y = math.sin %x : tensor<{N}xf64>
  %t = autodiff.sum %y : tensor<{N}xf64> -> tensor<f64>
  return %t : tensor<f64>
}}
"""

# Two inserts an iteration, the second at an index read from an input (a permutation, not
# the state), and in the last iteration at the element the first insert just wrote: the
# undo puts both back, last first. The body reads the whole state (its squared norm), so
# the reverse needs every element of the state each iteration started from.
TWO_INSERTS = f"""
func.func @two_inserts(%x: tensor<{N}xf64>, %w: tensor<{N}xf64>, %perm: tensor<{N}xi64>) -> tensor<f64> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant {N} : index
  %y = scf.for %i = %c0 to %n step %c1 iter_args(%s = %x) -> (tensor<{N}xf64>) {{
    %si = tensor.extract %s[%i] : tensor<{N}xf64>
    %wi = tensor.extract %w[%i] : tensor<{N}xf64>
    %sq = arith.mulf %s, %s : tensor<{N}xf64>
    %norm = autodiff.sum %sq : tensor<{N}xf64> -> tensor<f64>
    %nt = tensor.extract %norm[] : tensor<f64>
    %m0 = arith.mulf %si, %wi : f64
    %m = arith.addf %m0, %nt : f64
    %t = math.tanh %m : f64
    %s1 = tensor.insert %t into %s[%i] : tensor<{N}xf64>
    %raw = tensor.extract %perm[%i] : tensor<{N}xi64>
    %j = arith.index_cast %raw : i64 to index
    %sj = tensor.extract %s1[%j] : tensor<{N}xf64>
    %q = arith.mulf %sj, %t : f64
    %u = math.sin %q : f64
    %s2 = tensor.insert %u into %s1[%j] : tensor<{N}xf64>
    scf.yield %s2 : tensor<{N}xf64>
  }}
  %z = arith.mulf %y, %y : tensor<{N}xf64>
  %r = autodiff.sum %z : tensor<{N}xf64> -> tensor<f64>
  return %r : tensor<f64>
}}
"""
PERMUTATION = np.array([3, 0, 4, 1, 4], dtype=np.int64)  # iteration 4 writes element 4 twice

# The insert index is computed from the state (where its first element points): the
# elements to put back cannot be found without the state, and the body reads the whole
# state (its squared norm), which is then cached whole.
INDEX_FROM_STATE = f"""
func.func @index_from_state(%x: tensor<{N}xf64>, %w: tensor<{N}xf64>) -> tensor<f64> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %n = arith.constant {N} : index
  %y = scf.for %i = %c0 to %n step %c1 iter_args(%s = %x) -> (tensor<{N}xf64>) {{
    %s0 = tensor.extract %s[%c0] : tensor<{N}xf64>
    %a = math.absf %s0 : f64
    %k64 = arith.fptosi %a : f64 to i64
    %k = arith.index_cast %k64 : i64 to index
    %j = arith.minui %k, %c4 : index
    %sj = tensor.extract %s[%j] : tensor<{N}xf64>
    %wi = tensor.extract %w[%i] : tensor<{N}xf64>
    %m = arith.mulf %sj, %wi : f64
    %sq = arith.mulf %s, %s : tensor<{N}xf64>
    %norm = autodiff.sum %sq : tensor<{N}xf64> -> tensor<f64>
    %nt = tensor.extract %norm[] : tensor<f64>
    %mn = arith.addf %m, %nt : f64
    %t = math.sin %mn : f64
    %next = tensor.insert %t into %s[%j] : tensor<{N}xf64>
    scf.yield %next : tensor<{N}xf64>
  }}
  %z = arith.mulf %y, %y : tensor<{N}xf64>
  %r = autodiff.sum %z : tensor<{N}xf64> -> tensor<f64>
  return %r : tensor<f64>
}}
"""


# Inserts inside the branches of an scf.if, as the scatter loops of `from_jax` write them: an
# index read from an input, a bounds check choosing between writing (the larger of the
# current element and the update: segment_max) and passing the state on, and a second
# branch writing in both arms (twice in one, at an index computed inside the other). The body reads the whole state (its squared norm).
BRANCHES = f"""
func.func @branches(%x: tensor<{N}xf64>, %u: tensor<{N}xf64>, %ids: tensor<{N}xi64>) -> tensor<f64> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %last = arith.constant {N - 1} : index
  %n = arith.constant {N} : index
  %y = scf.for %i = %c0 to %n step %c1 iter_args(%s = %x) -> (tensor<{N}xf64>) {{
    %raw = tensor.extract %ids[%i] : tensor<{N}xi64>
    %j = arith.index_cast %raw : i64 to index
    %inside = arith.cmpi ule, %j, %last : index
    %ui = tensor.extract %u[%i] : tensor<{N}xf64>
    %sq = arith.mulf %s, %s : tensor<{N}xf64>
    %norm = autodiff.sum %sq : tensor<{N}xf64> -> tensor<f64>
    %nt = tensor.extract %norm[] : tensor<f64>
    %v = arith.mulf %ui, %nt : f64
    %s1 = scf.if %inside -> (tensor<{N}xf64>) {{
      %current = tensor.extract %s[%j] : tensor<{N}xf64>
      %m = arith.maximumf %current, %v : f64
      %w = tensor.insert %m into %s[%j] : tensor<{N}xf64>
      scf.yield %w : tensor<{N}xf64>
    }} else {{
      scf.yield %s : tensor<{N}xf64>
    }}
    %odd = arith.remui %i, %c2 : index
    %is_odd = arith.cmpi eq, %odd, %c1 : index
    %s2 = scf.if %is_odd -> (tensor<{N}xf64>) {{
      %a = tensor.extract %s1[%i] : tensor<{N}xf64>
      %t = math.tanh %a : f64
      %w1 = tensor.insert %t into %s1[%i] : tensor<{N}xf64>
      %w2 = tensor.insert %v into %w1[%c0] : tensor<{N}xf64>
      scf.yield %w2 : tensor<{N}xf64>
    }} else {{
      %b = tensor.extract %s1[%c1] : tensor<{N}xf64>
      %e = math.sin %b : f64
      %k = arith.subi %last, %i : index
      %w3 = tensor.insert %e into %s1[%k] : tensor<{N}xf64>
      scf.yield %w3 : tensor<{N}xf64>
    }}
    scf.yield %s2 : tensor<{N}xf64>
  }}
  %z = arith.mulf %y, %y : tensor<{N}xf64>
  %r = autodiff.sum %z : tensor<{N}xf64> -> tensor<f64>
  return %r : tensor<f64>
}}
"""
IDS = np.array([2, 7, 2, 0, 4], dtype=np.int64)  # 7 is out of bounds: that update is skipped


def grad_entry(source: str, name: str, types: list[str], wrt: list[int]) -> str:
    arguments = ", ".join(f"%a{k}: {t}" for k, t in enumerate(types))
    results = ", ".join(types[k] for k in wrt)
    return source + (
        f"func.func @grad_{name}({arguments}) -> ({results}) {{\n"
        f"  %g:{len(wrt)} = autodiff.grad @{name}({', '.join(f'%a{k}' for k in range(len(types)))}) "
        f"{{wrt = array<i64: {', '.join(map(str, wrt))}>}} : ({', '.join(types)}) -> ({results})\n"
        f"  return {', '.join(f'%g#{k}' for k in range(len(wrt)))} : {results}\n}}\n"
    )


def caches(source: str) -> list[tuple[int, int]]:
    """(values, bytes) of every loop cache of the linalg module."""
    module = lower_to_linalg(source)
    found = []
    for op in module.walk():
        if CACHE_ATTRIBUTE in op.attributes:
            data = op.attributes[CACHE_ATTRIBUTE].data
            size = data.get("bytes") or data.get("bytes_per_iteration")
            found.append((data["values"].value.data, size.value.data))
    return found


def lower_triangular(seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    l = np.tril(rng.uniform(-0.5, 0.5, (N, N))) + np.diag(rng.uniform(1.0, 1.5, N))
    return [l, rng.uniform(-1.0, 1.0, N)]


@pytest.mark.parametrize("checkpoint_every", [0, 2])
def test_forward_substitution_gradient(checkpoint_every):
    result = gradir.gradcheck(
        FORWARD_SUBSTITUTION, "solve", inputs=lower_triangular(), checkpoint_every=checkpoint_every
    )
    assert result.ok, result.report()
    assert_exercised(result)


def test_forward_substitution_caches_scalars_not_the_state():
    """The outer loop's state is rebuilt from one cached element an iteration (the one its
    insert overwrote). Cached whole, the state was
    N x N floats (the Cholesky of a 256 x 256 matrix: 3.6 s for its gradient, now 0.2 s)."""
    source = grad_entry(FORWARD_SUBSTITUTION, "solve", [f"tensor<{N}x{N}xf64>", f"tensor<{N}xf64>"], [0, 1])
    # The overwritten x[i] and the divided residual, one f64 each an iteration; the inner
    # loop reads the outer state, invariant there: recomputed, nothing cached.
    assert caches(source) == [(2, 2 * N * 8)]


@pytest.mark.parametrize("checkpoint_every", [0, 2])
def test_two_inserts_an_iteration_gradient(checkpoint_every):
    rng = np.random.default_rng(1)
    inputs = [rng.uniform(0.3, 1.2, N), rng.uniform(0.5, 1.5, N), PERMUTATION]
    result = gradir.gradcheck(TWO_INSERTS, "two_inserts", inputs=inputs, wrt=[0, 1], checkpoint_every=checkpoint_every)
    assert result.ok, result.report()
    assert_exercised(result)


def test_two_inserts_cache_two_scalars_an_iteration():
    types = [f"tensor<{N}xf64>", f"tensor<{N}xf64>", f"tensor<{N}xi64>"]
    found = caches(grad_entry(TWO_INSERTS, "two_inserts", types, [0, 1]))
    # Scalars only (no N-element state): the two overwritten elements, and what tanh, sin
    # and the products need.
    assert len(found) == 1 and found[0][1] == found[0][0] * N * 8, found


@pytest.mark.parametrize("checkpoint_every", [0, 2])
def test_an_index_read_from_the_state_caches_the_state(checkpoint_every):
    rng = np.random.default_rng(2)
    inputs = [np.array([1.6, 0.7, -0.9, 1.2, 0.4]), rng.uniform(0.5, 1.5, N)]
    result = gradir.gradcheck(INDEX_FROM_STATE, "index_from_state", inputs=inputs, checkpoint_every=checkpoint_every)
    assert result.ok, result.report()
    assert_exercised(result)
    if not checkpoint_every:
        found = caches(grad_entry(INDEX_FROM_STATE, "index_from_state", [f"tensor<{N}xf64>"] * 2, [0, 1]))
        assert any(size >= N * N * 8 for _, size in found), found


@pytest.mark.parametrize("checkpoint_every", [0, 2])
def test_inserts_in_branches_gradient(checkpoint_every):
    inputs = [np.array([0.3, -0.2, 0.5, 0.1, -0.4]), np.array([0.6, 0.2, 0.9, 0.4, 0.7]), IDS]
    result = gradir.gradcheck(BRANCHES, "branches", inputs=inputs, wrt=[0, 1], checkpoint_every=checkpoint_every)
    assert result.ok, result.report()
    assert_exercised(result)


def test_inserts_in_branches_cache_scalars():
    """The two branches return the elements they overwrite as extra results: three scalars
    an iteration for the state, not the state."""
    types = [f"tensor<{N}xf64>", f"tensor<{N}xf64>", f"tensor<{N}xi64>"]
    found = caches(grad_entry(BRANCHES, "branches", types, [0, 1]))
    assert len(found) == 1 and found[0][1] == found[0][0] * N * 8, found


def test_batched_reverse_loops_rebuild_each_examples_state():
    """The Jacobian by reverse mode (vmap of the vjp: the reverse loop, its undo state and
    the branches returning overwritten elements, all batched) is the one by forward mode."""
    inputs = [np.array([0.3, -0.2, 0.5, 0.1, -0.4]), np.array([0.6, 0.2, 0.9, 0.4, 0.7]), IDS]
    source = BRANCHES.replace("-> tensor<f64> {", f"-> tensor<{N}xf64> {{", 1).replace(
        f"  %r = autodiff.sum %z : tensor<{N}xf64> -> tensor<f64>\n  return %r : tensor<f64>",
        f"  return %z : tensor<{N}xf64>",
    )
    reverse = gradir.jacobian(source, "branches", wrt=[0, 1], mode="rev")(*inputs)
    forward = gradir.jacobian(source, "branches", wrt=[0, 1], mode="fwd")(*inputs)
    for by_reverse, by_forward in zip(reverse, forward, strict=True):
        assert np.abs(by_forward).max() > 1e-2
        np.testing.assert_allclose(by_reverse, by_forward, rtol=1e-10, atol=1e-12)


# One scf.if writes two states: the first state's undo log caches the branch's extra
# results, so the second state is cached whole (rebuilding the branch again for it left the
# first log's cached values the results of an erased op).
TWO_STATES_ONE_BRANCH = f"""
func.func @two_states(%x: tensor<{N}xf64>, %y: tensor<{N}xf64>) -> tensor<f64> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = arith.constant {N} : index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %x, %t = %y) -> (tensor<{N}xf64>, tensor<{N}xf64>) {{
    %st = arith.mulf %s, %t : tensor<{N}xf64>
    %dot = autodiff.sum %st : tensor<{N}xf64> -> tensor<f64>
    %d = tensor.extract %dot[] : tensor<f64>
    %e = math.sin %d : f64
    %odd = arith.remui %i, %c2 : index
    %is_odd = arith.cmpi eq, %odd, %c1 : index
    %s1, %t1 = scf.if %is_odd -> (tensor<{N}xf64>, tensor<{N}xf64>) {{
      %w = tensor.insert %e into %s[%i] : tensor<{N}xf64>
      %v = tensor.insert %d into %t[%c0] : tensor<{N}xf64>
      scf.yield %w, %v : tensor<{N}xf64>, tensor<{N}xf64>
    }} else {{
      %u = tensor.insert %e into %t[%i] : tensor<{N}xf64>
      scf.yield %s, %u : tensor<{N}xf64>, tensor<{N}xf64>
    }}
    scf.yield %s1, %t1 : tensor<{N}xf64>, tensor<{N}xf64>
  }}
  %z = arith.mulf %r#0, %r#1 : tensor<{N}xf64>
  %q = autodiff.sum %z : tensor<{N}xf64> -> tensor<f64>
  return %q : tensor<f64>
}}
"""


@pytest.mark.parametrize("checkpoint_every", [0, 2])
def test_one_branch_writing_two_states(checkpoint_every):
    inputs = [np.array([0.3, -0.2, 0.5, 0.1, -0.4]), np.array([0.6, 0.2, 0.9, 0.4, 0.7])]
    result = gradir.gradcheck(TWO_STATES_ONE_BRANCH, "two_states", inputs=inputs, checkpoint_every=checkpoint_every)
    assert result.ok, result.report()
    assert_exercised(result)
    found = caches(grad_entry(TWO_STATES_ONE_BRANCH, "two_states", [f"tensor<{N}xf64>"] * 2, [0, 1]))
    assert len(found) == 1 and found[0][1] > N * N * 8, found  # one state undone, one cached whole


def test_hessian_through_the_batched_undo_log():
    """The Hessian (forward over reverse, the tangents batched) of the loop whose branches
    return the elements they overwrite: batched, each is a slice of the tangent state,
    returned from a branch while the state is written after it, which MLIR 22 refused
    to bufferize until the slices were copied (`copy_yielded_slices`). Checked against
    central differences of the reverse-mode Jacobian."""
    x, u = np.array([0.3, -0.2, 0.5, 0.1, -0.4]), np.array([0.6, 0.2, 0.9, 0.4, 0.7])
    hessian = gradir.hessian(BRANCHES, "branches", wrt=[0, 1])(x, u, IDS)
    gradient = gradir.jacobian(BRANCHES, "branches", wrt=[0, 1], mode="rev")
    step = 1e-6
    for i in range(2):
        for j in range(2):
            columns = []
            for e in np.eye(N) * step:
                plus, minus = [x, u], [x, u]
                plus[j], minus[j] = plus[j] + e, minus[j] - e
                columns.append((gradient(*plus, IDS)[i] - gradient(*minus, IDS)[i]) / (2 * step))
            block = hessian[2 * i + j]
            assert np.abs(block).max() > 1e-2
            np.testing.assert_allclose(block, np.stack(columns, axis=-1), rtol=1e-6, atol=1e-8)


# A Cholesky factorization written as LAPACK's potrf is by `from_jax` (`jax_linalg`): for each
# column j, the diagonal element (one top-level insert), then an inner loop writing the
# elements below it, one an iteration. The outer state is changed by that inner loop.
CHOLESKY = f"""
func.func @chol(%a0: tensor<{N}x{N}xf64>) -> tensor<f64> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant {N} : index
  %zero = arith.constant 0.0 : f64
  %l = scf.for %j = %c0 to %n step %c1 iter_args(%s = %a0) -> (tensor<{N}x{N}xf64>) {{
    %sq = scf.for %k = %c0 to %j step %c1 iter_args(%acc = %zero) -> (f64) {{
      %ljk = tensor.extract %s[%j, %k] : tensor<{N}x{N}xf64>
      %p = arith.mulf %ljk, %ljk : f64
      %a = arith.addf %acc, %p : f64
      scf.yield %a : f64
    }}
    %ajj = tensor.extract %s[%j, %j] : tensor<{N}x{N}xf64>
    %pivot = arith.subf %ajj, %sq : f64
    %ljj = math.sqrt %pivot : f64
    %withdiag = tensor.insert %ljj into %s[%j, %j] : tensor<{N}x{N}xf64>
    %below = arith.addi %j, %c1 : index
    %col = scf.for %i = %below to %n step %c1 iter_args(%t = %withdiag) -> (tensor<{N}x{N}xf64>) {{
      %dot = scf.for %k = %c0 to %j step %c1 iter_args(%acc = %zero) -> (f64) {{
        %lik = tensor.extract %t[%i, %k] : tensor<{N}x{N}xf64>
        %ljk = tensor.extract %t[%j, %k] : tensor<{N}x{N}xf64>
        %p = arith.mulf %lik, %ljk : f64
        %a = arith.addf %acc, %p : f64
        scf.yield %a : f64
      }}
      %aij = tensor.extract %t[%i, %j] : tensor<{N}x{N}xf64>
      %rest = arith.subf %aij, %dot : f64
      %lij = arith.divf %rest, %ljj : f64
      %w = tensor.insert %lij into %t[%i, %j] : tensor<{N}x{N}xf64>
      scf.yield %w : tensor<{N}x{N}xf64>
    }}
    scf.yield %col : tensor<{N}x{N}xf64>
  }}
  %w = arith.constant dense<[[1.0, 0.5, 0.25, 0.2, 0.1], [0.3, 1.1, 0.7, 0.2, 0.9], [0.4, 0.6, 1.3, 0.8, 0.5], [0.2, 0.9, 0.1, 1.7, 0.3], [0.5, 0.4, 0.6, 0.2, 1.9]]> : tensor<{N}x{N}xf64>
  %lw = arith.mulf %l, %w : tensor<{N}x{N}xf64>
  %sin = math.sin %lw : tensor<{N}x{N}xf64>
  %r = autodiff.sum %sin : tensor<{N}x{N}xf64> -> tensor<f64>
  return %r : tensor<f64>
}}
"""

# An inner loop (3 iterations) that writes the same element in each of its iterations (and
# reads others): putting the overwritten elements back, last iteration first, gives the state
# it started from.
INNER_REWRITES = f"""
func.func @rewrites(%x: tensor<{N}xf64>, %w: tensor<{N}xf64>) -> tensor<f64> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %n = arith.constant {N} : index
  %y = scf.for %j = %c0 to %n step %c1 iter_args(%s = %x) -> (tensor<{N}xf64>) {{
    %start = LOWER
    %inner = scf.for %i = %start to %c3 step %c1 iter_args(%t = %s) -> (tensor<{N}xf64>) {{
      %e = tensor.extract %t[%j] : tensor<{N}xf64>
      %wi = tensor.extract %w[%i] : tensor<{N}xf64>
      %ti = tensor.extract %t[%i] : tensor<{N}xf64>
      %sin = math.sin %ti : f64
      %p = arith.mulf %e, %wi : f64
      %q = arith.addf %p, %sin : f64
      %written = tensor.insert %q into %t[%j] : tensor<{N}xf64>
      scf.yield %written : tensor<{N}xf64>
    }}
    scf.yield %inner : tensor<{N}xf64>
  }}
  %z = arith.mulf %y, %y : tensor<{N}xf64>
  %r = autodiff.sum %z : tensor<{N}xf64> -> tensor<f64>
  return %r : tensor<f64>
}}
"""
STARTS_AT_ZERO = INNER_REWRITES.replace("%start = LOWER", "%start = arith.addi %c0, %c0 : index")
# j - 1 may be negative (it is, at j = 0: the inner loop is then one iteration longer): the
# induction variable cannot index the log, so the state is cached whole.
STARTS_BEFORE_J = (
    INNER_REWRITES.replace("%start = LOWER", "%start = arith.subi %j, %c1 : index")
    .replace("%wi = tensor.extract %w[%i]", "%ii = arith.maxsi %i, %c0 : index\n      %wi = tensor.extract %w[%ii]")
    .replace("%ti = tensor.extract %t[%i]", "%ti = tensor.extract %t[%ii]")
)


def positive_definite(seed: int = 0) -> np.ndarray:
    m = np.random.default_rng(seed).uniform(-0.5, 0.5, (N, N))
    return m @ m.T + 0.5 * N * np.eye(N)


@pytest.mark.parametrize("checkpoint_every", [0, 2])
def test_cholesky_gradient(checkpoint_every):
    result = gradir.gradcheck(CHOLESKY, "chol", inputs=[positive_definite()], checkpoint_every=checkpoint_every)
    assert result.ok, result.report()
    assert_exercised(result)


def test_cholesky_caches_a_column_not_the_matrix():
    """Per column: the overwritten diagonal element, its square root and the N-element log
    of what the inner loop overwrote. The state was cached whole twice a column (before
    and after the diagonal insert): n^3 floats for an n x n Cholesky, now n^2."""
    found = caches(grad_entry(CHOLESKY, "chol", [f"tensor<{N}x{N}xf64>"], [0]))
    outer = [entry for entry in found if entry[0] == 3]
    assert outer == [(3, N * (8 + 8 + N * 8))], found


@pytest.mark.parametrize("source", [STARTS_AT_ZERO, STARTS_BEFORE_J], ids=["starts_at_zero", "starts_before_j"])
@pytest.mark.parametrize("checkpoint_every", [0, 2])
def test_an_inner_loop_rewriting_one_element_gradient(source, checkpoint_every):
    rng = np.random.default_rng(3)
    inputs = [rng.uniform(0.3, 0.9, N), rng.uniform(0.4, 0.8, N)]
    result = gradir.gradcheck(source, "rewrites", inputs=inputs, checkpoint_every=checkpoint_every)
    assert result.ok, result.report()
    assert_exercised(result)


def test_an_inner_loop_is_logged_only_when_its_induction_variable_indexes_the_log():
    types = [f"tensor<{N}xf64>"] * 2
    # The outer loop's cache: N logs of the inner loop's 3 iterations, not N states of N.
    logged = caches(grad_entry(STARTS_AT_ZERO, "rewrites", types, [0, 1]))
    assert max(size for _, size in logged) == N * 3 * 8, logged
    whole = caches(grad_entry(STARTS_BEFORE_J, "rewrites", types, [0, 1]))
    assert max(size for _, size in whole) == N * N * 8, whole


def test_batched_reverse_cholesky_matches_forward_mode():
    """The Jacobian of the factor by reverse mode (the inner loops' logs and their reverse,
    batched) is the one by forward mode."""
    source = CHOLESKY.replace("-> tensor<f64> {", f"-> tensor<{N}x{N}xf64> {{", 1).replace(
        f"  %r = autodiff.sum %sin : tensor<{N}x{N}xf64> -> tensor<f64>\n  return %r : tensor<f64>",
        f"  return %sin : tensor<{N}x{N}xf64>",
    )
    a = positive_definite(1)
    reverse = gradir.jacobian(source, "chol", mode="rev", opt_level=0)(a)
    forward = gradir.jacobian(source, "chol", mode="fwd", opt_level=0)(a)
    assert np.abs(forward).max() > 1e-2
    np.testing.assert_allclose(reverse, forward, rtol=1e-10, atol=1e-12)
