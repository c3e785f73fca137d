"""xDSL 0.74's implicit builders, made safe to use from several threads at once.

`ImplicitBuilder` keeps its builder per thread, but to catch the ops created inside it,
it replaces the class attribute `Operation.__post_init__` (shared by all threads) on
entry and puts the saved one back on exit. Two threads inside builders at once stack
two replacements, so each op is added twice ("Can't add to a block an operation already
attached to a block"), or one thread's exit removes the hook while the other still
builds, so ops go missing. gradir builds with implicit builders in its lowering passes,
so `gradir.compile` from two threads failed at random.

The fix installs one permanent hook that adds an op to the current thread's builder
when it has one, and makes xDSL's save-and-replace a no-op. Importing `gradir` does it
(every gradir module imports the package first).
"""
from __future__ import annotations

from xdsl import builder
from xdsl.ir import Operation


def install() -> None:
    """Idempotent."""
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


install()
