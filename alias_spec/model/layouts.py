"""Shared-memory layouts: only what the rules need from them (the NVMMA swizzle repeat).

Swizzled and NVMMA shared layouts are modelled (the spec knows where their bytes lie). Any
other layout attribute (``#ttg.padded_shared``, ``#ttg.shared_linear``, a tensor memory
encoding, ...) is read as kind "other": its byte placement is unknown, and only what the
attribute states (its rank, a padded layout's padding) is kept."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from alias_spec.model.errors import RequestError, one_line, shown
from alias_spec.model.literals import DECIMAL, INT64_MAX, decimal
from alias_spec.model.physical import swizzle_repeat

NVMMA_SWIZZLES = (0, 32, 64, 128)


@dataclass(frozen=True)
class Layout:
    kind: str  # "swizzled", "nvmma", "other" or "unresolved"
    swizzle_bytes: int = 0
    text: str = ""
    name: str = ""  # the attribute's name, e.g. "ttg.padded_shared"
    rank: int | None = None  # "other": the rank the attribute states, if it states one
    # padded_shared: (interval, padding) pairs in elements; the allocation holds `padding`
    # extra elements after every `interval` elements, so it is larger than its logical shape.
    padding: tuple[tuple[int, int], ...] = ()

    @property
    def swizzle_repeat(self) -> int:
        """Bytes after which an NVMMA swizzle pattern repeats: 128 x maxPhase, maxPhase =
        swizzle / 16, i.e. 8 x swizzle bytes (1024 for the 128-byte swizzle); 0 if none."""
        return swizzle_repeat(self.swizzle_bytes) if self.kind == "nvmma" else 0

    @property
    def placement_known(self) -> bool:
        """The spec knows where this layout puts each element: a swizzled or NVMMA layout, an
        undefined alias (judged as unswizzled, with a note) or no layout at all."""
        return self.kind != "other" or not self.text

    def describe(self) -> str:
        """The layout as a verdict names it: its attribute name, and its padding if any."""
        what = f"#{self.name}" if self.name else self.text[:40]
        if self.padding:
            pads = ", ".join(f"{p} after every {i}" for i, p in self.padding)
            what += f" (padding elements: {pads}; the allocation is larger than the shape)"
        return what


_ATTR = re.compile(r"^#(?:ttg\.)?(\w+)\s*<\s*\{(.*)\}\s*>$", re.S)
_ANY_ATTR = re.compile(r"^#([A-Za-z_][\w.]*)\s*<(.*)>$", re.S)
# Linear time on any text: \b lets a key start only where a word starts (not at each of its
# characters), and a list value stops at the next bracket (so an unclosed "[" is not scanned
# to the end again from every later "["). Quadratic patterns here hung on long attributes.
_KV = re.compile(r"\b(\w+)\s*=\s*(\[[^\[\]]*\]|[^,]+)")
_PADDING = re.compile(r"^\s*\[([^\]]*)\]")
_INTERVAL = re.compile(r"^\s*([0-9]+)\s*:\s*\+\s*([0-9]+)\s*$", re.ASCII)


def _list_len(body: str, key: str) -> int | None:
    """Entries of the list ``key = [...]`` in an attribute body (None if absent or empty)."""
    m = re.search(rf"\b{key}\s*=\s*\[([^\[\]]*)\]", body)
    n = len(DECIMAL.findall(m.group(1))) if m else 0
    return n or None


def _basis_len(body: str) -> int | None:
    """Entries of the first basis vector of ``offset = [[...], ...]`` (a linear layout's rank)."""
    m = re.search(r"\boffset\s*=\s*\[\s*\[([^\[\]]*)\]", body)
    n = len(DECIMAL.findall(m.group(1))) if m else 0
    return n or None


def _other(name: str, body: str, text: str, field: str) -> Layout:
    """An attribute the spec does not model: its rank where it states one (a padded or linear
    shared layout: its order, or its linear map's basis vectors), and a padded layout's
    padding."""
    short = name.removeprefix("ttg.")
    rank = None
    padding: list[tuple[int, int]] = []
    if short in ("padded_shared", "shared_linear"):
        rank = _list_len(body, "order") or _basis_len(body) or _list_len(body, "shape")
    if short == "padded_shared":
        m = _PADDING.match(body)
        for part in m.group(1).split(",") if m else ():
            got = _INTERVAL.match(part)
            if not got:
                raise RequestError(field, f"bad padding interval {one_line(part.strip(), 40)!r}")
            interval = decimal(got.group(1), field, 1, INT64_MAX, "padding interval")
            padding.append((interval, decimal(got.group(2), field, 0, INT64_MAX, "padding")))
    return Layout("other", 0, text, name, rank, tuple(padding))


def _nvmma(swizzle: Any, field: str, text: str = "") -> Layout:
    if isinstance(swizzle, bool) or swizzle not in NVMMA_SWIZZLES:
        raise RequestError(
            field, f"NVMMA swizzle must be one of {NVMMA_SWIZZLES}, got {shown(swizzle)}"
        )
    return Layout("nvmma", int(swizzle), text)


def parse_layout(value: Any, field: str, aliases: dict[str, str] | None = None) -> Layout | None:
    """A layout given as a JSON object, MLIR attribute text or an attribute alias name."""
    if value is None:
        return None
    if isinstance(value, dict):
        kind = value.get("kind")
        if kind == "nvmma":
            return _nvmma(value.get("swizzle_bytes", 128), f"{field}.swizzle_bytes")
        if kind == "swizzled":
            return Layout("swizzled")
        raise RequestError(
            f"{field}.kind", f"layout kind must be 'swizzled' or 'nvmma', got {shown(kind)}"
        )
    if not isinstance(value, str):
        raise RequestError(
            field, f"layout must be an object or MLIR text, got {type(value).__name__}"
        )
    text = value.strip()
    if aliases and text in aliases:
        return parse_layout(aliases[text], field)
    if re.fullmatch(r"#[\w.]+", text):
        return Layout("unresolved", 0, text)  # an attribute alias such as #shared
    any_attr = _ANY_ATTR.match(text)
    if not any_attr:
        raise RequestError(field, f"cannot read layout attribute {one_line(text, 60)!r}")
    full = any_attr.group(1)
    if full.removeprefix("ttg.") not in ("nvmma_shared", "swizzled_shared"):
        return _other(full, any_attr.group(2), text, field)
    m = _ATTR.match(text)
    if not m:
        raise RequestError(field, f"cannot read layout attribute {one_line(text, 60)!r}")
    name, body = m.group(1), m.group(2)
    params = {k: v.strip() for k, v in _KV.findall(body)}
    if name == "nvmma_shared":
        raw = params.get("swizzlingByteWidth", "0")
        if not DECIMAL.fullmatch(raw):
            raise RequestError(field, f"swizzlingByteWidth must be an integer, got {raw[:40]!r}")
        return _nvmma(decimal(raw, field, 0, INT64_MAX, "swizzlingByteWidth"), field, text)
    return Layout("swizzled", 0, text)
