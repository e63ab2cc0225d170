"""Reading ``!ttg.memdesc<...>`` types out of TTGIR text, for lint and the plan validator.

``memdesc_types`` finds every memdesc type of a statement (brackets matched, so layouts with
``<...>`` inside stay whole); ``first_memdesc`` reads the first as written and
``memdesc_side`` into the spec's request form (shape, dtype, layout, memory space resolved,
mutability, alloc shape), both through the model's one reader (``model.memdesc``);
``dense_bytes`` is an allocation's byte size from its type, where the layout places elements
densely.
"""

from __future__ import annotations

import re
from typing import Any

from alias_spec.model.dtypes import DTYPE_BITS
from alias_spec.model.errors import RequestError
from alias_spec.model.facts import elem_bytes
from alias_spec.model.memdesc import memdesc_fields

_OPEN = re.compile(r"!ttg\.memdesc<")


def _strip_arrow(text: str) -> str:
    # "->" would count as a closing ">".
    return text.replace("->", "  ")


def _matching(text: str, open_ch: str, close_ch: str) -> dict[int, int]:
    """Position of each opening bracket -> position of its closing one (one linear pass;
    brackets left open have no entry)."""
    out: dict[int, int] = {}
    stack: list[int] = []
    for i, ch in enumerate(text):
        if ch == open_ch:
            stack.append(i)
        elif ch == close_ch and stack:
            out[stack.pop()] = i
    return out


def memdesc_types(text: str) -> list[str]:
    """Every ``!ttg.memdesc<...>`` in the text, in order (brackets matched; one left open is
    not a type)."""
    if "!ttg.memdesc<" not in text:
        return []
    close = _matching(_strip_arrow(text), "<", ">")
    out = []
    for m in _OPEN.finditer(text):
        end = close.get(m.end() - 1)
        if end is not None:
            out.append(text[m.start() : end + 1])
    return out


def first_memdesc(text: str) -> dict[str, Any] | None:
    """The fields of the first memdesc type in the text as written (``memdesc_fields``: shape,
    dtype, layout, space, mutability, alloc shape), or None where there is none or it is not
    one MLIR would read."""
    for t in memdesc_types(text):
        try:
            return memdesc_fields(t, "memdesc")
        except RequestError:
            return None
    return None


def memdesc_side(text: str, aliases: dict[str, str]) -> dict[str, Any]:
    """One memdesc type as a spec request side, its memory space resolved by what the module
    defines its alias as (never by the alias's name); RequestError when it is not one."""
    from alias_spec.model.memdesc import parse_memdesc

    return parse_memdesc(text, "memdesc", aliases)


def _elem_bytes(dtype: str) -> int | None:
    bits = DTYPE_BITS.get(dtype)
    if bits is None:
        return None
    return elem_bytes(bits) if bits % 8 == 0 or bits < 8 else None


def dense_bytes(text: str, aliases: dict[str, str], context: str | None = None) -> int | None:
    """The byte size of the first memdesc type in ``text``: product of its dims times the
    element's bytes. None where that is not the allocation's size or is not known: a padded
    layout (adds bytes this reader does not model), tensor memory (named in the type, its
    layout, or ``context``, the statement the type is in), a dynamic dim, an unknown dtype."""
    md = first_memdesc(text)
    if md is None:
        return None
    layout = md["layout"]
    layout_text = aliases.get(layout, layout)
    tmem = "tensor_memory" in (text if context is None else context)
    if "padded" in layout_text or tmem or "#ttng.tensor" in layout_text:
        return None
    if any(d is None for d in md["shape"]):
        return None
    size = _elem_bytes(md["dtype"])
    if size is None:
        return None
    for d in md["shape"]:
        size *= d
    return size
