"""Shared-memory layouts: only what the rules need from them (the NVMMA swizzle repeat)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .errors import RequestError

NVMMA_SWIZZLES = (0, 32, 64, 128)


@dataclass(frozen=True)
class Layout:
    kind: str  # "swizzled", "nvmma", "other" or "unresolved"
    swizzle_bytes: int = 0
    text: str = ""

    @property
    def swizzle_repeat(self) -> int:
        """Bytes after which an NVMMA swizzle pattern repeats: 128 x maxPhase, maxPhase =
        swizzle / 16, i.e. 8 x swizzle bytes (1024 for the 128-byte swizzle); 0 if none."""
        return 8 * self.swizzle_bytes if self.kind == "nvmma" else 0


_ATTR = re.compile(r"^#(?:ttg\.)?(\w+)\s*<\s*\{(.*)\}\s*>$", re.S)
_KV = re.compile(r"(\w+)\s*=\s*(\[[^\]]*\]|[^,]+)")


def _nvmma(swizzle: Any, field: str, text: str = "") -> Layout:
    if isinstance(swizzle, bool) or swizzle not in NVMMA_SWIZZLES:
        raise RequestError(field, f"NVMMA swizzle must be one of {NVMMA_SWIZZLES}, got {swizzle!r}")
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
            f"{field}.kind", f"layout kind must be 'swizzled' or 'nvmma', got {kind!r}"
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
    m = _ATTR.match(text)
    if not m:
        raise RequestError(field, f"cannot read layout attribute {text!r}")
    name, body = m.group(1), m.group(2)
    params = {k: v.strip() for k, v in _KV.findall(body)}
    if name == "nvmma_shared":
        raw = params.get("swizzlingByteWidth", "0")
        if not raw.isdigit():
            raise RequestError(field, f"swizzlingByteWidth must be an integer in {text!r}")
        return _nvmma(int(raw), field, text)
    if name == "swizzled_shared":
        return Layout("swizzled", 0, text)
    return Layout("other", 0, text)
