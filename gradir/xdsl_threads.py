"""xDSL 0.74's implicit builders, made safe to use from several threads at once.

`ImplicitBuilder` keeps its builder per thread, but to catch the ops created inside it,
it replaces the class attribute `Operation.__post_init__` (shared by all threads) on
entry and puts the saved one back on exit. Two threads inside builders at once stack
two replacements, so each op is added twice ("Can't add to a block an operation already
attached to a block"), or one thread's exit removes the hook while the other still
builds, so ops go missing. gradir builds with implicit builders in its lowering passes,
so `gradir.compile` from two threads failed at random.

The fix installs one permanent hook that adds an op to the current thread's builder
when it has one, and makes xDSL's save-and-replace a no-op. Importing `gradir` arranges it
(every gradir module imports the package first): at once if xDSL's builders are already
loaded, else right after `xdsl.builder` is first imported (`install_when_loaded`), so that
`import gradir` itself does not load xDSL (a cached compile and `gradir.load` never need it).
"""
from __future__ import annotations

import sys
from importlib.abc import MetaPathFinder

BUILDER_MODULE = "xdsl.builder"


def install() -> None:
    """Idempotent."""
    from xdsl import builder
    from xdsl.ir import Operation

    if getattr(Operation.__post_init__, "gradir_thread_safe", False):
        return
    original = Operation.__post_init__
    current = builder._current_builder  # noqa: SLF001 -- per-thread, as xDSL keeps it

    def post_init(self: Operation) -> None:
        original(self)
        if current.builder is not None:
            builder._op_init_callback(self)  # noqa: SLF001

    post_init.gradir_thread_safe = True  # type: ignore[attr-defined]
    Operation.__post_init__ = post_init  # type: ignore[method-assign]
    builder._override_operation_post_init = lambda: Operation.__post_init__  # noqa: SLF001


class _InstallAfterImport(MetaPathFinder):
    """Finds nothing itself: hands out the spec the other finders give for `xdsl.builder`,
    with `install` run right after the module executes (a post-import hook; Python has none
    built in)."""

    def find_spec(self, fullname, path, target=None):
        if fullname != BUILDER_MODULE:
            return None
        sys.meta_path.remove(self)
        for finder in sys.meta_path:
            find_spec = getattr(finder, "find_spec", None)
            spec = find_spec(fullname, path, target) if find_spec else None
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        run_module = loader.exec_module

        def exec_module(module) -> None:
            run_module(module)
            install()

        loader.exec_module = exec_module
        return spec


def install_when_loaded() -> None:
    """`install` now if `xdsl.builder` is loaded, else when it first is."""
    if BUILDER_MODULE in sys.modules:
        install()
    elif not any(isinstance(finder, _InstallAfterImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _InstallAfterImport())
