"""``frontend``: ``tle.gpu.alloc(shape, dtype, layout, scope, init_value, alias=src,
alias_offset_bytes=k)``, its source allocated with ``tle.gpu.alloc`` (or aliased into a root
buffer at its base), indexed along leading dims and sliced the way the request places it,
turned into facts by ``frontend/tle/place.py`` without compiling (Gluon's dtypes and layout
classes are used, so its widths and layout reading are checked too).

Only alias requests with a mutable shared-memory source of positive int64 dims, a mutable
result in the scope's memory, Gluon dtypes and layouts given as objects (or none: Gluon's
unswizzled default). A call is never malformed JSON: where JSON is rejected the frontend must
refuse the call.
"""

from __future__ import annotations

from typing import Any

from alias_spec.difftest.outcomes import Diff, compare_outcomes, compare_rules
from alias_spec.difftest.outcomes import PathOutcome as Outcome
from alias_spec.difftest.requests import ALIAS
from alias_spec.difftest.targets import Batch, Judges, static
from alias_spec.difftest.targets.lint import root_layout
from alias_spec.frontend.tle.args import is_int
from alias_spec.model.dtypes import BY_NAME
from alias_spec.model.facts import INT64_MAX, Facts, elem_bytes

NAME = "frontend"
# The profiles a frontend call is judged under (``tle.gpu.alloc``'s own).
CALL_PROFILES = ("flagtree", "safe")
# Layout parameters JSON refuses (vec 0, rank 0, ...) are Gluon's layout classes' to refuse,
# not the alias check's: counted apart, not compared.
LEFT_TO_GLUON = "layout parameters left to Gluon"


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
    if not static(shape) or not static(alloc) or 0 in shape or 0 in alloc:
        return None
    if max(alloc) > INT64_MAX:
        return None  # the source was allocated through MLIR, whose dims are int64
    res_shape = res.get("shape")
    if not static(res_shape):
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
    if not is_int(base) or not is_int(align) or base < 0:
        return None
    if base == 0 and align == src_info.base_alignment:
        place = Place.root(list(alloc), src_info, eb)
    else:
        root_lay = root_layout(align)
        if root_lay is None:
            return None
        root_shape = [base // 128 + 1, 128]
        root_info = layout_info(_gl_layout(gl, root_lay, root_shape, gl.int8))
        root = Place.root(root_shape, root_info, 1)
        place = root.rebased(tuple(root_shape), base, src_info, eb, list(alloc))
    offs = src.get("view_offsets") or [0] * len(alloc)
    if not isinstance(offs, list) or len(offs) != len(alloc) or not static(offs):
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


def _frontend_view(ref: Outcome, o: Outcome) -> Outcome:
    """The reference facts as the frontend counts them (the source start folded into its
    base when the frontend indexed its way to the view)."""
    if ref.facts is None or o.facts is None or "src_start" in o.facts:
        return ref
    return Outcome(facts=_fold_start(ref.facts), unknown=ref.unknown)


def status() -> str | None:
    if _gl() is None:
        return "triton.experimental.gluon cannot be imported"
    return None


def prepare() -> str | None:
    _gl()  # Gluon imported once, before the workers fork
    return None


def outcomes(batch: Batch) -> list[Outcome | None]:
    return [None if c is None else frontend_outcome(c) for c in batch.canonical]


def labels(batch: Batch, i: int) -> tuple[str, ...]:
    return (NAME,)


def compare(ref: Outcome, got: Outcome, judges: Judges) -> Diff | str | None:
    """The facts the call computes (those it computes only), then the generated Python's
    verdicts on them against its verdicts on the reference facts."""
    if ref.error is not None and got.facts is not None:
        # A Python call is never malformed JSON: the frontend agrees with a rejection when
        # every profile it checks refuses the call.
        if all(judges.python(got.facts, p) for p in CALL_PROFILES):
            return None
    if ref.error is not None and ".layout" in ref.error.split(":")[0]:
        return LEFT_TO_GLUON
    keys = None
    if got.facts is not None:
        keys = sorted(got.facts)
        ref = _frontend_view(ref, got)
    diff = compare_outcomes(ref, got, keys)
    if diff is None and got.facts is not None and ref.facts is not None:
        for profile in CALL_PROFILES:
            want, have = judges.python(ref.facts, profile), judges.python(got.facts, profile)
            found = compare_rules(profile, want, have)
            diff = found if found is not None else diff
    return diff
