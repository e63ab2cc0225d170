"""``mlir``: each side MLIR type text can hold written as ``!ttg.memdesc<...>`` (layouts inline
on even requests, through ``attributes`` aliases on odd ones), the other side kept as JSON.

Text cannot say: a ``{"bits": N}`` dtype, a negative dim, a source kind other than a buffered
tensor, non-zero ``view_offsets``, ``base_offset_bytes`` or an ``alloc_alignment`` other than
the layout's, or "no layout" (a type always names one, and an undefined alias is not judged
as none: where its bytes lie is unknown). The writers here serve the ``lint`` target too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from alias_spec.difftest.outcomes import PathOutcome as Outcome
from alias_spec.difftest.targets import (
    Batch,
    attributes,
    by_op,
    compare_facts,
    copy_json,
    default_alignment,
    nothing_missing,
    parsed,
    static,
)
from alias_spec.frontend.tle.args import is_int
from alias_spec.model.dtypes import MLIR_NAME
from alias_spec.model.memdesc import format_memdesc

NAME = "mlir"
SPACE_TEXT = {"smem": "#ttg.shared_memory", "tmem": "#ttng.tensor_memory", "global": "#global"}
# Keys only a source may have: the view's place in its allocation.
SOURCE_ONLY = ("view_offsets", "base_offset_bytes", "alloc_alignment")


def dtype_text(dtype: Any) -> str | None:
    """The MLIR spelling of a named dtype (None: a ``{"bits": N}`` type has none)."""
    if not isinstance(dtype, str) or dtype not in MLIR_NAME:
        return None
    return MLIR_NAME[dtype]


def layout_text(lay: Any) -> str | None:
    """A JSON layout as attribute text (text stays text; None: no layout)."""
    if lay is None:
        return None
    if isinstance(lay, str):
        return lay.strip()
    if not isinstance(lay, dict):
        return None
    kind = lay.get("kind")
    if kind == "swizzled":
        vals = [lay.get("vec", 1), lay.get("per_phase", 1), lay.get("max_phase", 1)]
        order = lay.get("order") or []
        if not all(is_int(v) for v in vals) or not isinstance(order, list):
            return None
        if not all(is_int(d) for d in order):
            return None
        return (
            f"#ttg.swizzled_shared<{{vec = {vals[0]}, perPhase = {vals[1]}, maxPhase = "
            f"{vals[2]}, order = [{', '.join(str(d) for d in order)}]}}>"
        )
    if kind == "nvmma":
        swz, bits = lay.get("swizzle_bytes", 128), lay.get("element_bitwidth", 0)
        rank, tr = lay.get("rank", 2), lay.get("transposed", False)
        if not (is_int(swz) and is_int(bits) and is_int(rank) and isinstance(tr, bool)):
            return None
        if rank < 1:
            return None
        cta = ""
        if rank != 2:
            ones = ", ".join("1" for _ in range(rank))
            order = ", ".join(str(d) for d in range(rank - 1, -1, -1))
            cta = f", CTAsPerCGA = [{ones}], CTASplitNum = [{ones}], CTAOrder = [{order}]"
        return (
            f"#ttg.nvmma_shared<{{swizzlingByteWidth = {swz}, transposed = "
            f"{'true' if tr else 'false'}, elementBitWidth = {bits}{cta}}}>"
        )
    return None


def _dims(dims: Any) -> list[int | None] | None:
    if not isinstance(dims, list) or not dims:
        return None
    out: list[int | None] = []
    for d in dims:
        if d is None or d == "?":
            out.append(None)
        elif is_int(d) and d >= 0:
            out.append(d)
        else:
            return None
    return out


def side_text(
    side: dict[str, Any], who: str, lay_name: Callable[[Any], str | None], attrs: dict[str, str]
) -> str | None:
    """The side as ``!ttg.memdesc<...>`` text, or None when text cannot say all it says."""
    allowed = {"shape", "dtype", "layout", "space", "mutable", "alloc_shape", "kind"}
    if who == "source":
        allowed |= set(SOURCE_ONLY)
    if set(side) - allowed or side.get("kind", "buffered_tensor") != "buffered_tensor":
        return None
    if who == "source":
        alloc = side.get("alloc_shape") or side.get("shape")
        offs = side.get("view_offsets")
        if offs is not None and (not isinstance(offs, list) or any(offs) or not static(alloc)):
            return None
        if offs is not None and len(offs) != len(alloc):
            return None
        if side.get("base_offset_bytes", 0) != 0 or isinstance(side.get("base_offset_bytes"), bool):
            return None
        if "alloc_alignment" in side and side["alloc_alignment"] != default_alignment(side, attrs):
            return None
    dims, dt = _dims(side.get("shape")), dtype_text(side.get("dtype"))
    space = (
        SPACE_TEXT.get(side.get("space", "smem"))
        if isinstance(side.get("space", "smem"), str)
        else None
    )
    mutable = side.get("mutable", True)
    if dims is None or dt is None or space is None or not isinstance(mutable, bool):
        return None
    lay = lay_name(side.get("layout"))
    if lay is None:
        return None
    alloc = None
    if "alloc_shape" in side:
        alloc = _dims(side["alloc_shape"])
        if alloc is None:
            return None
    return format_memdesc(dims, dt, lay, space, mutable, alloc, keep_alloc=True)


class Names:
    """Attribute aliases for layout texts (``#sN``), shared by every side of one module."""

    def __init__(self, existing: Mapping[str, str] | None = None) -> None:
        self.attrs: dict[str, str] = dict(existing or {})
        self._by_text: dict[str, str] = {}

    def name(self, lay: Any) -> str | None:
        if lay is None:
            return None  # a type has no spelling of "no layout"
        if isinstance(lay, str) and (lay.strip() in self.attrs or _bare_alias(lay)):
            return lay.strip()  # a defined alias, or an undefined one (the request's words)
        text = layout_text(lay)
        if text is None:
            return None
        if text not in self._by_text:
            name = f"#s{len(self._by_text)}"
            while name in self.attrs:
                name += "_"
            self._by_text[text] = name
            self.attrs[name] = text
        return self._by_text[text]


def _bare_alias(text: str) -> bool:
    return re.fullmatch(r"#[\w.$-]+", text.strip()) is not None


def mlir_request(req: dict[str, Any], via_aliases: bool) -> dict[str, Any] | None:
    """The request with each side MLIR text where text can hold it; None if neither can."""
    attrs = attributes(req)
    out = copy_json(req)
    names = Names(attrs)
    wrote = 0

    def inline(lay: Any) -> str | None:
        # A name the request defines under "attributes" stays that name.
        if isinstance(lay, str) and lay.strip() in attrs:
            return lay.strip()
        return layout_text(lay)  # None for no layout: a type has no spelling of it

    for who in ("source", "result"):
        text = side_text(req[who], who, names.name if via_aliases else inline, attrs)
        if text is not None:
            out[who] = text
            wrote += 1
    if not wrote:
        return None
    if via_aliases and names.attrs:
        out["attributes"] = names.attrs
    return out


status = prepare = nothing_missing


def outcomes(batch: Batch) -> list[Outcome | None]:
    out: list[Outcome | None] = []
    for i, c in enumerate(batch.canonical):
        text = None if c is None else mlir_request(c, via_aliases=(batch.start + i) % 2 == 1)
        out.append(None if text is None else parsed(text))
    return out


def labels(batch: Batch, i: int) -> tuple[str, ...]:
    return by_op(NAME, batch, i)


compare = compare_facts
