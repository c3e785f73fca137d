"""Rewrite the `EXPECTED` table of test_corpus.py after a corpus run: programs
that pass now are dropped, programs that fail differently get the new first
error and a category read off it, programs newly failing are added. A wrong
gradient is never written into the table (it stays a failing test).

    python tests/corpus/update_expected.py            # run the corpus, rewrite the table
    git diff tests/corpus/test_corpus.py               # review what changed

The reasons of entries whose error did not change are kept as written."""
from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run_corpus  # noqa: E402

CATEGORY_OF_ERROR = [
    (r"does not name a float tensor argument|must return only float tensors|names argument of type", "scalar-runtime"),
    (r"'scf.for' with a float scalar iteration", "scf-scalar-state"),
    (r"reading an active scalar", "scf-captured-scalar"),
    (r"'scf.while' is not supported", "scf-while"),
    (r"'affine\.\w+' is not supported", "affine"),
    (r"differentiation of 'math\.\w+' is not supported", "math-no-rule"),
    (r"a reduction must yield arith.addf", "generic-reduction-not-addf"),
    (r"'linalg\.(conv|depthwise|pooling)\w*' is not supported", "conv-pool-no-rule"),
    (r"linalg\.(conv|depthwise|pooling)\w* is not registered", "conv-pool-unregistered"),
    (r"linalg\.\w+ is not registered", "named-linalg-unregistered"),
    (r"IsolatedFromAbove", "scf-for-result-returned"),
    (r"its body's '[\w.]+' has no derivative rule", "body-op-no-rule"),
    (r"must return exactly one 0-d", "scalar-result"),
    (r"attribute expected", "parse-sparse-constant"),
    (r"Expected '->'", "parse-multi-result-generic"),
    (r"Expected indexing_maps for linalg.generic", "parse-trait-alias"),
]


def category_of(error: str) -> str:
    for pattern, category in CATEGORY_OF_ERROR:
        if re.search(pattern, error):
            return category
    return "other"


def error_substring(error: str) -> str:
    """The stable part of an error line: the message after `error: `."""
    message = error.split("error: ", 1)[-1]
    return message[:90]


def main() -> int:
    import test_corpus

    results = run_corpus.run_all(run_corpus.discover())
    table = dict(test_corpus.EXPECTED)
    for name, result in sorted(results.items()):
        listed = table.get(name)
        if result.status == "pass":
            table.pop(name, None)
        elif result.status in ("wrong", "invalid"):
            print(f"{name}: {result.status.upper()}: not written into the table: {result.error}")
        elif listed is None or listed[2] not in result.error:
            reason = listed[1] if listed else result.error.split("error: ", 1)[-1][:100]
            table[name] = (category_of(result.error), reason, error_substring(result.error))
    path = HERE / "test_corpus.py"
    text = path.read_text()
    start = text.index("EXPECTED = {")
    end = text.index("\n}\n", start) + 3
    lines = ["EXPECTED = {"]
    for name in sorted(table):
        category, reason, match = table[name]
        lines.append(f"    {name!r}: ({category!r}, {reason!r}, {match!r}),")
    lines.append("}\n")
    path.write_text(text[:start] + "\n".join(lines) + text[end:])
    print(f"{len(table)} expected failures written to {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
