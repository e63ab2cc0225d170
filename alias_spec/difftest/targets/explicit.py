"""``explicit``: the same request in JSON with every default spelled out (spaces, mutability,
kind, scope, offset, init_value, alloc shape, view offsets, base, alignment, layout
parameters, a dynamic dim as null). Every request whose sides are objects or memdesc text."""

from __future__ import annotations

from typing import Any

from alias_spec.difftest.outcomes import PathOutcome as Outcome
from alias_spec.difftest.requests import ALIAS
from alias_spec.difftest.targets import (
    Batch,
    attributes,
    compare_facts,
    copy_json,
    default_alignment,
    nothing_missing,
    parsed,
    static,
)

NAME = "explicit"

_LAYOUT_DEFAULTS = {
    "nvmma": {"swizzle_bytes": 128, "transposed": False, "element_bitwidth": 0, "rank": 2},
    "swizzled": {"vec": 1, "per_phase": 1, "max_phase": 1, "order": []},
}


def spelled_out(req: dict[str, Any]) -> dict[str, Any]:
    """The canonical request with every default spelled out."""
    out = copy_json(req)
    attrs = attributes(out)
    op = out.get("op", ALIAS)
    if op == ALIAS:
        out.setdefault("scope", "smem")
        out.setdefault("alias_offset_bytes", 0)
        out.setdefault("init_value", None)
    for who in ("source", "result"):
        side = out[who]
        side.setdefault("space", "smem")
        side.setdefault("mutable", True)
        if who == "source":
            side.setdefault("kind", "buffered_tensor")
        lay = side.get("layout")
        if isinstance(lay, dict) and lay.get("kind") in _LAYOUT_DEFAULTS:
            for k, v in _LAYOUT_DEFAULTS[lay["kind"]].items():
                lay.setdefault(k, v)
        if isinstance(side.get("shape"), list):  # a dynamic dim as null, not "?"
            side["shape"] = [None if d == "?" else d for d in side["shape"]]
        if static(side.get("shape")) and "alloc_shape" not in side:
            side["alloc_shape"] = list(side["shape"])
    src = out["source"]
    if static(src.get("shape")) and static(src.get("alloc_shape")):
        src.setdefault("view_offsets", [0] * len(src["alloc_shape"]))
    src.setdefault("base_offset_bytes", 0)
    if "alloc_alignment" not in src:
        align = default_alignment(src, attrs)
        if align is not None:
            src["alloc_alignment"] = align
    return out


status = prepare = nothing_missing


def outcomes(batch: Batch) -> list[Outcome | None]:
    return [None if c is None else parsed(spelled_out(c)) for c in batch.canonical]


def labels(batch: Batch, i: int) -> tuple[str, ...]:
    return (NAME,)


compare = compare_facts
