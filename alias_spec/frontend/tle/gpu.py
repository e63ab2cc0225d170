"""``tle.gpu.alloc`` for stock Triton Gluon kernels, with FlagTree's signature.

``alloc`` is a Gluon builtin: it runs while the kernel compiles, computes the spec's facts from
the descriptors it is given, judges them with the generated checks, picks a lowering recipe with
the generated predicate and emits ordinary Gluon view ops. An exception raised here becomes a
CompilationError at the kernel line that called ``alloc``.
"""

from __future__ import annotations

import os
import re
from math import prod
from typing import Any

from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language._core import _unwrap_if_constexpr, builtin
from triton.runtime.jit import JITCallable

from alias_spec.frontend import lowering
from alias_spec.frontend.tle.place import (
    SMEM,
    TMEM,
    LayoutInfo,
    Place,
    PlaceError,
    SourceView,
    alias_facts,
    layout_info,
    recipe_facts,
)
from alias_spec.generated import alias_checks, recipes

PROFILE_ENV = "TLE_ALIAS_PROFILE"
# The descriptor's reinterpret method on the installed Gluon (public from Triton 3.9).
_REINTERPRET = (
    "reinterpret" if hasattr(gl.shared_memory_descriptor, "reinterpret") else "_reinterpret"
)


class scope:
    """Where a TLE buffer lives; compare with ``tle.smem`` / ``tle.tmem``."""

    def __init__(self, name: str, code: int) -> None:
        self.name, self.code = name, code

    def __repr__(self) -> str:
        return self.name


_Scope = scope

# constexpr globals, so that kernels may name them directly (`from ... import smem`).
smem = gl.constexpr(scope("share_memory", SMEM))
tmem = gl.constexpr(scope("tensor_memory", TMEM))


class TLEError(ValueError):
    """A rejected tle.gpu.alloc call; the text names each rule, its values and a fix."""

    def __init__(self, lines: list[str], rules: list[str]) -> None:
        self.rules = rules
        super().__init__("\n".join(lines))


class buffered_tensor_type(gl.shared_memory_descriptor_type):
    """The descriptor type plus the view's place. Triton rebuilds values from their type when
    it enters a loop or branch; the place survives only for the very value it was computed
    for, so a loop-carried or merged descriptor (a new IR value) loses it, soundly."""

    def __init__(self, element_ty, shape, layout, alloc_shape, place=None, origin=None):
        super().__init__(element_ty, shape, layout, alloc_shape)
        self.place, self.origin = place, origin

    def _unflatten_ir(self, handles, cursor):
        handle = handles[cursor]
        same = self.origin is not None and handle.id() == self.origin
        value = buffered_tensor(
            handle,
            self.element_ty,
            self.shape,
            self.layout,
            self.alloc_shape,
            self.place if same else None,
        )
        return value, cursor + 1


class buffered_tensor(gl.shared_memory_descriptor):
    """A Gluon shared-memory descriptor that also knows where it sits in its allocation, so
    that aliases of it (and of its ``index``/``slice`` views) compose offsets exactly."""

    def __init__(self, handle, element_ty, shape, layout, alloc_shape, place: Place | None = None):
        super().__init__(handle, element_ty, shape, layout, alloc_shape)
        self.type = buffered_tensor_type(element_ty, shape, layout, alloc_shape, place, handle.id())

    @property
    def _tle_place(self) -> Place | None:
        return self.type.place

    @staticmethod
    def _wrap(desc: Any, place: Place | None) -> buffered_tensor:
        t = desc.type
        return buffered_tensor(desc.handle, t.element_ty, t.shape, t.layout, t.alloc_shape, place)

    @builtin
    def index(self, index, _semantic=None) -> buffered_tensor:
        out = super().index(index, _semantic=_semantic)
        i = _unwrap_if_constexpr(index)
        static = isinstance(i, int) and not isinstance(i, bool)
        place = self._tle_place
        if place is not None:
            place = place.index(tuple(self.shape), i if static else None)
        return self._wrap(out, place)

    @builtin
    def slice(self, start, length, dim=0, _semantic=None) -> buffered_tensor:
        out = super().slice(start, length, dim, _semantic=_semantic)
        place = self._tle_place
        if place is not None:
            start, dim = int(_unwrap_if_constexpr(start)), int(_unwrap_if_constexpr(dim))
            place = place.slice(self.rank, start, dim)
        return self._wrap(out, place)

    @builtin
    def _tle_reinterpret(
        self, dtype=None, shape=None, layout=None, _semantic=None
    ) -> buffered_tensor:
        base = getattr(gl.shared_memory_descriptor, _REINTERPRET)
        out = base(self, dtype, shape, layout, _semantic=_semantic)
        place = self._tle_place
        if place is not None:  # read the result's type: 3.8+ default omitted arguments
            place = place.rebased(
                tuple(self.shape),
                0,
                layout_info(out.layout),
                _elem_bytes(out.dtype),
                list(out.shape),
            )
        return self._wrap(out, place)

    # Only under the installed release's name (3.9 renamed _reinterpret to reinterpret), so
    # that the other name fails as it does on a plain descriptor.
    if _REINTERPRET == "reinterpret":
        reinterpret = _tle_reinterpret
    else:
        _reinterpret = _tle_reinterpret


def _elem_bytes(dtype: Any) -> int:
    return (dtype.primitive_bitwidth + 7) // 8


def _profile() -> str:
    profile = os.environ.get(PROFILE_ENV, "safe")
    if profile not in alias_checks.PROFILES:
        raise TLEError(
            [f"{PROFILE_ENV}={profile!r} is not one of {', '.join(alias_checks.PROFILES)}"], []
        )
    return profile


def _shape(shape: Any) -> list[Any]:
    shape = _unwrap_if_constexpr(shape)
    if isinstance(shape, int):
        return [shape]
    return [_unwrap_if_constexpr(d) for d in shape]


def default_layout(shape: list[int], dtype: Any, nv_mma_shared_layout: bool) -> Any:
    """FlagTree's default: NVMMA when asked for and expressible, else an unswizzled layout."""
    if nv_mma_shared_layout and len(shape) >= 2 and dtype.primitive_bitwidth in (8, 16, 32, 64):
        return gl.NVMMASharedLayout.get_default_for(shape, dtype)
    return gl.SwizzledSharedLayout(1, 1, 1, list(range(len(shape) - 1, -1, -1)))


def default_blocked(shape: list[int], num_warps: int) -> gl.BlockedLayout:
    """A register layout covering ``shape`` (for scalar init values)."""
    rank, lanes = len(shape), 32
    tpw = [1] * rank
    for d in range(rank - 1, -1, -1):
        take = min(lanes, max(1, shape[d]))
        tpw[d], lanes = take, lanes // take
    tpw[0] *= lanes
    wpc = [num_warps] + [1] * (rank - 1)
    return gl.BlockedLayout([1] * rank, tpw, wpc, list(range(rank - 1, -1, -1)))


def _source_view(src: Any) -> SourceView:
    if isinstance(src, gl.shared_memory_descriptor):
        bits = src.dtype.primitive_bitwidth
        eb = (bits + 7) // 8
        place = src._tle_place if isinstance(src, buffered_tensor) else None
        alloc_shape = list(src.type.alloc_shape)
        if place is None:
            lost = isinstance(src, buffered_tensor)
            place = Place.foreign(list(src.shape), alloc_shape, layout_info(src.layout), eb, lost)
        mutable = re.search(r",\s*mutable\b", str(src.handle.get_type())) is not None
        subview = list(src.shape) != alloc_shape
        lrank = layout_info(src.layout).rank
        return SourceView(
            True, SMEM, mutable, bits, tuple(src.shape), place, subview, tuple(alloc_shape), lrank
        )
    if type(src).__name__ == "tensor_memory_descriptor":
        return SourceView(True, TMEM, True, src.dtype.primitive_bitwidth, tuple(src.shape), None)
    return SourceView(False)


_STATIC_FIXES = {
    "alias.source.kind": "pass a shared-memory descriptor (from tle.gpu.alloc or Gluon)",
    "alias.init_value": "drop init_value; store into the alias after creating it if needed",
    "alias.scope.smem": "use scope=tle.smem and a shared-memory source",
    "alias.space.match": "use scope=tle.smem and a shared-memory source",
    "alias.mutability": "alias a mutable descriptor",
    "alias.offset.constexpr": "pass a Python int or a gl.constexpr as alias_offset_bytes",
    "alias.dtype.addressable": "use an element type of at least 8 bits",
    "alias.size.static": "give the result static, non-negative dims",
}


def _nearest_offset(
    facts: dict[str, int | bool], profile: str, lowering_too: bool = False
) -> int | None:
    """The valid offset nearest the requested one (smaller first on ties), or None. With
    ``lowering_too`` (facts include the recipe facts) the installed Triton must support it."""
    eb = (int(facts["res_bits"]) + 7) // 8
    src_bytes = int(facts["src_elems"]) * ((int(facts["src_bits"]) + 7) // 8)
    if eb < 1 or not facts["off_int"]:
        return None
    off = int(facts["off"])
    hi = max(src_bytes, 0)
    candidates = sorted(range(0, hi + 1, eb), key=lambda c: (abs(c - off), c))[: 1 << 15]
    for c in candidates:
        trial = dict(facts, off=c, gran=c & -c)
        if any(v.rule in recipes.OFFSET_FIXABLE for v in alias_checks.check(trial, profile)):
            continue
        if lowering_too and lowering.choose(trial)[0] is None:
            continue
        return c
    return None


def _nearest_d0(facts: dict[str, int | bool], profile: str, res_shape: list[int]) -> int | None:
    rest = prod(res_shape[1:])
    for d0 in range(int(res_shape[0]) - 1, 0, -1):
        trial = dict(facts, res_elems=d0 * rest)
        if not any(v.rule in recipes.OFFSET_FIXABLE for v in alias_checks.check(trial, profile)):
            return d0
    return None


def _fmt(values: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in values.items())


def _reject(
    facts: dict[str, int | bool],
    profile: str,
    violations: list[Any],
    res_shape: list[Any],
    notes: tuple[str, ...],
    rextra: dict[str, int | bool] | None = None,
) -> TLEError:
    lines = [f"tle.gpu.alloc(alias=...) violates the alias spec (profile {profile!r}):"]
    fix_off = fix_d0 = None
    if any(v.rule in recipes.OFFSET_FIXABLE for v in violations):
        if rextra is not None:  # prefer an offset the installed Triton can also lower
            fix_off = _nearest_offset(dict(facts, **rextra), profile, lowering_too=True)
        if fix_off is None:
            fix_off = _nearest_offset(facts, profile)
        if fix_off is None and res_shape and all(isinstance(d, int) for d in res_shape):
            fix_d0 = _nearest_d0(facts, profile, res_shape)
    for v in violations:
        if v.rule in recipes.OFFSET_FIXABLE:
            if fix_off is not None:
                fix = f"alias_offset_bytes={fix_off}"
            elif fix_d0 is not None:
                fix = f"shape[0]={fix_d0}"
            else:
                fix = "no offset in this source works; alias a larger or better-aligned source"
        else:
            fix = _STATIC_FIXES.get(v.rule, "see docs/guides/gluon-frontend.md")
        detail = f" ({_fmt(v.values)})" if v.values else ""
        lines.append(f"  [{v.rule}] {v.message}{detail}; fix: {fix}")
    lines += [f"  note: {n}" for n in notes]
    return TLEError(lines, [v.rule for v in violations])


def _unsupported(
    reasons: list[tuple[str, str, str, dict]], rfacts: dict | None = None, profile: str = "safe"
) -> TLEError:
    import triton

    lines = [f"tle.gpu.alloc(alias=...) cannot be lowered on Triton {triton.__version__}:"]
    for check, reason, fix, values in reasons:
        if check == "base.align16" and rfacts is not None:
            best = _nearest_offset(rfacts, profile, lowering_too=True)
            fix = f"alias_offset_bytes={best}" if best is not None else fix
        detail = f" ({_fmt(values)})" if values else ""
        lines.append(f"  [lowering.unsupported] {check}: {reason}{detail}; fix: {fix}")
    return TLEError(lines, ["lowering.unsupported"] * len(reasons))


def _allocate(
    shape: list[Any], dtype: Any, layout: Any, sc: scope, init_value: Any, semantic: Any
) -> Any:
    if not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in shape):
        raise TLEError(
            [f"tle.gpu.alloc: shape must be positive compile-time integers, got {shape}"], []
        )
    if sc.code == TMEM:
        from triton.experimental.gluon.language.nvidia import blackwell

        if layout is None:
            layout = blackwell.TensorMemoryLayout(
                (min(128, shape[0]), shape[-1]), 32 // dtype.primitive_bitwidth or 1
            )
        return blackwell.allocate_tensor_memory(
            dtype, shape, layout, init_value, _semantic=semantic
        )
    if init_value is not None and not isinstance(init_value, gl.tensor):
        blocked = default_blocked(shape, semantic.builder.options.num_warps)
        init_value = gl.full(shape, init_value, dtype, layout=blocked, _semantic=semantic)
    desc = gl.allocate_shared_memory(dtype, shape, layout, init_value, _semantic=semantic)
    place = Place.root(shape, layout_info(layout), _elem_bytes(dtype))
    return buffered_tensor._wrap(desc, place)


@builtin
def alloc(
    shape,
    dtype,
    layout=None,
    scope=smem,
    init_value=None,
    alias=None,
    alias_offset_bytes=0,
    nv_mma_shared_layout=True,
    _semantic=None,
):
    """Allocate a TLE buffer, or with ``alias`` view an existing shared-memory buffer at
    ``alias_offset_bytes`` from its view's base (no new memory, no copy, no synchronisation).

    Returns a Gluon shared-memory descriptor (``tle.buffered_tensor``)."""
    shape = _shape(shape)
    dtype = _unwrap_if_constexpr(dtype)
    layout = _unwrap_if_constexpr(layout)
    sc = _unwrap_if_constexpr(scope)
    init_value = _unwrap_if_constexpr(init_value)
    alias = _unwrap_if_constexpr(alias)
    off = _unwrap_if_constexpr(alias_offset_bytes)
    nv_mma = bool(_unwrap_if_constexpr(nv_mma_shared_layout))
    if not isinstance(dtype, gl.dtype):
        raise TLEError([f"tle.gpu.alloc: dtype must be a Gluon dtype, got {dtype!r}"], [])
    if not isinstance(sc, _Scope):
        raise TLEError([f"tle.gpu.alloc: scope must be tle.smem or tle.tmem, got {sc!r}"], [])
    static = all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape)
    if layout is None and static and sc.code == SMEM:
        layout = default_layout(shape, dtype, nv_mma)
    if alias is None:
        return _allocate(shape, dtype, layout, sc, init_value, _semantic)

    src = _source_view(alias)
    res_layout = layout_info(layout) if layout is not None else LayoutInfo("other", len(shape))
    facts = alias_facts(
        src, sc.code, init_value is not None, shape, dtype.primitive_bitwidth, res_layout, off
    )
    profile = _profile()
    violations = alias_checks.check(facts, profile)
    notes = src.place.notes if src.place is not None else ()
    if violations:
        raise _reject(facts, profile, violations, shape, notes)

    try:
        rfacts = dict(
            facts, **recipe_facts(src, shape, res_layout, int(off), lowering.triton_version())
        )
    except PlaceError as exc:
        raise _unsupported([("source.model", str(exc), "alias a simpler view", {})]) from None
    recipe, reasons = lowering.choose(rfacts)
    if recipe is None:
        raise _unsupported(reasons, rfacts, profile)
    out = lowering.emit(recipe, alias, dtype, shape, layout, rfacts, _semantic)
    place = (
        src.place.rebased(src.shape, int(off), res_layout, _elem_bytes(dtype), shape)
        if src.place
        else None
    )
    return buffered_tensor._wrap(out, place)


class _ProfileKey(JITCallable):
    """Puts the alias profile into Triton's cache key of every kernel that calls ``alloc``, so
    a binary accepted under one profile is never reused under another. Triton computes a
    kernel's key once per process: choose the profile before the first compile."""

    def __init__(self) -> None:  # no function behind it; only the key matters
        self.used_global_vals = {}
        self.hash = None

    @property
    def cache_key(self) -> str:
        return f"alias_spec.frontend.tle alias profile {_profile()}"


# Triton hashes an "aggregate" global through its hash_attrs; alloc stays a builtin.
alloc.__triton_aggregate__ = True
alloc.hash_attrs = [_ProfileKey()]
