"""Reading MLIR memdesc type text into the JSON form of a request side."""

from __future__ import annotations

import re
from typing import Any

from alias_spec.model.errors import RequestError, one_line
from alias_spec.model.literals import DECIMAL, INT64_MAX, decimal

# The memory-space attributes, by what they are.
SPACE_ATTRS = {"#ttg.shared_memory": "smem", "#ttng.tensor_memory": "tmem", "#global": "global"}
# The aliases Triton's printer gives those attributes: an alias the input leaves undefined is
# read as the attribute Triton prints under that name. A defined alias is read by its definition
# only (``#smem = #ttng.tensor_memory`` is tensor memory).
PRINTED_ALIASES = {"#smem": "#ttg.shared_memory", "#tmem": "#ttng.tensor_memory"}
# Alias chains (#a = #b, #b = ...) are followed this far: a longer one is a cycle or no input.
MAX_ALIAS_CHAIN = 8


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


def resolve_space(token: str, aliases: dict[str, str] | None, field: str) -> str:
    """The memory space (``smem``, ``tmem`` or ``global``) a memdesc's space part names: an
    attribute, or an alias resolved by its definition in ``aliases`` (never by its name); an
    alias left undefined is what Triton's printer names so (PRINTED_ALIASES). Lint asks here
    too."""
    seen = token.strip()
    for _ in range(MAX_ALIAS_CHAIN):
        if aliases and seen in aliases:
            seen = aliases[seen].strip()
            continue
        if seen in SPACE_ATTRS:
            return SPACE_ATTRS[seen]
        if seen in PRINTED_ALIASES:
            return SPACE_ATTRS[PRINTED_ALIASES[seen]]
        break
    else:
        raise RequestError(field, f"attribute alias {one_line(token, 40)!r} does not resolve")
    shown = token if seen == token.strip() else f"{token} (defined as {seen})"
    raise RequestError(field, f"unknown memory space {one_line(shown, 80)!r} in memdesc")


def parse_memdesc(text: str, field: str, aliases: dict[str, str] | None = None) -> dict[str, Any]:
    """``!ttg.memdesc<SHAPExELEM, LAYOUT, SPACE[, mutable][, ALLOCSHAPE]>`` to a side dict, its
    memory space resolved through ``aliases`` (resolve_space)."""
    side = memdesc_fields(text, field)
    alloc = side.pop("alloc_shape", None)  # keeps the side's key order as it always was
    side["space"] = resolve_space(side.pop("space"), aliases, field)
    if alloc is not None:
        side["alloc_shape"] = alloc
    return side


def memdesc_fields(text: str, field: str) -> dict[str, Any]:
    """The one reader of memdesc type text: shape, dtype, layout and memory space as written
    (aliases unresolved), mutability and the alloc shape when given; RequestError when the
    text is not one. ``format_memdesc`` prints it back."""
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
    if len(head) < 2 or not head[-1]:
        raise RequestError(field, f"memdesc shape {parts[0]!r} needs dims and an element type")
    side: dict[str, Any] = {
        "kind": "buffered_tensor",
        "shape": _dims("x".join(head[:-1]), field),
        "dtype": head[-1],
        "layout": parts[1],
        "mutable": False,
        "space": parts[2],
    }
    for extra in parts[3:]:
        if extra == "mutable":
            side["mutable"] = True
        elif "x" in extra or DECIMAL.fullmatch(extra):
            side["alloc_shape"] = _dims(extra, field)
        else:
            raise RequestError(field, f"unexpected memdesc part {extra!r}")
    return side


Dims = list[int | None] | tuple[int | None, ...]


def format_memdesc(shape: Dims, dtype: str, layout: str, space: str, mutable: bool = False,
                   alloc_shape: Dims | None = None, keep_alloc: bool = False) -> str:  # fmt: skip
    """The one printer of memdesc type text, as MLIR prints it (``memdesc_fields`` reads it
    back): dims and element type joined by ``x``, then layout, space, ``mutable`` and the
    alloc shape when it differs from the shape (``keep_alloc``: whenever it is given; MLIR
    reads an alloc shape equal to the shape too)."""
    dims = "x".join("?" if d is None else str(d) for d in shape)
    parts = [f"{dims}x{dtype}" if dims else dtype, layout, space]
    if mutable:
        parts.append("mutable")
    if alloc_shape is not None and (keep_alloc or list(alloc_shape) != list(shape)):
        parts.append("x".join("?" if d is None else str(d) for d in alloc_shape))
    return "!ttg.memdesc<" + ", ".join(parts) + ">"
