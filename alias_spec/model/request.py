"""A request (JSON, or MLIR memdesc text per side) reduced to primitive facts."""

from __future__ import annotations

import difflib
import json
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from alias_spec.model.dtypes import dtype_bits
from alias_spec.model.errors import RequestError, key_error, shown
from alias_spec.model.facts import INT64_MAX, OPS, SCOPES, SPACES, Facts, elem_bytes
from alias_spec.model.layouts import Layout, axes_of, parse_layout, repeat_of
from alias_spec.model.literals import INT64_MIN, JSON_INT_MAX
from alias_spec.model.memdesc import parse_memdesc
from alias_spec.model.physical import EMPTY, base_alignment, footprint, static_elems
from alias_spec.model.triton_facts import (
    NEUTRAL_OP_FACTS,
    canonical_dtype,
    index_value,
    prefix_subview,
    subslice_facts,
    subslice_span,
    type_facts,
)
from alias_spec.model.unknown import unmodelled_facts

TOP_KEYS = {"source", "result", "scope", "alias_offset_bytes", "init_value", "attributes"}
META_KEYS = {"name", "description", "expect", "op"}
ALIAS_ONLY = {"scope", "alias_offset_bytes", "init_value"}
OP_KEYS = {"ttg.memdesc_subslice": {"offsets"}, "ttg.memdesc_index": {"index"}}
DEFAULT_OP = "tle.memdesc_alias"
BUFFERED = "buffered_tensor"
SIDE_KEYS = {"kind", "shape", "dtype", "space", "mutable", "layout", "alloc_shape"}
SOURCE_ONLY = {"view_offsets", "base_offset_bytes", "alloc_alignment"}
MAX_RANK = 16
# Requests nest a few levels (list, request, side, layout, order): a deeper value is no
# request, and refusing it up front keeps every later walk over it far from the recursion limit.
MAX_DEPTH = 32


@dataclass(frozen=True)
class Request:
    facts: Facts
    raw: dict[str, Any]
    notes: tuple[str, ...] = field(default=())
    # Facts the request cannot know (filled in as if dense shared memory), and what the spec
    # does not model that makes them unknown: the rules reading them are not judged.
    unknown: frozenset[str] = field(default=frozenset())
    unmodelled: tuple[str, ...] = field(default=())
    # The source's and the result's layouts (None: none given), read once by layouts.py.
    layouts: tuple[Layout | None, Layout | None] = field(default=(None, None))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _bounded(v: Any, fld: str) -> Any:
    """``v``, after refusing an integer of 2**128 or more in magnitude (see JSON_INT_MAX)."""
    if _is_int(v) and not -JSON_INT_MAX < v < JSON_INT_MAX:
        raise RequestError(fld, "integers must be below 2^128 in magnitude")
    return v


def _unknown_field(key: str, allowed: Collection[str], prefix: str = "") -> RequestError:
    """The error for a field no request of this kind has, naming the nearest allowed one when
    the name looks like a typo of it."""
    hint = ""
    if isinstance(key, str):
        near = difflib.get_close_matches(key, sorted(allowed), n=1, cutoff=0.6)
        if near:
            hint = f"; did you mean {near[0]!r}?"
    return key_error(prefix, key, "unknown field", hint)


def _choice(v: Any, names: dict[str, int], fld: str) -> int:
    """The code of a name among ``names``; any other JSON value names ``fld``."""
    if not isinstance(v, str) or v not in names:
        raise RequestError(fld, f"must be one of {', '.join(names)}, got {shown(v)}")
    return names[v]


def _shape(value: Any, fld: str, allow_dynamic: bool) -> list[int | None]:
    if not isinstance(value, list) or not value:
        raise RequestError(fld, "must be a non-empty list of dimensions")
    if len(value) > MAX_RANK:
        raise RequestError(fld, f"rank {len(value)} exceeds {MAX_RANK}")
    out: list[int | None] = []
    for i, d in enumerate(value):
        if _is_int(d):
            if not allow_dynamic and d < 0:
                raise RequestError(f"{fld}[{i}]", f"must be non-negative, got {shown(d)}")
            if not INT64_MIN <= d <= INT64_MAX:
                raise RequestError(f"{fld}[{i}]", "must fit in int64 (MLIR's dimension type)")
            out.append(d)
        elif allow_dynamic and (d is None or d == "?"):
            out.append(None)
        else:
            kind = "an integer, null or '?'" if allow_dynamic else "a non-negative integer"
            raise RequestError(f"{fld}[{i}]", f"must be {kind}, got {shown(d)}")
    return out


def _side(value: Any, name: str, aliases: dict[str, str]) -> dict[str, Any]:
    if isinstance(value, str):
        # The memory space resolves through the request's own alias definitions.
        value = parse_memdesc(value, name, aliases)
    if not isinstance(value, dict):
        raise RequestError(name, f"must be an object or memdesc text, got {type(value).__name__}")
    allowed = SIDE_KEYS | (SOURCE_ONLY if name == "source" else set())
    for key in value:
        if key not in allowed:
            raise _unknown_field(key, allowed, name)
    for key in ("shape", "dtype"):
        if key not in value:
            raise RequestError(f"{name}.{key}", "missing")
    kind = value.get("kind", BUFFERED)
    if name == "result" and kind != BUFFERED:  # a result is a memdesc whatever the op
        raise RequestError(f"{name}.kind", f"must be {BUFFERED!r}, got {shown(kind)}")
    if not isinstance(kind, str):  # a source of another kind is alias.source.kind's to judge
        raise RequestError(f"{name}.kind", f"must be a string, got {shown(kind)}")
    # The forms of the optional lists, whatever the request goes on to judge: a malformed one
    # is an error, never silently replaced by a default.
    shape = _shape(value["shape"], f"{name}.shape", True)
    alloc = value.get("alloc_shape")
    if alloc is not None:
        _shape(alloc, f"{name}.alloc_shape", True)
    offsets = value.get("view_offsets")
    if offsets is not None:
        rank = len(shape) if alloc is None else len(alloc)
        if (
            not isinstance(offsets, list)
            or len(offsets) != rank
            or not all(_is_int(o) and o >= 0 for o in offsets)
        ):
            raise RequestError(
                f"{name}.view_offsets", f"must be {rank} non-negative integers (one per alloc dim)"
            )
        for i, o in enumerate(offsets):
            _bounded(o, f"{name}.view_offsets[{i}]")
    return value


def _sides(obj: dict[str, Any]) -> tuple[dict[str, str], dict[str, Any], dict[str, Any]]:
    """The attribute alias map and both validated sides of a request."""
    aliases = obj.get("attributes")
    if aliases is None:
        aliases = {}
    if not isinstance(aliases, dict) or not all(isinstance(v, str) for v in aliases.values()):
        raise RequestError("attributes", "must map attribute alias names to MLIR attribute text")
    return aliases, _side(obj["source"], "source", aliases), _side(obj["result"], "result", aliases)


def _flag(side: dict[str, Any], key: str, fld: str, default: bool) -> bool:
    v = side.get(key, default)
    if not isinstance(v, bool):
        raise RequestError(fld, f"must be true or false, got {shown(v)}")
    return v


def _space(side: dict[str, Any], fld: str) -> int:
    return _choice(side.get("space", "smem"), SPACES, fld)


def _nonneg_int(side: dict[str, Any], key: str, fld: str, default: int, minimum: int = 0) -> int:
    v = side.get(key, default)
    if not _is_int(v) or v < minimum:
        raise RequestError(fld, f"must be an integer >= {minimum}, got {shown(v)}")
    return int(_bounded(v, fld))


_MEMORY = {"tmem": "tensor memory", "global": "global memory"}


def _layouts(
    src: dict[str, Any], res: dict[str, Any], aliases: dict[str, str], notes: list[str]
) -> tuple[Layout | None, Layout | None]:
    """Both sides' layouts, with a note for each that is an attribute alias nobody defined."""
    out = []
    for who, side in (("source", src), ("result", res)):
        lay = parse_layout(side.get("layout"), f"{who}.layout", aliases, notes)
        if lay is not None and lay.kind == "unresolved":
            notes.append(
                f"{who} layout {lay.text} is an undefined attribute alias: where its bytes lie "
                "is unknown (define it under 'attributes' to judge the rules that need it)"
            )
        out.append(lay)
    return out[0], out[1]


def _request(
    obj: dict[str, Any],
    op: str,
    facts: Facts,
    notes: list[str],
    sides: tuple[dict[str, Any], dict[str, Any]],
    layouts: tuple[Layout | None, Layout | None],
) -> Request:
    """The parsed request, with the facts it cannot know, and why: a side in memory other
    than shared memory, or with a layout whose byte placement the spec does not model (an
    undefined attribute alias included). What a side's layout states stays known
    (unknown.unmodelled_facts, which lint asks too)."""
    whose: dict[str, list[str]] = {}  # what is not modelled -> the sides it is on
    for who, side, lay in zip(("source", "result"), sides, layouts, strict=True):
        space = side.get("space", "smem")
        if space != "smem":
            whose.setdefault(_MEMORY.get(space, space), []).append(who)
        elif lay is not None and not lay.placement_known:
            whose.setdefault(f"layout {lay.describe()}", []).append(who)
    why = tuple(f"{what} in the {' and the '.join(who)}" for what, who in whose.items())
    unknown = unmodelled_facts(op, *layouts) if whose else frozenset()
    return Request(facts, obj, tuple(notes), unknown, why, layouts)


def _source_geometry(
    src: dict[str, Any],
    shape: list[int | None],
    static: bool,
    layout: Layout | None = None,
    bits: int = 8,
) -> dict[str, int]:
    alloc_raw = src.get("alloc_shape")
    offsets_raw = src.get("view_offsets")
    if not static:
        return EMPTY.facts()
    dims: list[int] = [d for d in shape if d is not None]
    alloc = dims if alloc_raw is None else _shape(alloc_raw, "source.alloc_shape", False)
    if any(d is None for d in alloc):
        raise RequestError("source.alloc_shape", "must be static")
    alloc_i: list[int] = [int(d) for d in alloc if d is not None]
    if len(alloc_i) < len(dims):
        raise RequestError("source.alloc_shape", "rank must be at least the view's rank")
    offsets = [0] * len(alloc_i) if offsets_raw is None else offsets_raw
    if (
        not isinstance(offsets, list)
        or len(offsets) != len(alloc_i)
        or not all(_is_int(o) and o >= 0 for o in offsets)
    ):
        raise RequestError(
            "source.view_offsets",
            f"must be {len(alloc_i)} non-negative integers (one per alloc dim)",
        )
    padded = [1] * (len(alloc_i) - len(dims)) + dims
    for i, (o, d, a) in enumerate(zip(offsets, padded, alloc_i, strict=False)):
        if o + d > a:
            raise RequestError(
                f"source.view_offsets[{i}]", f"view [{o}, {o + d}) exceeds alloc dim {a}"
            )
    # The layout's order and NVMMA blocks decide which bytes a subview covers: a row slice
    # of a column-major buffer is one run per column, not one dense run.
    return footprint(dims, alloc_i, offsets, axes_of(layout, alloc_i, bits, len(dims))).facts()


def parse_request(obj: Any) -> Request:
    """Validate one request object and compute its facts; raises RequestError."""
    if not isinstance(obj, dict):
        raise RequestError("request", f"must be a JSON object, got {type(obj).__name__}")
    op = obj.get("op", DEFAULT_OP)
    _choice(op, OPS, "op")
    if not isinstance(obj.get("name", ""), str):
        raise RequestError("name", f"must be a string, got {shown(obj['name'])}")
    if op != DEFAULT_OP:
        return _parse_view_request(obj, op)
    for key in obj:
        if key not in TOP_KEYS | META_KEYS:
            raise _unknown_field(key, TOP_KEYS | META_KEYS)
    for key in ("source", "result"):
        if key not in obj:
            raise RequestError(key, "missing")
    aliases, src, res = _sides(obj)
    notes: list[str] = []

    kind = src.get("kind", BUFFERED)
    scope = _choice(obj.get("scope", "smem"), SCOPES, "scope")
    init = obj.get("init_value", None)
    offset = _bounded(obj.get("alias_offset_bytes", 0), "alias_offset_bytes")

    src_shape = _shape(src["shape"], "source.shape", True)
    res_shape = _shape(res["shape"], "result.shape", True)
    src_static, src_elems = static_elems(src_shape)
    res_static, res_elems = static_elems(res_shape)
    src_layout, res_layout = _layouts(src, res, aliases, notes)
    default_align = base_alignment(repeat_of(src_layout))

    facts: Facts = {
        "src_buffered": kind == BUFFERED,
        "init_given": init is not None and init is not False,
        "scope": scope,
        "src_space": _space(src, "source.space"),
        "res_space": _space(res, "result.space"),
        "src_mutable": _flag(src, "mutable", "source.mutable", True),
        "res_mutable": _flag(res, "mutable", "result.mutable", True),
        "off_int": _is_int(offset),
        "off": offset if _is_int(offset) else 0,
        "src_bits": dtype_bits(src["dtype"], "source.dtype"),
        "res_bits": dtype_bits(res["dtype"], "result.dtype"),
        "src_static": src_static,
        "res_static": res_static,
        "src_elems": src_elems,
        "res_elems": res_elems,
        "src_base": _nonneg_int(src, "base_offset_bytes", "source.base_offset_bytes", 0),
        "align": _nonneg_int(src, "alloc_alignment", "source.alloc_alignment", default_align, 1),
        "swz": repeat_of(res_layout),
    }
    facts.update(_source_geometry(src, src_shape, src_static, src_layout, int(facts["src_bits"])))
    facts.update(_view_type_facts(src, res, src_shape, res_shape, facts, src_layout, res_layout))
    facts["op"] = OPS[DEFAULT_OP]
    facts.update(NEUTRAL_OP_FACTS)
    return _request(obj, DEFAULT_OP, facts, notes, (src, res), (src_layout, res_layout))


def _view_type_facts(
    src: dict[str, Any],
    res: dict[str, Any],
    src_shape: list[int | None],
    res_shape: list[int | None],
    facts: Facts,
    src_layout: Layout | None,
    res_layout: Layout | None,
) -> Facts:
    """The memdesc-type facts of both sides (what Triton's type verifier looks at)."""
    out: Facts = {}
    sides = (
        ("src", "source", src, src_shape, src_layout),
        ("res", "result", res, res_shape, res_layout),
    )
    for prefix, who, side, shape, lay in sides:
        alloc = _alloc(side, shape, who)
        out.update(type_facts(prefix, shape, alloc, lay, int(facts[f"{prefix}_bits"])))
    return out


def _alloc(side: dict[str, Any], shape: list[int | None], who: str) -> list[int | None]:
    """A side's alloc shape as parsed (its view shape when it gives none)."""
    alloc = side.get("alloc_shape")
    return shape if alloc is None else _shape(alloc, f"{who}.alloc_shape", True)


def _parse_view_request(obj: dict[str, Any], op: str) -> Request:
    """A stock Triton view op (ttg.memdesc_reinterpret, _subslice or _index): its type and
    operand facts, and the physical facts of the bytes it views, in alias terms (the result
    starts ``off`` bytes after the source view's start), so that ``safe`` judges it too."""
    allowed = {"source", "result", "attributes"} | META_KEYS | OP_KEYS.get(op, set())
    for key in obj:
        if key in ALIAS_ONLY:
            raise RequestError(key, f"only a tle.memdesc_alias request takes it, not {op}")
        if key not in allowed:
            raise _unknown_field(key, allowed)
    for key in ("source", "result", *OP_KEYS.get(op, ())):
        if key not in obj and key != "index":
            raise RequestError(key, "missing")
    aliases, src, res = _sides(obj)
    if src.get("kind", BUFFERED) != BUFFERED:  # a view op's operand is a memdesc
        raise RequestError("source.kind", f"{op} takes a {BUFFERED}, got {shown(src['kind'])}")
    notes: list[str] = []
    src_shape = _shape(src["shape"], "source.shape", True)
    res_shape = _shape(res["shape"], "result.shape", True)
    src_static, src_elems = static_elems(src_shape)
    res_static, res_elems = static_elems(res_shape)
    src_layout, res_layout = _layouts(src, res, aliases, notes)
    default_align = base_alignment(repeat_of(src_layout))
    src_bits = dtype_bits(src["dtype"], "source.dtype")
    res_bits = dtype_bits(res["dtype"], "result.dtype")
    facts: Facts = {
        "src_buffered": True,
        "init_given": False,
        "scope": SCOPES["smem"],
        "src_space": _space(src, "source.space"),
        "res_space": _space(res, "result.space"),
        "src_mutable": _flag(src, "mutable", "source.mutable", True),
        "res_mutable": _flag(res, "mutable", "result.mutable", True),
        "off_int": True,
        "off": 0,
        "src_bits": src_bits,
        "res_bits": res_bits,
        "src_static": src_static,
        "res_static": res_static,
        "src_elems": src_elems,
        "res_elems": res_elems,
        "src_base": _nonneg_int(src, "base_offset_bytes", "source.base_offset_bytes", 0),
        "align": _nonneg_int(src, "alloc_alignment", "source.alloc_alignment", default_align, 1),
        "swz": repeat_of(res_layout),
        "op": OPS[op],
    }
    try:
        facts.update(_source_geometry(src, src_shape, src_static, src_layout, src_bits))
        alloc_ok = True
    except RequestError as exc:
        if exc.field.startswith("source.view_offsets") and "strided levels" in exc.problem:
            raise
        # A type the verifier rejects (alloc shape too small or of lower rank): judge the
        # physical side as if the source were its own allocation; the type rules fire.
        notes.append(f"{exc}; physical facts computed as if the source were dense")
        facts.update(_source_geometry({"shape": src_shape}, src_shape, src_static))
        alloc_ok = False
    facts.update(_view_type_facts(src, res, src_shape, res_shape, facts, src_layout, res_layout))
    facts.update(NEUTRAL_OP_FACTS)
    facts["same_elem"] = canonical_dtype(src["dtype"]) == canonical_dtype(res["dtype"])
    # Layouts compare by their canonical form (Layout.key), whatever their spelling.
    facts["same_enc"] = src_layout == res_layout
    # Shapes compare as parsed: a dynamic dim written "?" or null is the same dim.
    src_alloc = _alloc(src, src_shape, "source")
    facts["same_alloc"] = src_alloc == _alloc(res, res_shape, "result")
    facts["src_prefix_sub"] = prefix_subview(src_shape, src_alloc)
    res_eb = elem_bytes(res_bits)
    if op == "ttg.memdesc_index":
        static, idx = index_value(_bounded(obj.get("index"), "index"))
        facts.update(idx_static=static, idx=idx)
        facts["idx_shape_ok"] = list(res_shape) == list(src_shape[1:])
        if static:
            facts["off"] = idx * res_elems * res_eb
        else:
            # Any in-range buffer: judge buffer 1 (or 0 when there is only one), whose start
            # has the least alignment a non-zero buffer can have.
            d0 = src_shape[0] if src_shape else None
            facts["off"] = res_elems * res_eb if d0 is not None and d0 >= 2 else 0
            notes.append("runtime index: judged for buffer 1; bounds are the program's duty")
    elif op == "ttg.memdesc_subslice":
        for i, o in enumerate(obj["offsets"] if isinstance(obj["offsets"], list) else ()):
            _bounded(o, f"offsets[{i}]")
        facts.update(subslice_facts(obj["offsets"], src_shape, res_shape, src_layout, src_alloc))
        _subslice_physical(
            facts, src, src_shape, res_shape, obj["offsets"], alloc_ok, notes, src_layout
        )
    return _request(obj, op, facts, notes, (src, res), (src_layout, res_layout))


def _subslice_physical(
    facts: Facts,
    src: dict[str, Any],
    src_shape: list[int | None],
    res_shape: list[int | None],
    offsets: list[int],
    alloc_ok: bool,
    notes: list[str],
    src_layout: Layout | None = None,
) -> None:
    """A subslice result as an alias of the source view: it starts at its first element and
    spans up to its last one (all its bytes lie in that interval). For a dense source that
    interval is inside the source exactly when the result is; for a strided source only the
    result's first contiguous run is judged (per-dim bounds: the triton-3.8/3.9 rules)."""
    if (
        not facts["src_static"]
        or not facts["res_static"]
        or not facts["sub_rank_ok"]
        or len(src_shape) != len(res_shape)
        or not facts["res_elems"]
    ):
        facts["res_elems"] = 0
        return
    shape = [int(d) for d in src_shape]  # type: ignore[arg-type]
    alloc = [int(d) for d in (src.get("alloc_shape") or shape)] if alloc_ok else shape
    views = src.get("view_offsets") if alloc_ok else None
    view_offsets = list(views) if views else [0] * len(alloc)
    dst = [int(d) for d in res_shape]  # type: ignore[arg-type]
    axes = axes_of(src_layout, alloc, int(facts["src_bits"]), len(shape))
    try:
        first, last, run = subslice_span(shape, alloc, view_offsets, list(offsets), dst, axes)
    except RequestError as exc:
        # A result that cuts an NVMMA block unevenly breaks the tile rule (a valid subslice
        # never does): its span is judged as if row-major.
        notes.append(f"{exc}; the subslice's span is judged as if the layout were row-major")
        first, last, run = subslice_span(shape, alloc, view_offsets, list(offsets), dst)
    eb = elem_bytes(int(facts["src_bits"]))
    facts["off"] = first * eb
    # A subslice keeps its parent's swizzle phase (Triton addresses it from the parent's base,
    # and triton.subslice.swizzle judges the split), so no swizzle-repeat start applies.
    facts["swz"] = 0
    dense = int(facts["c0"]) * int(facts["c1"]) * int(facts["c2"]) == 1
    span = last - first + 1 if dense else run
    # res_elems counts result elements: the span is in source elements.
    res_eb = elem_bytes(int(facts["res_bits"]))
    facts["res_elems"] = max(span * eb // max(res_eb, 1), 0)
    if not dense:
        notes.append(
            "strided source: safe judges the subslice's first contiguous run; per-dim bounds "
            "are the triton-3.8/3.9 rules"
        )


def _json_int(digits: str) -> int:
    # Python refuses to read more than 4300 digits (with an error naming its own settings).
    if len(digits) > 4300:
        raise RequestError(
            "input", f"an integer of {len(digits)} digits; integers must be below 2^128"
        )
    return int(digits)


def _too_deep(data: Any) -> bool:
    """Whether ``data`` nests lists and objects more than MAX_DEPTH deep (no recursion)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (list, dict)):
            if depth > MAX_DEPTH:
                return True
            items = value.values() if isinstance(value, dict) else value
            stack.extend((v, depth + 1) for v in items if isinstance(v, (list, dict)))
    return False


def load_requests(text: str) -> list[Any]:
    """Parse JSON text holding one request or a list of requests."""
    if not text.strip():
        raise RequestError("input", "empty input")
    try:
        data = json.loads(text, parse_int=_json_int)
    except RequestError:
        raise
    except json.JSONDecodeError as exc:
        raise RequestError(
            "input", f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except (RecursionError, ValueError) as exc:
        raise RequestError("input", f"unreadable JSON: {str(exc)[:80]}") from None
    if _too_deep(data):
        raise RequestError("input", f"nested more than {MAX_DEPTH} levels deep")
    return data if isinstance(data, list) else [data]


def parse_requests(items: list[Any]) -> list[Request | RequestError]:
    """Each item of a request list parsed on its own: a bad one becomes its RequestError (the
    field prefixed by ``request[i].`` when the list holds several), so the good ones are still
    judged."""
    out: list[Request | RequestError] = []
    for i, item in enumerate(items):
        try:
            out.append(parse_request(item))
        except RequestError as exc:
            if len(items) > 1:
                exc = RequestError(f"request[{i}].{exc.field}", exc.problem)
            out.append(exc)
    return out
