"""Reading MLIR memdesc type text into the JSON form of a request side."""

from __future__ import annotations

import re
from typing import Any

from alias_spec.model.errors import RequestError, one_line
from alias_spec.model.literals import DECIMAL, INT64_MAX, decimal

SPACE_NAMES = {
    "#smem": "smem",
    "#ttg.shared_memory": "smem",
    "#tmem": "tmem",
    "#ttng.tensor_memory": "tmem",
    "#global": "global",
}


def split_top(text: str) -> list[str]:
    """Split on commas that are not nested inside <>, {}, [] or ()."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch in "<{[(":
            depth += 1
        elif ch in ">}])":
            depth -= 1
            if depth < 0:
                raise ValueError("unbalanced brackets")
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if depth != 0:
        raise ValueError("unbalanced brackets")
    parts.append("".join(cur).strip())
    return parts


def _dims(text: str, field: str) -> list[int | None]:
    """``4x?x16``: each dim ``?`` or ASCII decimal digits up to INT64_MAX (MLIR's int64 dims;
    it rejects a larger one as an invalid dimension)."""
    out: list[int | None] = []
    for d in text.split("x"):
        if d == "?":
            out.append(None)
        elif not d.startswith("-") and DECIMAL.fullmatch(d):
            out.append(decimal(d, field, 0, INT64_MAX, "dimension"))
        else:
            raise RequestError(field, f"bad dimension {one_line(d, 40)!r} in memdesc")
    return out


def parse_memdesc(text: str, field: str) -> dict[str, Any]:
    """``!ttg.memdesc<SHAPExELEM, LAYOUT, SPACE[, mutable][, ALLOCSHAPE]>`` to a side dict."""
    m = re.fullmatch(r"\s*!ttg\.memdesc<(.*)>\s*", text, re.S)
    if not m:
        raise RequestError(field, f"expected '!ttg.memdesc<...>' type text, got {text[:60]!r}")
    try:
        parts = split_top(m.group(1))
    except ValueError as exc:
        raise RequestError(field, f"{exc} in memdesc type") from None
    if len(parts) < 3:
        raise RequestError(field, "memdesc needs shape and element type, layout and memory space")
    head = parts[0].split("x")
    if len(head) < 2:
        raise RequestError(field, f"memdesc shape {parts[0]!r} needs dims and an element type")
    side: dict[str, Any] = {
        "kind": "buffered_tensor",
        "shape": _dims("x".join(head[:-1]), field),
        "dtype": head[-1],
        "layout": parts[1],
        "mutable": False,
    }
    space = parts[2]
    if space not in SPACE_NAMES:
        raise RequestError(field, f"unknown memory space {space!r} in memdesc")
    side["space"] = SPACE_NAMES[space]
    for extra in parts[3:]:
        if extra == "mutable":
            side["mutable"] = True
        elif "x" in extra or DECIMAL.fullmatch(extra):
            side["alloc_shape"] = _dims(extra, field)
        else:
            raise RequestError(field, f"unexpected memdesc part {extra!r}")
    return side
