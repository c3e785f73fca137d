"""`autodiff-specialize-zero`: its two sweeps reach the fixpoint of its rewrite patterns."""
from __future__ import annotations

import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from pass_support import REPO, fresh_context
from xdsl.ir import Region
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker

from gradir.autodiff_pass.specialize_zero import SPECIALIZE_ZERO_PATTERNS, specialize_zero
from gradir.source import parse_module


def specialize_zero_by_patterns(region: Region) -> None:
    """The reference: a greedy walk of the rewrite patterns that state the rules.
    It walks forward, as zeros flow: a sum whose two sides both become zero then
    keeps the same one of the two as the sweeps do (a reverse walk may keep the
    other, an equal zero under another name)."""
    PatternRewriteWalker(
        GreedyRewritePatternApplier(list(SPECIALIZE_ZERO_PATTERNS), dce_enabled=False),
        walk_reverse=False,
    ).rewrite_region(region)


def zero_bookkeeping_program(seed: int, size: int) -> str:
    """Random reverse-mode bookkeeping: zeros, sums, nested grad_ofs, few results read."""
    rng = random.Random(seed)
    t = "tensor<4xf32>"
    counter = itertools.count()

    def block(values: list[str], depth: int, lines: list[str], indent: str) -> list[str]:
        values = list(values)
        for _ in range(rng.randint(1, size)):
            n = next(counter)
            kind = rng.random()
            if kind < 0.25:
                lines.append(f"{indent}%z{n} = autodiff.autograd_zero : {t}")
                values.append(f"%z{n}")
            elif kind < 0.6:
                a, b = rng.choice(values), rng.choice(values)
                lines.append(f"{indent}%s{n} = autodiff.autograd_add {a}, {b} : {t}")
                values.append(f"%s{n}")
            else:
                grads = [rng.choice(values) for _ in range(rng.randint(1, 2))]
                arity = rng.randint(1, 3)
                results = [f"%g{n}_{k}" for k in range(arity)]
                lines.append(
                    f"{indent}{', '.join(results)} = autodiff.grad_of \"autodiff.mul\" "
                    f"({', '.join(grads)}) : ({', '.join([t] * len(grads))}) -> "
                    f"({', '.join([t] * arity)}) {{"
                )
                arguments = [f"%d{n}_{k}" for k in range(len(grads))]
                lines.append(f"{indent}^bb0({', '.join(f'{a}: {t}' for a in arguments)}):")
                inner = values + arguments
                if depth < 2 and rng.random() < 0.5:
                    inner = block(inner, depth + 1, lines, indent + "  ")
                products = []
                for k in range(arity):
                    x, y = rng.choice(inner), rng.choice(arguments)
                    lines.append(f"{indent}  %p{n}_{k} = autodiff.mul {x}, {y} : ({t}, {t}) -> {t}")
                    products.append(f"%p{n}_{k}")
                lines.append(f"{indent}  autodiff.yield {', '.join(products)} : {', '.join([t] * arity)}")
                lines.append(f"{indent}}}")
                values += results
        return values

    lines = [f"func.func @f(%a: {t}, %b: {t}) -> ({t}, {t}) {{"]
    values = block(["%a", "%b"], 0, lines, "  ")
    read = [rng.choice(values), rng.choice(values)]
    lines.append(f"  return {', '.join(read)} : {t}, {t}")
    lines.append("}")
    return "\n".join(lines)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 100_000), size=st.integers(1, 12))
def test_two_sweep_specialize_zero_is_the_pattern_fixpoint(seed: int, size: int):
    """`specialize_zero` (a forward and a backward sweep) leaves exactly what a
    greedy walk of its rewrite patterns does."""
    ctx = fresh_context()
    text = zero_bookkeeping_program(seed, size)
    expected, actual = parse_module(ctx, text), parse_module(ctx, text)
    specialize_zero_by_patterns(expected.body)
    specialize_zero(actual.body)
    assert str(actual) == str(expected)


def test_two_sweep_specialize_zero_on_the_lit_inputs():
    text = (REPO / "lit_tests/autodiff_pass/autodiff-specialize-zero.mlir").read_text()
    for chunk in text.split("// -----"):
        ctx = fresh_context()
        expected, actual = parse_module(ctx, chunk), parse_module(ctx, chunk)
        specialize_zero_by_patterns(expected.body)
        specialize_zero(actual.body)
        assert str(actual) == str(expected)
