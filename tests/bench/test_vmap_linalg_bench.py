"""bench/vmap_linalg.py: both gradir variants compute the same per-example gradients, the
generic-view variant really swaps the named ops' rules for this compile only, and the
rule table is restored afterwards."""
import importlib.util
import pathlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]


def load_bench_module():
    spec = importlib.util.spec_from_file_location("vmap_linalg_bench", ROOT / "bench" / "vmap_linalg.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generic_view_variant_swaps_the_rules_for_its_compile_only(monkeypatch):
    from gradir.autodiff_pass.rules import batching
    from gradir.autodiff_pass.rules.batching_linalg import LINALG_RULE_KINDS

    bench = load_bench_module()
    monkeypatch.setenv("GRADIR_CACHE", "0")
    source, in_axes, args = bench.problems(np.random.default_rng(0))["mlp"]
    args = (args[0], args[1], args[2][:4], args[3][:4])
    before = dict(batching._all_rules())
    seen = []
    structured = LINALG_RULE_KINDS["structured_generic"]

    def spy(builder, op, operands, batched):
        seen.append(op.name)
        return structured(builder, op, operands, batched)

    monkeypatch.setitem(LINALG_RULE_KINDS, "structured_generic", spy)
    _, generic = bench.gradir_variant(source, in_axes, args, generic_view=True)
    assert "linalg.matmul" in seen
    assert batching._all_rules() == before
    seen.clear()
    _, named = bench.gradir_variant(source, in_axes, args, generic_view=False)
    assert "linalg.matmul" not in seen
    for a, b in zip(generic(), named()):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)
