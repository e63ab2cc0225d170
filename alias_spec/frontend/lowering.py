"""Lowering ``tle.gpu.alloc(alias=...)`` onto stock Gluon view ops.

The installed Triton decides which op sequences are legal (FACTS.md section 2 lists the recipes
measured correct on an H200); the choice itself is the generated predicate
``alias_spec.generated.recipes.choose`` over the spec's facts plus recipe facts. This module
only reads the installed version and emits the chosen sequence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import triton
from triton.experimental.gluon import language as gl

from alias_spec.generated import recipes
from alias_spec.model.facts import Facts, elem_bytes

# A 1-D unswizzled layout for byte-granule views (leading buffer dim outside it).
_BYTES_1D = gl.SwizzledSharedLayout(1, 1, 1, [0])


def triton_version(text: str | None = None) -> int:
    """The installed Triton version as major * 100 + minor (3.6.0 -> 306)."""
    m = re.match(r"(\d+)\.(\d+)", text or triton.__version__)
    if not m:
        raise RuntimeError(f"cannot read the Triton version {text or triton.__version__!r}")
    return int(m.group(1)) * 100 + int(m.group(2))


def _reinterpret(desc: Any, dtype: Any, shape: list[int], layout: Any, semantic: Any) -> Any:
    # The plain Gluon method (3.9 renamed _reinterpret to reinterpret; both take all three).
    cls = gl.shared_memory_descriptor
    fn = getattr(cls, "reinterpret", None) or cls._reinterpret
    return fn(desc, dtype, shape, layout, _semantic=semantic)


def emit(
    recipe: str,
    src: Any,
    dtype: Any,
    shape: list[int],
    layout: Any,
    facts: Facts,
    semantic: Any,
) -> Any:
    """Emit ``recipe`` and return a fresh (non-subview) descriptor of the alias."""
    off = int(facts["off"])
    if recipe == "view":
        return _reinterpret(src, dtype, shape, layout, semantic)
    if recipe == "index":
        nbytes = int(facts["res_elems"]) * elem_bytes(int(facts["res_bits"]))
        src_bytes = int(facts["src_elems"]) * elem_bytes(int(facts["src_bits"]))
        # 3.8 wants the reinterpret to cover the source exactly; older and newer accept less.
        count = src_bytes // nbytes if facts["tv"] == 308 else off // nbytes + 1
        stacked = _reinterpret(src, dtype, [count, *shape], layout, semantic)
        return _reinterpret(
            gl.shared_memory_descriptor.index(stacked, off // nbytes, _semantic=semantic),
            dtype,
            shape,
            layout,
            semantic,
        )
    if recipe == "granule":
        g = int(facts["gran"])
        stacked = _reinterpret(src, gl.int8, [off // g + 1, g], _BYTES_1D, semantic)
        return _reinterpret(
            gl.shared_memory_descriptor.index(stacked, off // g, _semantic=semantic),
            dtype,
            shape,
            layout,
            semantic,
        )
    raise ValueError(f"unknown alias recipe {recipe!r}")


Reasons = list[tuple[str, str, str, dict]]
# Called with (facts, recipe, reasons) on every decision ``tle.gpu.alloc`` makes (not on the
# trial facts of the offset-fix search): how a tester records the choices without replacing
# ``choose``.
_observers: list[Callable[[Facts, str | None, Reasons], None]] = []


@contextmanager
def observing(fn: Callable[[Facts, str | None, Reasons], None]) -> Iterator[None]:
    """Call ``fn`` on each of ``tle.gpu.alloc``'s recipe decisions while the block runs."""
    _observers.append(fn)
    try:
        yield
    finally:
        _observers.remove(fn)


def decide(facts: Facts) -> tuple[str | None, Reasons]:
    """``choose`` for ``tle.gpu.alloc`` itself: the decision, shown to the observers."""
    recipe, reasons = choose(facts)
    for fn in list(_observers):
        fn(facts, recipe, reasons)
    return recipe, reasons


def choose(facts: Facts) -> tuple[str | None, Reasons]:
    """(recipe, unsupported reasons): the recipe is None whenever a reason is listed."""
    reasons = recipes.unsupported(facts)
    recipe = None if reasons else recipes.choose(facts)
    if recipe is None and not reasons:
        reasons = [
            (
                "recipe",
                f"no alias recipe of Triton {triton.__version__} expresses this view "
                "(3.8 needs an exact-size reinterpret of a non-subview, 3.9 a contiguous source)",
                "use an offset that is a multiple of the result's byte size, or alias the parent "
                "allocation",
                {"off": facts["off"], "tv": facts["tv"]},
            )
        ]
    return recipe, reasons
