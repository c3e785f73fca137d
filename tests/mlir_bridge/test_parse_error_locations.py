"""A parse error MLIR reports at a line of gradir's generated text (`<input>:L:C`) names
the user's `file:line:col` instead: the location the op on that line carries."""
import pytest

from gradir.mlir_bridge import source_location_of_line, to_mlir_module
from gradir.errors import PipelineError

TEXT = (
    '"builtin.module"() ({\n'
    '  %0 = "arith.constant"() <{value = 3 : i64}> : () -> i64 loc("f.mlir":7:5)\n'
    '  "test.op"() : () -> () loc("dir/my \\"q\\".mlir":2:3)\n'
    '  "test.region"() ({\n'
    "  }) : () -> ()\n"
    "}) : () -> ()\n"
)


@pytest.mark.parametrize(
    "location, expected",
    [
        ("<input>:2:40", "f.mlir:7:5"),
        ("<input>:3:1", 'dir/my \\"q\\".mlir:2:3'),
        ("<input>:4:3", "<input>:4:3"),  # no location on that line: kept
        ("<input>:99:1", "<input>:99:1"),
        ("user.mlir:2:3", "user.mlir:2:3"),  # already the user's
        (None, None),
    ],
)
def test_generated_lines_map_to_the_users_locations(location, expected):
    assert source_location_of_line(TEXT, location) == expected


def test_a_parse_error_in_generated_text_names_the_users_file():
    text = TEXT.replace("3 : i64", "3 : i64, bogus = #nonexistent.attr<>")
    with pytest.raises(PipelineError) as caught:
        to_mlir_module(text)
    assert str(caught.value).startswith("f.mlir:7:5: error: mlir-parse:"), str(caught.value)
