"""xDSL universe entry point: makes the autodiff dialect and gradir's passes
visible to plain `xdsl-opt` (and to `autodiff-opt`, which builds on it).
`xdsl-opt` keeps xDSL's own `cse`; `autodiff-opt` uses gradir's linear one."""
from xdsl.universe import Universe

from gradir.pass_table import gradir_passes


def _autodiff_dialect():
    from gradir.dialects.autodiff import Autodiff

    return Autodiff


GRADIR_UNIVERSE = Universe(
    all_dialects={"autodiff": _autodiff_dialect},
    all_passes=gradir_passes(replacements=False),
)
