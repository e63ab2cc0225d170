"""The request-level differential test: one request, written every way a user can write it,
must give the same facts and the same verdict through every path and every engine.

Paths from input to facts, and what each can express (the rest is counted as not covered):

- ``json``: the request as given, through ``model.request.parse_request`` (the reference).
- ``explicit``: the same request in JSON with every default spelled out (spaces, mutability,
  kind, scope, offset, init_value, alloc shape, view offsets, base, alignment, layout
  parameters, a dynamic dim as null). Every request whose sides are objects or memdesc text.
- ``mlir``: each side MLIR type text can hold written as ``!ttg.memdesc<...>`` (layouts inline
  on even requests, through ``attributes`` aliases on odd ones), the other side kept as JSON.
  Text cannot say: a ``{"bits": N}`` dtype, a negative dim, a source kind other than a buffered
  tensor, non-zero ``view_offsets``, ``base_offset_bytes`` or an ``alloc_alignment`` other than
  the layout's, or "no layout" (a type always names one, and an undefined alias is not judged
  as none: where its bytes lie is unknown).
- ``lint``: an IR module with one function per request: a ``ttg.local_alloc`` of the source's
  allocation (or of a root buffer, then a ``tle.memdesc_alias`` at the source's base, whose
  layout gives the source's alignment: 16 or an NVMMA swizzle repeat), a ``ttg.memdesc_subslice``
  to the source view when it is one, then the request's op (``tle.memdesc_alias``,
  ``ttg.memdesc_reinterpret``, ``ttg.memdesc_subslice``, or ``ttg.memdesc_index`` with a
  constant or a function argument as index). Read by ``alias-spec lint`` (one module per profile
  and chunk); the facts and unknown facts it judges the op with, and its findings, are compared.
  IR cannot say: what text cannot, no layout, an offset that is no int64, a scope or
  init_value, a request that defines its own attribute aliases.
- ``frontend``: ``tle.gpu.alloc(shape, dtype, layout, scope, init_value, alias=src,
  alias_offset_bytes=k)``, its source allocated with ``tle.gpu.alloc`` (or aliased into a root
  buffer at its base), indexed along leading dims and sliced the way the request places it,
  turned into facts by ``frontend/tle/place.py`` without compiling (Gluon's dtypes and layout
  classes are used, so its widths and layout reading are checked too). Only alias requests with
  a mutable shared-memory source of positive int64 dims, a mutable result in the scope's
  memory, Gluon dtypes and layouts given as objects (or none: Gluon's unswizzled default).
  A call is never malformed JSON: where JSON is rejected the frontend must refuse the call.
- ``glue``: the C++ glue (``engines/cpp_glue.py``, when present) judging the JSON request with
  FlagTree's generated verifier; its own domain errors count as not covered.
- ``verifier``: the same generated verifier inside real MLIR 19 (``engines/mlir_engine.py``,
  ``compiler_patch/``'s testbed, when MLIR 19 is installed): each request written as IR,
  parsed and verified by its driver, one run per profile and chunk; a request the op cannot
  express counts as not covered.

Engines on the reference facts (``ENGINES``, the registry's ``FAST``), each through its cheap
``outcome`` (``engines.base``): the interpreter rule by rule, memoised per rule, the generated
Python, the generated C++ (one harness process per profile and chunk), and the z3 solver on a
sample. A divergence
names the request (shrunk to a minimal one), the path or engine that disagrees with the
reference and the facts on which they do.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import re
import signal
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from alias_spec.difftest.outcomes import PathOutcome as Outcome
from alias_spec.difftest.outcomes import in_int64, satisfies_invariants
from alias_spec.difftest.requests import ALIAS, IDX, RE, SUB
from alias_spec.engines import registry
from alias_spec.ir.procs import die_with_parent
from alias_spec.model import dsl
from alias_spec.model.catalogue import PROFILES, compiled, rules_for
from alias_spec.model.dtypes import BY_NAME, DTYPE_BITS, MLIR_NAME
from alias_spec.model.errors import RequestError
from alias_spec.model.facts import FACTS, INT64_MAX, OPS, Facts, elem_bytes
from alias_spec.model.layouts import Layout, parse_layout
from alias_spec.model.memdesc import format_memdesc, parse_memdesc
from alias_spec.model.physical import DEFAULT_ALIGNMENT, base_alignment
from alias_spec.model.request import Request, parse_request
from alias_spec.model.unknown import unjudged_rules

PATHS = ("json", "explicit", "mlir", "lint", "frontend", "glue", "verifier")
# The engines judged on the reference facts, the interpreter (the reference) first.
ENGINES = registry.FAST
FACT_NAMES = tuple(f.name for f in FACTS)
SPACE_TEXT = {"smem": "#ttg.shared_memory", "tmem": "#ttng.tensor_memory", "global": "#global"}
INT64_MIN = -(2**63)
OP_ALIAS = OPS[ALIAS]


# --- outcomes -----------------------------------------------------------------------------


def _parsed(req: Any) -> Outcome:
    try:
        got: Request = parse_request(req)
    except RequestError as exc:
        return Outcome(error=str(exc))
    return Outcome(facts=got.facts, unknown=got.unknown)


# --- canonical JSON -----------------------------------------------------------------------


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _copy(obj: Any) -> Any:
    """A copy of a JSON value (much faster than copy.deepcopy on these small trees)."""
    if isinstance(obj, dict):
        return {k: _copy(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_copy(v) for v in obj]
    return obj


def canonical(req: Any) -> dict[str, Any] | None:
    """The request with every side as a JSON object (MLIR text sides read by ``parse_memdesc``),
    deep-copied; None when it is no object or a side cannot be read."""
    if not isinstance(req, dict):
        return None
    out = _copy(req)
    # A memory-space alias resolves by the request's own definitions (never by its name).
    aliases = out.get("attributes")
    if not isinstance(aliases, dict) or not all(isinstance(v, str) for v in aliases.values()):
        aliases = None
    for who in ("source", "result"):
        side = out.get(who)
        if isinstance(side, str):
            try:
                out[who] = parse_memdesc(side, who, aliases)
            except RequestError:
                return None
        elif not isinstance(out.get(who), dict):
            return None
    return out


def _static(dims: Any) -> bool:
    return isinstance(dims, list) and bool(dims) and all(_is_int(d) and d >= 0 for d in dims)


def _default_alignment(src: dict[str, Any], attrs: dict[str, str]) -> int | None:
    try:
        lay = parse_layout(src.get("layout"), "source.layout", attrs)
    except RequestError:
        return None
    return base_alignment((lay or Layout("other")).swizzle_repeat)


_LAYOUT_DEFAULTS = {
    "nvmma": {"swizzle_bytes": 128, "transposed": False, "element_bitwidth": 0, "rank": 2},
    "swizzled": {"vec": 1, "per_phase": 1, "max_phase": 1, "order": []},
}


def explicit(req: dict[str, Any]) -> dict[str, Any]:
    """The canonical request with every default spelled out."""
    out = _copy(req)
    attrs = out.get("attributes") if isinstance(out.get("attributes"), dict) else {}
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
        if _static(side.get("shape")) and "alloc_shape" not in side:
            side["alloc_shape"] = list(side["shape"])
    src = out["source"]
    if _static(src.get("shape")) and _static(src.get("alloc_shape")):
        src.setdefault("view_offsets", [0] * len(src["alloc_shape"]))
    src.setdefault("base_offset_bytes", 0)
    if "alloc_alignment" not in src:
        align = _default_alignment(src, attrs)
        if align is not None:
            src["alloc_alignment"] = align
    return out


# --- MLIR text ----------------------------------------------------------------------------


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
        if not all(_is_int(v) for v in vals) or not isinstance(order, list):
            return None
        if not all(_is_int(d) for d in order):
            return None
        return (
            f"#ttg.swizzled_shared<{{vec = {vals[0]}, perPhase = {vals[1]}, maxPhase = "
            f"{vals[2]}, order = [{', '.join(str(d) for d in order)}]}}>"
        )
    if kind == "nvmma":
        swz, bits = lay.get("swizzle_bytes", 128), lay.get("element_bitwidth", 0)
        rank, tr = lay.get("rank", 2), lay.get("transposed", False)
        if not (_is_int(swz) and _is_int(bits) and _is_int(rank) and isinstance(tr, bool)):
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
        elif _is_int(d) and d >= 0:
            out.append(d)
        else:
            return None
    return out


SOURCE_ONLY = ("view_offsets", "base_offset_bytes", "alloc_alignment")


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
        if offs is not None and (not isinstance(offs, list) or any(offs) or not _static(alloc)):
            return None
        if offs is not None and len(offs) != len(alloc):
            return None
        if side.get("base_offset_bytes", 0) != 0 or isinstance(side.get("base_offset_bytes"), bool):
            return None
        if "alloc_alignment" in side and side["alloc_alignment"] != _default_alignment(side, attrs):
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


class _Names:
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


def _inline(lay: Any) -> str | None:
    return layout_text(lay)  # None for no layout: a type has no spelling of it


def mlir_request(req: dict[str, Any], via_aliases: bool) -> dict[str, Any] | None:
    """The request with each side MLIR text where text can hold it; None if neither can."""
    attrs = req.get("attributes") if isinstance(req.get("attributes"), dict) else {}
    out = _copy(req)
    names = _Names(attrs)
    wrote = 0

    def inline(lay: Any) -> str | None:
        # A name the request defines under "attributes" stays that name.
        if isinstance(lay, str) and lay.strip() in attrs:
            return lay.strip()
        return _inline(lay)

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


# --- IR modules (lint) --------------------------------------------------------------------


@dataclass
class Module:
    """One function per request: its text and the SSA name of the judged op."""

    funcs: list[str] = field(default_factory=list)
    names: _Names = field(default_factory=_Names)
    judged: list[str] = field(default_factory=list)  # function name -> judged op result

    def text(self) -> str:
        aliases = [f"{k} = {v}" for k, v in self.names.attrs.items()]
        body = "\n".join(self.funcs)
        return "\n".join([*aliases, "module {", body, "}", ""])


def _root_layout(align: int) -> dict[str, Any] | None:
    """A root allocation layout whose allocation alignment is ``align`` (16 or an NVMMA swizzle
    repeat); None if no layout gives that alignment."""
    if align == DEFAULT_ALIGNMENT:
        return {"kind": "swizzled", "vec": 1, "per_phase": 1, "max_phase": 1, "order": [1, 0]}
    for swz in (32, 64, 128):
        if Layout("nvmma", swz).swizzle_repeat == align:
            return {
                "kind": "nvmma",
                "swizzle_bytes": swz,
                "transposed": False,
                "element_bitwidth": 8,
                "rank": 2,
            }
    return None


class _NoInit:
    """``init_value`` absent, null or false (``0 == False`` in Python: compared by identity)."""

    def __contains__(self, v: Any) -> bool:
        return v is None or v is False


_NO_INIT = _NoInit()


def lint_function(req: dict[str, Any], fname: str, names: _Names, out: str = "%out") -> str | None:
    """A function whose last view is the request's op on a source placed as the request says,
    or None when an IR module cannot express the request."""
    op = req.get("op", ALIAS)
    if op not in (ALIAS, RE, SUB, IDX):
        return None
    src, res = req["source"], req["result"]
    if op == ALIAS:
        off = req.get("alias_offset_bytes", 0)
        if not _is_int(off) or not INT64_MIN <= off <= INT64_MAX:
            return None
        if req.get("scope", "smem") != "smem" or req.get("init_value", None) not in _NO_INIT:
            return None
    for who, side in (("source", src), ("result", res)):
        if not isinstance(side, dict) or side.get("layout") is None:
            return None  # no layout: an IR type always has one
        if who == "result" and set(side) & set(SOURCE_ONLY):
            return None
    attrs = req.get("attributes") if isinstance(req.get("attributes"), dict) else {}
    base = src.get("base_offset_bytes", 0)
    align = src.get("alloc_alignment", _default_alignment(src, attrs))
    if not _is_int(base) or base < 0 or not _is_int(align):
        return None
    plain = {k: v for k, v in src.items() if k not in SOURCE_ONLY}
    alloc_shape = src.get("alloc_shape") or src.get("shape")
    offs = src.get("view_offsets")
    subview = "alloc_shape" in src or (offs is not None and any(offs))
    whole = {k: v for k, v in plain.items() if k != "alloc_shape"}
    whole["shape"] = alloc_shape
    src_t = side_text(plain, "source", names.name, attrs)
    res_t = side_text(res, "result", names.name, attrs)
    whole_t = side_text(whole, "source", names.name, attrs)
    if src_t is None or res_t is None or whole_t is None or not _static(alloc_shape):
        return None
    if offs is not None and (not _static(offs) or len(offs) != len(alloc_shape)):
        return None
    args = ["%i: i32"] if op == IDX and req.get("index") is None else []
    lines = [f"  tt.func @{fname}({', '.join(args)}) {{"]
    if base == 0 and align == _default_alignment(src, attrs):
        lines.append(f"    %a = ttg.local_alloc : () -> {whole_t}")
    else:
        root_lay = _root_layout(align)
        if root_lay is None:
            return None
        if not isinstance(src["dtype"], str) or src["dtype"] not in DTYPE_BITS:
            return None
        elem = elem_bytes(DTYPE_BITS[src["dtype"]])
        rows = (base + math.prod(alloc_shape) * elem) // 128 + 1
        root_t = side_text(
            {"shape": [rows, 128], "dtype": "i8", "layout": root_lay}, "source", names.name, attrs
        )
        lines.append(f"    %r = ttg.local_alloc : () -> {root_t}")
        lines.append(
            f"    %a = tle.memdesc_alias %r {{offset_bytes = {base} : i64}} : {root_t} -> {whole_t}"
        )
    cur = "%a"
    if subview:
        o = ", ".join(str(x) for x in (offs or [0] * len(alloc_shape)))
        lines.append(f"    %v = ttg.memdesc_subslice %a[{o}] : {whole_t} -> {src_t}")
        cur = "%v"
    if op == ALIAS:
        lines.append(
            f"    {out} = tle.memdesc_alias {cur} {{offset_bytes = "
            f"{req.get('alias_offset_bytes', 0)} : i64}} : {src_t} -> {res_t}"
        )
    elif op == RE:
        lines.append(f"    {out} = ttg.memdesc_reinterpret {cur} : {src_t} -> {res_t}")
    elif op == SUB:
        offsets = req.get("offsets")
        if not isinstance(offsets, list) or not all(_is_int(x) for x in offsets):
            return None
        o = ", ".join(str(x) for x in offsets)
        lines.append(f"    {out} = ttg.memdesc_subslice {cur}[{o}] : {src_t} -> {res_t}")
    else:
        index = req.get("index")
        if index is None:
            idx = "%i"
        elif _is_int(index) and INT64_MIN <= index <= INT64_MAX:
            ty = "i32" if -(2**31) <= index < 2**31 else "i64"
            lines.append(f"    %c = arith.constant {index} : {ty}")
            idx = "%c"
        else:
            return None
        lines.append(f"    {out} = ttg.memdesc_index {cur}[{idx}] : {src_t} -> {res_t}")
    lines += ["    tt.return", "  }"]
    return "\n".join(lines)


def lint_outcomes(
    reqs: Sequence[dict[str, Any] | None], profiles: Sequence[str]
) -> list[Outcome | None]:
    """Each expressible request's view judged by lint (None where it cannot be written):
    one module per profile holding one function per request, its judged op named ``%o<i>``."""
    from alias_spec.lint import lint as lint_mod

    out: list[Outcome | None] = [None] * len(reqs)
    modules: dict[str, Module] = {}
    for i, (req, profile) in enumerate(zip(reqs, profiles, strict=True)):
        if req is None or req.get("attributes"):
            continue  # a request's own attribute aliases would clash across functions
        mod = modules.setdefault(profile, Module(names=_Names()))
        fn = lint_function(req, f"f{i}", mod.names, f"%o{i}")
        if fn is None:
            continue
        mod.funcs.append(fn)
        mod.judged.append(f"%o{i}")
    for profile, mod in modules.items():
        if not mod.funcs:
            continue
        # Fixes (z3) are not compared: each finding gets its rule's advice instead.
        report = lint_mod.lint_text(mod.text(), "request", profile, fixes=False)
        seen: dict[str, list[tuple[Any, frozenset[str]]]] = {}
        for j in report.judged:  # each view at each place lint judged it at
            seen.setdefault(j.result, []).append((j.facts, j.unknown))
        findings: dict[str, list[str]] = {}
        for f in report.findings:
            findings.setdefault(f.result, []).append(f.rule)
        unread = {n.result: n.message for n in report.notices if n.kind == "lint.unread"}
        for name in mod.judged:
            i = int(name[2:])
            if name in unread:
                out[i] = Outcome(error=unread[name])
            elif len(seen.get(name, [])) != 1:
                out[i] = Outcome(error=f"lint judged the view at {len(seen.get(name, []))} places")
            else:
                facts, unknown = seen[name][0]
                out[i] = Outcome(
                    facts=facts, unknown=unknown, verdicts={profile: tuple(findings.get(name, []))}
                )
    return out


def _lint_range_prefix() -> str:
    from alias_spec.lint import lint as lint_mod

    return lint_mod.RANGE_PREFIX


# --- the frontend call --------------------------------------------------------------------


def _gl() -> Any:
    try:
        from triton.experimental.gluon import language as gl
    except ImportError:
        return None
    return gl


def _gl_dtype(gl: Any, dtype: Any) -> Any:
    if not isinstance(dtype, str) or dtype not in BY_NAME:
        return None
    attr = BY_NAME[dtype].gluon
    return getattr(gl, attr, None) if attr else None


def _gl_layout(gl: Any, lay: Any, shape: list[int], dtype: Any) -> Any:
    """A Gluon layout object for a JSON layout (a default one for no layout, as
    ``tle.gpu.alloc(..., nv_mma_shared_layout=False)`` picks); False if none can say it."""
    if lay is None:
        from alias_spec.frontend.tle.gpu import default_layout

        return default_layout(shape, dtype, False)
    if not isinstance(lay, dict):
        return False
    try:
        if lay.get("kind") == "swizzled":
            return gl.SwizzledSharedLayout(
                lay.get("vec", 1),
                lay.get("per_phase", 1),
                lay.get("max_phase", 1),
                list(lay.get("order") or []),
            )
        if lay.get("kind") == "nvmma":
            return gl.NVMMASharedLayout(
                lay.get("swizzle_bytes", 128),
                lay.get("element_bitwidth", 0),
                lay.get("rank", 2),
                lay.get("transposed", False),
            )
    except (TypeError, ValueError, AssertionError):
        return False
    return False


def frontend_outcome(req: dict[str, Any]) -> Outcome | None:
    """The facts ``tle.gpu.alloc(alias=...)`` computes for the request's call (None when no
    call says the request: see the module docstring)."""
    gl = _gl()
    if gl is None or req.get("op", ALIAS) != ALIAS or req.get("attributes"):
        return None
    from alias_spec.frontend.tle.place import (
        SMEM,
        TMEM,
        LayoutInfo,
        Place,
        PlaceError,
        SourceView,
        alias_facts,
        layout_info,
    )

    src, res = req["source"], req["result"]
    scope = req.get("scope", "smem")
    if scope not in ("smem", "tmem") or res.get("space", "smem") != scope:
        return None
    if (
        src.get("kind", "buffered_tensor") != "buffered_tensor"
        or src.get("space", "smem") != "smem"
    ):
        return None
    if src.get("mutable", True) is not True or res.get("mutable", True) is not True:
        return None
    if set(res) - {"shape", "dtype", "layout", "space", "mutable"}:
        return None
    shape, alloc = src.get("shape"), src.get("alloc_shape") or src.get("shape")
    if not _static(shape) or not _static(alloc) or 0 in shape or 0 in alloc:
        return None
    if max(alloc) > INT64_MAX:
        return None  # the source was allocated through MLIR, whose dims are int64
    res_shape = res.get("shape")
    if not _static(res_shape):
        return None
    sdt, rdt = _gl_dtype(gl, src.get("dtype")), _gl_dtype(gl, res.get("dtype"))
    if sdt is None or rdt is None:
        return None
    src_lay = _gl_layout(gl, src.get("layout"), alloc, sdt)
    res_lay = _gl_layout(gl, res.get("layout"), res_shape, rdt)
    if src_lay is False or res_lay is False:
        return None
    init = req.get("init_value")
    init = None if init is False else init
    eb = elem_bytes(sdt.primitive_bitwidth)
    src_info = layout_info(src_lay)
    base = src.get("base_offset_bytes", 0)
    align = src.get("alloc_alignment", src_info.base_alignment)
    if not _is_int(base) or not _is_int(align) or base < 0:
        return None
    if base == 0 and align == src_info.base_alignment:
        place = Place.root(list(alloc), src_info, eb)
    else:
        root_lay = _root_layout(align)
        if root_lay is None:
            return None
        root_shape = [base // 128 + 1, 128]
        root_info = layout_info(_gl_layout(gl, root_lay, root_shape, gl.int8))
        root = Place.root(root_shape, root_info, 1)
        place = root.rebased(tuple(root_shape), base, src_info, eb, list(alloc))
    offs = src.get("view_offsets") or [0] * len(alloc)
    if not isinstance(offs, list) or len(offs) != len(alloc) or not _static(offs):
        return None
    lead = len(alloc) - len(shape)
    indexed = False
    for d in range(lead):  # leading dims left out of the view: src.index(offs[d])
        got = place.index(place.block, offs[d])
        if got is None:
            return None
        place, indexed = got, True
    block = place.block
    for d, (o, s, a) in enumerate(zip(offs[lead:], shape, block, strict=True)):
        if o + s > a:
            return None  # Gluon's slice would not take it
        if o or s != a:
            place = place.slice(len(block), o, d)
    view = SourceView(
        True,
        SMEM,
        True,
        sdt.primitive_bitwidth,
        tuple(shape),
        place,
        list(shape) != list(alloc),
        tuple(alloc),
        src_info.rank,
    )
    res_info = layout_info(res_lay) if res_lay is not None else LayoutInfo("other", len(res_shape))
    try:
        facts = alias_facts(
            view,
            SMEM if scope == "smem" else TMEM,
            init is not None,
            list(res_shape),
            rdt.primitive_bitwidth,
            res_info,
            req.get("alias_offset_bytes", 0),
        )
    except PlaceError as exc:
        return Outcome(error=str(exc))
    if indexed:
        facts = _fold_start(facts)
    return Outcome(facts=facts)


def _fold_start(facts: Facts) -> Facts:
    """Where the source starts, as one number: a frontend index moves the start from the
    view's offsets into its base (the same bytes, counted differently)."""
    out = dict(facts)
    eb = elem_bytes(int(out["src_bits"]))
    out["src_base"] = int(out["src_base"]) + int(out.pop("src_start")) * eb
    return out


# --- the C++ glue -------------------------------------------------------------------------

GLUE_MISSING = "alias_spec.engines.cpp_glue is not in this checkout"


def glue_status() -> str | None:
    """None when the C++ glue can judge requests here, else why the path is skipped."""
    try:
        from alias_spec.engines import cpp_glue
    except ImportError:
        return GLUE_MISSING
    try:
        ok = cpp_glue.glue_available()
    except Exception as exc:  # noqa: BLE001 - any failure only skips the path
        return f"cpp_glue.glue_available() raised {type(exc).__name__}: {exc}"
    return None if ok else "cpp_glue.glue_available() is false (no compiler or no build)"


def verifier_status() -> str | None:
    """None when the real-MLIR verifier can be built or found here, else why it is skipped."""
    from alias_spec.engines import mlir_engine

    if os.environ.get(mlir_engine.ENV):
        return None
    return mlir_engine.missing()


# How the glue says a request is outside what a tle.memdesc_alias op can express.
GLUE_DOMAIN = ("outside the glue's domain", "the glue verifies only")


def glue_verdicts(reqs: Sequence[Any], profile: str) -> list[Outcome | None]:
    from alias_spec.engines import cpp_glue

    out: list[Outcome | None] = []
    for got in cpp_glue.judge(list(reqs), profile):
        if isinstance(got, RequestError) and any(m in str(got) for m in GLUE_DOMAIN):
            out.append(None)  # a request the op cannot express
        elif isinstance(got, RequestError):
            out.append(Outcome(error=str(got)))
        else:
            out.append(Outcome(verdicts={profile: tuple(got)}))
    return out


# --- comparing ----------------------------------------------------------------------------


@dataclass
class Divergence:
    tag: str
    request: Any
    left: str  # the reference path or engine
    right: str
    what: str  # "reject", "facts", "unknown", "verdict", "engine"
    details: dict[str, Any]
    minimal: Any = None

    def key(self) -> tuple[str, str, str, tuple[str, ...]]:
        return (self.left, self.right, self.what, tuple(sorted(self.details)))

    def text(self) -> str:
        req = self.minimal if self.minimal is not None else self.request
        return (
            f"{self.left} vs {self.right} ({self.what}) on {sorted(self.details)}: "
            f"{json.dumps(self.details, default=str)[:400]}\n  request: "
            f"{json.dumps(req, default=str)[:800]}"
        )


def compare_outcomes(
    ref: Outcome, other: Outcome, keys: Sequence[str] | None = None
) -> tuple[str, dict[str, Any]] | None:
    """(what, details) where ``other`` disagrees with the reference, else None."""
    if (ref.error is None) != (other.error is None):
        return "reject", {"json": ref.error or "accepted", "other": other.error or "accepted"}
    if ref.error is not None or ref.facts is None or other.facts is None:
        return None
    names = keys if keys is not None else FACT_NAMES
    diff = {
        n: [ref.facts.get(n), other.facts.get(n)]
        for n in names
        if ref.facts.get(n) != other.facts.get(n)
    }
    if diff:
        return "facts", diff
    if keys is None and ref.unknown != other.unknown:
        return "unknown", {
            "only json": sorted(ref.unknown - other.unknown),
            "only other": sorted(other.unknown - ref.unknown),
        }
    return None


# --- the run ------------------------------------------------------------------------------


@dataclass
class Result:
    requests: int = 0
    coverage: Counter = field(default_factory=Counter)  # path/engine -> requests judged there
    skipped: dict[str, str] = field(default_factory=dict)  # path -> why it did not run
    divergences: list[Divergence] = field(default_factory=list)
    # (profile, rule, side) over the reference facts: side "fires", or "holds" (guard true).
    fired: Counter = field(default_factory=Counter)
    seconds: float = 0.0

    def merge(self, other: Result) -> None:
        self.requests += other.requests
        self.coverage.update(other.coverage)
        self.skipped.update(other.skipped)
        self.divergences += other.divergences
        self.fired.update(other.fired)

    def summary(self) -> str:
        cov = ", ".join(f"{k} {v}" for k, v in sorted(self.coverage.items()))
        lines = [f"{self.requests} requests in {self.seconds:.1f} s; covered: {cov}"]
        lines += [f"skipped {k}: {v}" for k, v in self.skipped.items()]
        lines += [f"{len(self.divergences)} divergences"]
        lines += [d.text() for d in self.divergences[:20]]
        return "\n".join(lines)


Injector = Callable[[str, Outcome, Any], Outcome]


@dataclass
class Options:
    profiles_per_request: int = 2
    z3_every: int = 0  # judge every n-th request with z3 too (0: never)
    cpp: bool = True
    glue: bool = True
    verifier: bool = True
    lint: bool = True
    frontend: bool = True
    shrink: bool = True
    # A test hook: rewrites one path's outcome before it is compared (to show a wrong fact
    # is caught).
    inject: Injector | None = None


def _lint_profile(i: int) -> str:
    return list(PROFILES)[i % len(PROFILES)]


def _compare_engine(
    res: Result, item: tuple[str, Any], engine: str, profile: str, want: Any, have: Any
) -> None:
    """A divergence when ``engine``'s rule ids on the reference facts are not the
    interpreter's."""
    if want != have:
        res.divergences.append(
            Divergence(item[0], item[1], "interp", engine, "engine", {profile: [want, have]})
        )


class _PathSkipped(Exception):
    """A path's engine cannot judge a profile's requests here (the message says why)."""


class Runner:
    def __init__(self, options: Options | None = None) -> None:
        self.opt = options or Options()
        self.interp = registry.engine("interp").outcome
        self.python = registry.engine("python").outcome
        self.cpp = registry.engine("cpp")
        self.z3 = registry.engine(registry.SOLVER).outcome  # the solver itself, sampled
        self._guards: dict[str, tuple[Any, tuple[str, ...], dict[Any, bool]]] = {}
        self.glue_skip = glue_status() if self.opt.glue else "disabled"
        self.verifier_skip = verifier_status() if self.opt.verifier else "disabled"
        self.cpp_skip = registry.unavailable("cpp") if self.opt.cpp else "disabled"

    def _prepare(self) -> None:
        """Build what the workers share before forking (the C++ binaries, Gluon)."""
        if self.cpp_skip is None:
            registry.get("cpp")  # builds the harness once, before the workers fork
        if self.glue_skip is None:
            from alias_spec.engines import cpp_glue

            for profile in getattr(cpp_glue, "GLUE_PROFILES", ()):
                cpp_glue.build(profile)
        if self.verifier_skip is None:
            from alias_spec.engines import mlir_engine

            try:
                mlir_engine.driver()  # built (or found in its cache) once, before the fork
            except mlir_engine.MlirEngineError as exc:
                self.verifier_skip = str(exc).splitlines()[0]
        _gl()

    def _guard(self, rule_id: str, facts: Mapping[str, int | bool]) -> bool:
        """The rule's guard on these facts (memoised on the facts it reads)."""
        got = self._guards.get(rule_id)
        if got is None:
            guard, _ = compiled(rule_id)
            got = self._guards[rule_id] = (guard, tuple(sorted(dsl.free_vars(guard))), {})
        guard, names, memo = got
        key = tuple(facts[n] for n in names)
        if key not in memo:
            try:
                memo[key] = bool(dsl.evaluate(guard, facts))
            except ZeroDivisionError:
                memo[key] = False
        return memo[key]

    # One chunk of requests through every path and engine.
    def chunk(self, items: Sequence[tuple[str, Any]], start: int = 0) -> Result:
        res = Result(requests=len(items))
        inject = self.opt.inject or (lambda _p, o, _r: o)
        refs = [_parsed(r) for _, r in items]
        canon = [canonical(r) for _, r in items]
        res.coverage["json"] = len(items)
        per_path: dict[str, list[Outcome | None]] = {p: [None] * len(items) for p in PATHS}
        for i, c in enumerate(canon):
            if c is None:
                continue
            per_path["explicit"][i] = _parsed(explicit(c))
            m = mlir_request(c, via_aliases=(start + i) % 2 == 1)
            if m is not None:
                per_path["mlir"][i] = _parsed(m)
            if self.opt.frontend:
                per_path["frontend"][i] = frontend_outcome(c)
        if self.opt.lint:
            profiles = [_lint_profile(start + i) for i in range(len(items))]
            per_path["lint"] = lint_outcomes(canon, profiles)
        for p in ("explicit", "mlir", "lint", "frontend"):
            for i, o in enumerate(per_path[p]):
                if o is None:
                    continue
                res.coverage[p] += 1
                if p in ("mlir", "lint") and canon[i] is not None:
                    res.coverage[f"{p} {canon[i].get('op', ALIAS)}"] += 1
                o = inject(p, o, items[i][1])
                self._compare_path(res, p, refs[i], o, items[i])
        if self.glue_skip is None:
            self._glue(res, items, refs, start, inject)
        else:
            res.skipped["glue"] = self.glue_skip
        if self.verifier_skip is None:
            self._verifier(res, items, refs, start, inject)
        else:
            res.skipped["verifier"] = self.verifier_skip
        self._engines(res, items, refs, start, inject)
        return res

    def _compare_path(
        self, res: Result, path: str, ref: Outcome, o: Outcome, item: tuple[str, Any]
    ) -> None:
        keys = None
        if path == "frontend" and ref.error is not None and o.facts is not None:
            # A Python call is never malformed JSON: the frontend agrees with a rejection
            # when every profile it checks refuses the call.
            if all(self.python(o.facts, p) for p in ("flagtree", "safe")):
                return
        if path == "frontend" and ref.error is not None and ".layout" in ref.error.split(":")[0]:
            # Layout parameters JSON refuses (vec 0, rank 0, ...) are Gluon's layout classes' to
            # refuse, not the alias check's: nothing to compare.
            res.coverage["frontend"] -= 1
            res.coverage["frontend (layout parameters left to Gluon)"] += 1
            return
        if path == "frontend" and o.facts is not None:
            keys = sorted(o.facts)
            ref = _frontend_view(ref, o)
        got = compare_outcomes(ref, o, keys)
        if got is None and o.verdicts and ref.facts is not None:
            for profile, rules in o.verdicts.items():
                skipped = set(unjudged_rules(ref.facts, profile, ref.unknown))
                want = tuple(r for r in self.interp(ref.facts, profile) if r not in skipped)
                if path == "lint" and ref.facts.get("op") != OP_ALIAS:
                    # lint judges a stock view's range rules by where the chain of views lands
                    # in its allocation (not by its own source view): compared elsewhere.
                    want = tuple(r for r in want if not r.startswith(_lint_range_prefix()))
                    rules = tuple(r for r in rules if not r.startswith(_lint_range_prefix()))
                if sorted(want) != sorted(rules):
                    got = ("verdict", {profile: [list(want), list(rules)]})
        if got is None and path == "frontend" and o.facts is not None and ref.facts is not None:
            for profile in ("flagtree", "safe"):
                want = self.python(ref.facts, profile)
                have = self.python(o.facts, profile)
                if want != have:
                    got = ("verdict", {profile: [list(want), list(have)]})
        if got is not None:
            res.divergences.append(Divergence(item[0], item[1], "json", path, *got))

    def _glue(
        self,
        res: Result,
        items: Sequence[tuple[str, Any]],
        refs: list[Outcome],
        start: int,
        inject: Injector,
    ) -> None:
        from alias_spec.engines import cpp_glue

        def judge(reqs: list[Any], profile: str) -> list[Outcome | None]:
            try:
                return glue_verdicts(reqs, profile)
            except Exception as exc:  # noqa: BLE001 - a profile the glue does not take
                raise _PathSkipped(f"{type(exc).__name__}: {str(exc)[:200]}") from None

        built = getattr(cpp_glue, "GLUE_PROFILES", PROFILES)
        self._through_builds(res, "glue", built, judge, items, refs, start, inject)

    def _verifier(
        self,
        res: Result,
        items: Sequence[tuple[str, Any]],
        refs: list[Outcome],
        start: int,
        inject: Injector,
    ) -> None:
        from alias_spec.engines import mlir_engine

        def judge(reqs: list[Any], profile: str) -> list[Outcome | None]:
            try:
                judged = mlir_engine.judge(reqs, profile)
            except mlir_engine.MlirEngineError as exc:
                raise _PathSkipped(str(exc).splitlines()[0][:200]) from None
            # A request the op cannot express (or a malformed one) is not covered here.
            return [None if isinstance(r, RequestError) else Outcome(verdicts={profile: tuple(r)})
                    for r in judged]  # fmt: skip

        self._through_builds(res, "verifier", mlir_engine.PROFILES, judge, items, refs, start,
                             inject)  # fmt: skip

    def _through_builds(
        self,
        res: Result,
        path: str,
        built_for: Sequence[str],
        judge: Callable[[list[Any], str], list[Outcome | None]],
        items: Sequence[tuple[str, Any]],
        refs: list[Outcome],
        start: int,
        inject: Injector,
    ) -> None:
        """A generated verifier built per profile (``built_for``): each request through one of
        its builds, in turn (one driver run per build and chunk), compared by rule ids."""
        built = [p for p in PROFILES if p in built_for]
        for profile in PROFILES:
            if profile not in built:
                res.skipped[f"{path} {profile}"] = "built for " + ", ".join(built_for) + " only"
        for k, profile in enumerate(built):
            mine = [i for i in range(len(items)) if (start + i) % len(built) == k]
            try:
                got = judge([items[i][1] for i in mine], profile)
            except _PathSkipped as exc:
                res.skipped[f"{path} {profile}"] = str(exc)
                continue
            self._compare_rule_ids(res, path, profile, items, refs, mine, got, inject)

    def _compare_rule_ids(
        self,
        res: Result,
        path: str,
        profile: str,
        items: Sequence[tuple[str, Any]],
        refs: list[Outcome],
        mine: list[int],
        got: list[Outcome | None],
        inject: Injector,
    ) -> None:
        """A generated verifier's rule ids (``got``, for the items ``mine``) against the
        interpreter's on the reference facts; a rejection only one side makes is a divergence
        too. Rules the spec does not judge (Request.unknown) are not compared."""
        for i, o in zip(mine, got, strict=True):
            if o is None:
                continue
            res.coverage[f"{path} {profile}"] += 1
            o = inject(path, o, items[i][1])
            ref = refs[i]
            if (ref.error is None) != (o.error is None):
                why = {"json": ref.error, path: o.error}
                res.divergences.append(Divergence(*items[i], "json", path, "reject", why))
                continue
            if ref.facts is None:
                continue
            skipped = set(unjudged_rules(ref.facts, profile, ref.unknown))
            want = tuple(r for r in self.interp(ref.facts, profile) if r not in skipped)
            have = tuple(r for r in o.verdicts.get(profile, ()) if r not in skipped)
            if sorted(want) != sorted(have):
                why = {profile: [list(want), list(have)]}
                res.divergences.append(Divergence(*items[i], "json", path, "verdict", why))

    def _engines(
        self,
        res: Result,
        items: Sequence[tuple[str, Any]],
        refs: list[Outcome],
        start: int,
        inject: Injector,
    ) -> None:
        profiles = list(PROFILES)
        cpp_jobs: dict[str, list[int]] = {}
        interp_out: dict[tuple[int, str], Any] = {}
        for i, ref in enumerate(refs):
            if ref.facts is None:
                continue
            mine = [
                profiles[(start + i + k) % len(profiles)]
                for k in range(self.opt.profiles_per_request)
            ]
            for profile in mine:
                want = self.interp(ref.facts, profile)
                interp_out[(i, profile)] = want
                for r in catalogue_rules(profile):
                    if r in want:
                        res.fired[(profile, r, "fires")] += 1
                    elif self._guard(r, ref.facts):
                        res.fired[(profile, r, "holds")] += 1
                res.coverage["engine interp"] += 1
                res.coverage["engine python"] += 1
                _compare_engine(
                    res, items[i], "python", profile, want, self.python(ref.facts, profile)
                )
                if in_int64(ref.facts):
                    cpp_jobs.setdefault(profile, []).append(i)
            if self.opt.z3_every and (start + i) % self.opt.z3_every == 0:
                self._z3(res, items[i], ref, mine[0], interp_out[(i, mine[0])])
        if self.cpp_skip is not None:
            res.skipped["cpp"] = self.cpp_skip
            return
        for profile, idx in cpp_jobs.items():
            got = self.cpp.outcomes([(refs[i].facts, profile) for i in idx])  # type: ignore[misc]
            res.coverage["engine cpp"] += len(idx)
            for i, have in zip(idx, got, strict=True):
                _compare_engine(res, items[i], "cpp", profile, interp_out[(i, profile)], have)

    def _z3(
        self, res: Result, item: tuple[str, Any], ref: Outcome, profile: str, want: Any
    ) -> None:
        if not satisfies_invariants(ref.facts):  # type: ignore[arg-type]
            return
        res.coverage["engine z3"] += 1
        _compare_engine(res, item, "z3", profile, want, self.z3(ref.facts, profile))  # type: ignore[arg-type]

    def run(self, items: Sequence[tuple[str, Any]], chunk: int = 1000, workers: int = 1) -> Result:
        """Every request through every path; ``workers`` processes (forked) share the chunks."""
        t = time.time()
        total = Result()
        starts = range(0, len(items), chunk)
        if workers > 1 and len(starts) > 1:
            self._prepare()
            global _WORK
            _WORK = (self, items, chunk)
            ctx = multiprocessing.get_context("fork")
            # Workers end with this process, even when it is killed by SIGKILL.
            with ctx.Pool(workers, die_with_parent, (os.getpid(), signal.SIGKILL)) as pool:
                for got in pool.imap_unordered(_work, starts):
                    total.merge(got)
            _WORK = None
        else:
            for k in starts:
                total.merge(self.chunk(items[k : k + chunk], k))
        if self.opt.shrink:
            total.divergences = dedupe(total.divergences)
            for d in total.divergences:
                d.minimal = shrink(d, self)
        total.seconds = time.time() - t
        return total


_WORK: tuple[Runner, Sequence[tuple[str, Any]], int] | None = None


def _work(start: int) -> Result:
    """One chunk in a forked worker (the runner and the items are inherited, not pickled)."""
    assert _WORK is not None
    runner, items, chunk = _WORK
    return runner.chunk(items[start : start + chunk], start)


def _frontend_view(ref: Outcome, o: Outcome) -> Outcome:
    """The reference facts as the frontend counts them (the source start folded into its
    base when the frontend indexed its way to the view)."""
    if ref.facts is None or o.facts is None or "src_start" in o.facts:
        return ref
    return Outcome(facts=_fold_start(ref.facts), unknown=ref.unknown)


def catalogue_rules(profile: str) -> tuple[str, ...]:
    return tuple(r.id for r in rules_for(profile))


# --- reporting and shrinking --------------------------------------------------------------


def dedupe(divs: Sequence[Divergence]) -> list[Divergence]:
    """One divergence per (paths, kind, facts): the first found."""
    seen: dict[tuple[str, str, str, tuple[str, ...]], Divergence] = {}
    for d in divs:
        seen.setdefault(d.key(), d)
    return list(seen.values())


def _candidates(obj: Any) -> Iterator[Any]:
    """Simpler variants of a request: a key dropped, an integer moved towards 0 or 1, a list
    entry dropped, a dtype or layout made plain."""
    if isinstance(obj, dict):
        for k in list(obj):
            if k in ("source", "result", "shape", "dtype", "op"):
                pass
            else:
                yield {kk: v for kk, v in obj.items() if kk != k}
        for k, v in obj.items():
            for c in _candidates(v):
                yield {**obj, k: c}
        if isinstance(obj.get("dtype"), (dict, str)) and obj.get("dtype") != "i8":
            yield {**obj, "dtype": "i8"}
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            for c in _candidates(v):
                yield [*obj[:i], c, *obj[i + 1 :]]
    elif _is_int(obj):
        for v in (0, 1, obj // 2, obj - 1):
            if abs(v) < abs(obj) or (v in (0, 1) and v != obj and abs(v) <= abs(obj)):
                yield v


def shrink(d: Divergence, runner: Runner, budget: int = 300) -> Any:
    """The smallest request (greedy, ``budget`` tries) on which the same two paths disagree in
    the same way (same kind, same facts)."""
    quiet = Runner(
        Options(
            profiles_per_request=runner.opt.profiles_per_request,
            z3_every=0,
            cpp=runner.cpp_skip is None,
            glue=runner.glue_skip is None,
            verifier=runner.verifier_skip is None,
            lint=runner.opt.lint,
            frontend=runner.opt.frontend,
            shrink=False,
            inject=runner.opt.inject,
        )
    )
    key = d.key()

    def same(req: Any) -> bool:
        try:
            got = quiet.chunk([(d.tag, req)])
        except Exception:  # noqa: BLE001 - a candidate that breaks a path is not the same bug
            return False
        return any(x.key() == key for x in got.divergences)

    best, tries = d.request, 0
    improved = True
    while improved and tries < budget:
        improved = False
        for cand in _candidates(best):
            tries += 1
            if tries > budget:
                break
            if len(json.dumps(cand, default=str)) <= len(json.dumps(best, default=str)) and same(
                cand
            ):
                best, improved = cand, True
                break
    return best


def run_corpus(n: int, seed: int, options: Options | None = None, chunk: int = 2000) -> Result:
    from alias_spec.difftest.requests import corpus

    items = list(corpus(n, seed))
    return Runner(options).run(items, chunk)
