"""Shared-memory layouts: one reader of a layout, written as a JSON object, as MLIR attribute
text or as an attribute alias name, into one canonical ``Layout``.

Swizzled and NVMMA shared layouts are modelled (the spec knows where their bytes lie): every
parameter is read, a parameter left out gets its default, so two spellings of one layout give
equal ``Layout`` values (and ``key``s). Both the physical facts (the NVMMA swizzle repeat) and
the type facts (rank, order, swizzle parameters; ``triton_facts.py``) are read from it. Any
other layout attribute (``#ttg.padded_shared``, ``#ttg.shared_linear``, a tensor memory
encoding, ...) is kind "other": its byte placement is unknown, and only what the attribute
states (its rank, a padded layout's padding) is kept. An attribute alias the request does not
define is kind "unresolved": nothing about it is known."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from alias_spec.model.errors import RequestError, key_error, one_line, shown
from alias_spec.model.facts import elem_bytes
from alias_spec.model.literals import DECIMAL, INT64_MAX, decimal, decimals
from alias_spec.model.physical import Axis, swizzle_repeat

NVMMA_SWIZZLES = (0, 32, 64, 128)
# Layout parameters are 32-bit unsigned in Triton's attributes.
PARAM_MAX = 2**32 - 1
# JSON keys of each modelled kind, with their defaults.
JSON_DEFAULTS: dict[str, dict[str, Any]] = {
    "swizzled": {"vec": 1, "per_phase": 1, "max_phase": 1, "order": []},
    "nvmma": {"swizzle_bytes": 128, "transposed": False, "element_bitwidth": 0, "rank": 2},
}
# Renamed JSON layout fields: old name -> (kind, new name). The old name is read as the new one,
# with a deprecation note, for one minor version (0.2.x: element_bits, renamed in 0.2.0).
RENAMED: dict[str, tuple[str, str]] = {"element_bits": ("nvmma", "element_bitwidth")}
RENAMED_UNTIL = "0.3.0"
# Attribute parameters the model reads, per attribute; any other parameter is kept as written
# (blanks removed) so that it still tells encodings apart, unless it has its default value.
_READ = {
    "swizzled_shared": {"vec", "perPhase", "maxPhase", "order"},
    "nvmma_shared": {"swizzlingByteWidth", "transposed", "elementBitWidth"},
}
_CTA = ("CTAsPerCGA", "CTASplitNum", "CTAOrder")
_EXTRA_DEFAULTS = {"fp4Padded": "false"}


@dataclass(frozen=True)
class Layout:
    """A layout with every parameter filled in. Equality (and ``key``) is the layout's
    identity, whatever its spelling: ``text`` (the attribute as written) is not compared."""

    kind: str  # "swizzled", "nvmma", "other" or "unresolved"
    swizzle_bytes: int = 0  # NVMMA swizzlingByteWidth
    text: str = field(default="", compare=False)
    # The attribute's name, e.g. "ttg.padded_shared"; an unresolved alias's name, e.g. "shared".
    name: str = ""
    rank: int | None = None  # None: not stated (a swizzled layout without order, "other" ones)
    # padded_shared: (interval, padding) pairs in elements; the allocation holds `padding`
    # extra elements after every `interval` elements, so it is larger than its logical shape.
    padding: tuple[tuple[int, int], ...] = ()
    order: tuple[int, ...] = ()  # swizzled: fastest-varying dim first
    vec: int = 1
    per_phase: int = 1
    max_phase: int = 1
    transposed: bool = False  # NVMMA
    elem_bits: int = 0  # NVMMA elementBitWidth
    # CTAsPerCGA, CTASplitNum, CTAOrder as written, each empty when it is its default.
    cta: tuple[tuple[int, ...], ...] = ()
    # Parameters the model does not read, as written without blanks ("other": the whole body).
    extra: tuple[tuple[str, str], ...] = ()

    @property
    def key(self) -> str:
        """The layout's identity: equal for every spelling of one layout (Triton's "same
        encoding")."""
        return repr(
            (self.kind, self.name, self.swizzle_bytes, self.rank, self.padding, self.order,
             self.vec, self.per_phase, self.max_phase, self.transposed, self.elem_bits, self.cta,
             self.extra)
        )  # fmt: skip

    @property
    def swizzle_repeat(self) -> int:
        """Bytes after which an NVMMA swizzle pattern repeats: 128 x maxPhase, maxPhase =
        swizzle / 16, i.e. 8 x swizzle bytes (1024 for the 128-byte swizzle); 0 if none."""
        return swizzle_repeat(self.swizzle_bytes) if self.kind == "nvmma" else 0

    @property
    def placement_known(self) -> bool:
        """The spec knows where this layout puts each element: a swizzled or NVMMA layout (an
        attribute it does not model, or an alias nobody defined, says nothing of it)."""
        return self.kind in ("swizzled", "nvmma")

    def describe(self) -> str:
        """The layout as a verdict names it: its attribute name, and its padding if any."""
        if self.kind == "unresolved":
            return f"#{self.name} (an undefined attribute alias)"
        what = f"#{self.name}" if self.name else self.text[:40]
        if self.padding:
            pads = ", ".join(f"{p} after every {i}" for i, p in self.padding)
            what += f" (padding elements: {pads}; the allocation is larger than the shape)"
        return what


def axes_of(
    lay: Layout | None, alloc: list[int], bits: int, view_rank: int | None = None
) -> list[Axis] | None:
    """Where the layout puts an allocation of shape ``alloc`` (``bits``-wide elements): its
    axes, slowest first (``physical.Axis``); None for row-major or a layout whose placement the
    spec does not model. A swizzled layout orders the dims it covers by ``order`` (fastest
    first), an NVMMA one makes its contiguous dim (the second-to-last when transposed) fastest,
    cut into blocks of one swizzle row (``swizzlingByteWidth`` bytes of ``elementBitWidth``-
    wide elements) that lie after all rows of the block before. Dims a layout leaves out are
    slowest, in order, and so are an NVMMA allocation's dims before the last ``view_rank`` (the
    buffers a view of that rank is indexed out of). The swizzle inside a row is below this
    model."""
    n = len(alloc)
    if lay is None or not lay.placement_known or n < 1:
        return None
    if lay.kind == "swizzled":
        rank = len(lay.order) or n
        if rank > n or (lay.order and sorted(lay.order) != list(range(rank))):
            return None
        pad = n - rank
        order = [d + pad for d in lay.order] or list(range(n - 1, pad - 1, -1))
        return [(d, 1, alloc[d]) for d in range(pad)] + [(d, 1, alloc[d]) for d in order[::-1]]
    # Dims before the view's are buffers (Triton indexes them at the dense stride of the rest).
    covered = n if view_rank is None else min(n, view_rank)
    if covered < 2:
        return None  # one dim: row-major
    fast, rows = (n - 2, n - 1) if lay.transposed else (n - 1, n - 2)
    lead = [(d, 1, alloc[d]) for d in range(n) if d not in (fast, rows)]
    width = alloc[fast]
    ebytes = elem_bytes(lay.elem_bits or bits)
    block = lay.swizzle_bytes // ebytes if lay.swizzle_bytes and ebytes else 0
    # With one row the blocks lie end to end: the dim is dense.
    if 0 < block < width and width % block == 0 and alloc[rows] > 1:
        return lead + [(fast, block, width // block), (rows, 1, alloc[rows]), (fast, 1, block)]
    return lead + [(rows, 1, alloc[rows]), (fast, 1, width)]


def repeat_of(lay: Layout | None) -> int:
    """A side's swizzle repeat in bytes (0: no layout, or not an NVMMA one)."""
    return lay.swizzle_repeat if lay is not None else 0


_ALIAS = re.compile(r"#([\w.$-]+)")
_ATTR = re.compile(r"^#(?:ttg\.)?(\w+)\s*<\s*\{(.*)\}\s*>$", re.S)
_ANY_ATTR = re.compile(r"^#([A-Za-z_][\w.]*)\s*<(.*)>$", re.S)
# Linear time on any text: \b lets a key start only where a word starts (not at each of its
# characters), and a list value stops at the next bracket (so an unclosed "[" is not scanned
# to the end again from every later "["). Quadratic patterns here hung on long attributes.
_KV = re.compile(r"\b(\w+)\s*=\s*(\[[^\[\]]*\]|[^,]+)")
_PADDING = re.compile(r"^\s*\[([^\]]*)\]")
_INTERVAL = re.compile(r"^\s*([0-9]+)\s*:\s*\+\s*([0-9]+)\s*$", re.ASCII)
_BLANKS = re.compile(r"\s+")


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


def _other(name: str, body: str, text: str, fld: str) -> Layout:
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
                raise RequestError(fld, f"bad padding interval {one_line(part.strip(), 40)!r}")
            interval = decimal(got.group(1), fld, 1, INT64_MAX, "padding interval")
            padding.append((interval, decimal(got.group(2), fld, 0, INT64_MAX, "padding")))
    body_id = (("", _BLANKS.sub("", body)),)  # its identity: the body as written, unblanked
    return Layout("other", 0, text, name, rank, tuple(padding), extra=body_id)


def _int(raw: Any, fld: str, low: int) -> int:
    """A JSON layout parameter: an integer in [low, 2**32 - 1] (Triton's attributes hold 32-bit
    unsigned parameters)."""
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise RequestError(fld, f"must be an integer, got {shown(raw)}")
    if not low <= raw <= PARAM_MAX:
        raise RequestError(fld, f"must be in [{low}, {PARAM_MAX}], got {raw}")
    return raw


def _text_int(raw: str, fld: str, low: int) -> int:
    """An attribute parameter: ASCII decimal digits of an integer in [low, 2**32 - 1]."""
    return decimal(raw.strip(), fld, low, PARAM_MAX)


def _bool(raw: Any, fld: str, text: bool) -> bool:
    """``transposed``: a JSON bool, or in attribute text the words true and false."""
    if text and raw in ("true", "false"):
        return raw == "true"
    if not text and isinstance(raw, bool):
        return raw
    raise RequestError(fld, f"must be true or false, got {shown(raw)}")


def _swizzle(swizzle: int, fld: str) -> int:
    if swizzle not in NVMMA_SWIZZLES:
        raise RequestError(fld, f"NVMMA swizzle must be one of {NVMMA_SWIZZLES}, got {swizzle}")
    return swizzle


def _cta(rank: int | None, given: dict[str, str], fld: str) -> tuple[tuple[int, ...], ...]:
    """CTAsPerCGA, CTASplitNum and CTAOrder as written, each left out (empty) when it is the
    default for the rank (one CTA, row-major), so that writing a default changes nothing."""
    out: list[tuple[int, ...]] = []
    for i, name in enumerate(_CTA):
        got = tuple(decimals(given[name], f"{fld}.{name}", 0, PARAM_MAX)) if name in given else ()
        default = (
            rank is not None
            and len(got) == rank
            and all(v == (rank - 1 - j if i == 2 else 1) for j, v in enumerate(got))
        )
        out.append(() if default else got)
    return tuple(out) if any(out) else ()


def _renamed(value: dict[str, Any], kind: str, fld: str, notes: list[str] | None) -> dict[str, Any]:
    """``value`` with each old field name of ``kind`` read as its new name (and a note saying
    so); both names given with different values is an error naming the old one."""
    out = dict(value)
    for old, (old_kind, new) in RENAMED.items():
        if old_kind != kind or old not in value:
            continue
        if new in value and value[new] != value[old]:
            raise RequestError(
                f"{fld}.{old}",
                f"deprecated name of {new} and differs from it "
                f"({shown(value[old])} vs {shown(value[new])}); give only {new}",
            )
        out[new] = out.pop(old)
        if notes is not None:
            notes.append(
                f"{fld}.{old} is deprecated, read as {new} (renamed in 0.2.0; the old name "
                f"is refused from {RENAMED_UNTIL})"
            )
    return out


def _json(value: dict[str, Any], fld: str, notes: list[str] | None = None) -> Layout:
    kind = value.get("kind")
    if not isinstance(kind, str) or kind not in JSON_DEFAULTS:
        raise RequestError(
            f"{fld}.kind", f"layout kind must be 'swizzled' or 'nvmma', got {shown(kind)}"
        )
    value = _renamed(value, kind, fld, notes)
    defaults = JSON_DEFAULTS[kind]
    for key in value:
        if key != "kind" and key not in defaults:
            raise key_error(fld, key, f"unknown {kind} layout field")
    got = {**defaults, **value}
    if kind == "nvmma":
        swizzle = _int(got["swizzle_bytes"], f"{fld}.swizzle_bytes", 0)
        return Layout(
            "nvmma",
            _swizzle(swizzle, f"{fld}.swizzle_bytes"),
            name="ttg.nvmma_shared",
            rank=_int(got["rank"], f"{fld}.rank", 1),
            transposed=_bool(got["transposed"], f"{fld}.transposed", False),
            elem_bits=_int(got["element_bitwidth"], f"{fld}.element_bitwidth", 0),
        )
    raw_order = [] if got["order"] is None else got["order"]
    if not isinstance(raw_order, list):
        raise RequestError(f"{fld}.order", f"must be a list, got {shown(raw_order)}")
    order = tuple(_int(d, f"{fld}.order", 0) for d in raw_order)
    return Layout(
        "swizzled",
        name="ttg.swizzled_shared",
        rank=len(order) or None,
        order=order,
        vec=_int(got["vec"], f"{fld}.vec", 1),
        per_phase=_int(got["per_phase"], f"{fld}.per_phase", 1),
        max_phase=_int(got["max_phase"], f"{fld}.max_phase", 1),
    )


def _attribute(name: str, body: str, text: str, fld: str) -> Layout:
    """A swizzled_shared or nvmma_shared attribute's body, every parameter read or defaulted."""
    params = {k: v.strip() for k, v in _KV.findall(body)}
    read = _READ[name]
    cta = {k: v for k, v in params.items() if k in _CTA}
    extra = tuple(
        sorted(
            (k, _BLANKS.sub("", v))
            for k, v in params.items()
            if k not in read and k not in _CTA and _EXTRA_DEFAULTS.get(k) != v
        )
    )
    if name == "nvmma_shared":
        # Its rank is the length of its CTA lists (2 when they are left out).
        cgas = cta.get("CTAsPerCGA")
        rank = len(decimals(cgas, f"{fld}.CTAsPerCGA", 0, PARAM_MAX)) if cgas else 0
        rank = rank or 2
        swizzle = _text_int(params.get("swizzlingByteWidth", "0"), f"{fld}.swizzlingByteWidth", 0)
        bits = _text_int(params.get("elementBitWidth", "0"), f"{fld}.elementBitWidth", 0)
        return Layout(
            "nvmma",
            _swizzle(swizzle, f"{fld}.swizzlingByteWidth"),
            text,
            "ttg.nvmma_shared",
            rank,
            transposed=_bool(params.get("transposed", "false"), f"{fld}.transposed", True),
            elem_bits=bits,
            cta=_cta(rank, cta, fld),
            extra=extra,
        )
    raw_order = params.get("order")
    order = tuple(decimals(raw_order, f"{fld}.order", 0, PARAM_MAX)) if raw_order else ()
    return Layout(
        "swizzled",
        0,
        text,
        "ttg.swizzled_shared",
        len(order) or None,
        order=order,
        vec=_text_int(params.get("vec", "1"), f"{fld}.vec", 1),
        per_phase=_text_int(params.get("perPhase", "1"), f"{fld}.perPhase", 1),
        max_phase=_text_int(params.get("maxPhase", "1"), f"{fld}.maxPhase", 1),
        cta=_cta(len(order) or None, cta, fld),
        extra=extra,
    )


def parse_layout(
    value: Any,
    field: str,
    aliases: dict[str, str] | None = None,
    notes: list[str] | None = None,
) -> Layout | None:
    """A layout given as a JSON object, MLIR attribute text or an attribute alias name (looked
    up in ``aliases``); None for no layout. A value that is no layout is a RequestError naming
    ``field`` (and the parameter). A deprecated JSON field name adds a line to ``notes``."""
    if value is None:
        return None
    if isinstance(value, dict):
        return _json(value, field, notes)
    if not isinstance(value, str):
        raise RequestError(
            field, f"layout must be an object or MLIR text, got {type(value).__name__}"
        )
    text = value.strip()
    if aliases and text in aliases:
        return parse_layout(aliases[text], field)
    bare = _ALIAS.fullmatch(text)
    if bare:
        return Layout("unresolved", 0, text, bare.group(1))  # an attribute alias such as #shared
    any_attr = _ANY_ATTR.match(text)
    if not any_attr:
        raise RequestError(field, f"cannot read layout attribute {one_line(text, 60)!r}")
    full = any_attr.group(1)
    if full.removeprefix("ttg.") not in _READ:
        return _other(full, any_attr.group(2), text, field)
    m = _ATTR.match(text)
    if not m:
        raise RequestError(field, f"cannot read layout attribute {one_line(text, 60)!r}")
    return _attribute(m.group(1), m.group(2), text, field)
