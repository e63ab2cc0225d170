"""The allocation builtin behind ``tle.gpu.alloc`` (``gpu.py`` is the public face, with the
reuse planner's builtins), for stock Triton Gluon kernels, with FlagTree's signature.

``alloc`` is a Gluon builtin: it runs while the kernel compiles, checks its arguments
(``check_arguments``), computes the spec's facts from the descriptors it is given, judges them
with the generated checks (``fixes.judge``), picks a lowering recipe with the generated predicate
and emits ordinary Gluon view ops. Every rejection is a TLEError naming the argument or rule;
Triton reports it as a CompilationError at the kernel line that called ``alloc``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

import triton
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language._core import _unwrap_if_constexpr, builtin
from triton.experimental.gluon.language._layouts import SharedLayout
from triton.runtime.jit import JITCallable

from alias_spec.frontend import lowering
from alias_spec.frontend.tle import args, fixes
from alias_spec.frontend.tle.args import TLEError
from alias_spec.frontend.tle.place import (
    SMEM,
    TMEM,
    LayoutInfo,
    Place,
    SourceView,
    layout_info,
)
from alias_spec.generated import alias_checks
from alias_spec.model.facts import elem_bytes

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
    return elem_bytes(dtype.primitive_bitwidth)


# Profiles that judge tle.gpu.alloc(alias=...) calls (the triton-* ones judge stock views).
ALIAS_PROFILES = tuple(
    name for name, rules in alias_checks.PROFILES.items() if "alias.source.kind" in rules
)


def _profile() -> str:
    profile = os.environ.get(PROFILE_ENV, "safe")
    if profile not in ALIAS_PROFILES:
        raise TLEError(
            [f"{PROFILE_ENV}={args.show(profile)} is not one of {', '.join(ALIAS_PROFILES)}"], []
        )
    return profile


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
        eb = elem_bytes(bits)
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


@dataclass(frozen=True)
class Arguments:
    """The arguments of one ``alloc`` call, unwrapped and checked."""

    shape: list[int]
    dtype: Any
    layout: Any  # None: the default for the shape
    scope: _Scope
    init_value: Any
    alias: Any  # None: allocate
    offset: Any  # judged by the alias rules
    nv_mma: bool


def _check_layout(layout: Any, sc: _Scope, shape: list[int], allocating: bool) -> None:
    if layout is None:
        return
    if sc.code == TMEM:
        if not type(layout).__name__.startswith("TensorMemory"):
            raise args.bad("layout", "None or a tensor memory layout for scope=tle.tmem", layout)
        return
    if not isinstance(layout, SharedLayout):
        raise args.bad("layout", "None or a Gluon shared-memory layout", layout)
    info = layout_info(layout)
    # An alias's layout rank is a lowering condition (layout.rank); a new buffer's is checked
    # here, for the layouts whose rank the frontend reads.
    if allocating and info.kind != "other" and info.rank not in (len(shape), len(shape) - 1):
        raise args.bad(
            "layout", f"a layout of rank {len(shape)} or {len(shape) - 1} for shape {shape}", layout
        )


def _check_init(value: Any, dtype: Any, shape: list[int], sc: _Scope) -> None:
    if value is None:
        return
    if isinstance(value, gl.tensor):
        if list(value.shape) != shape or value.dtype != dtype:
            raise args.bad("init_value", f"a tensor of shape {shape} and dtype {dtype}", value)
        return
    if sc.code == TMEM:
        raise args.bad("init_value", "None or a tensor for scope=tle.tmem", value)
    signed = None if dtype.is_floating() else dtype.is_int_signed()
    args.init_scalar(value, dtype.primitive_bitwidth, signed)


def _unwrap_shape(value: Any) -> Any:
    """A constexpr's value; a Gluon tuple (a shape written in a kernel) as a Python list."""
    value = _unwrap_if_constexpr(value)
    return list(value.values) if isinstance(value, gl.tuple) else value


def check_arguments(
    shape: Any,
    dtype: Any,
    layout: Any = None,
    scope: Any = smem,
    init_value: Any = None,
    alias: Any = None,
    alias_offset_bytes: Any = 0,
    nv_mma_shared_layout: Any = True,
) -> Arguments:
    """Every argument of ``alloc`` unwrapped and checked, or a TLEError naming the first bad
    one. What the alias rules judge (the source, the offset, init_value with an alias, the
    result's dim values) passes through to them."""
    u = _unwrap_if_constexpr
    dims = args.shape_arg(shape, _unwrap_shape)
    dt = u(dtype)
    if type(dt) is not gl.dtype or dt.primitive_bitwidth < 1:
        raise args.bad("dtype", "a Gluon scalar dtype such as gl.float16", dt)
    sc = u(scope)
    if not isinstance(sc, _Scope) or sc.code not in (SMEM, TMEM):
        raise args.bad("scope", "tle.smem or tle.tmem", sc)
    nv_mma = args.flag_arg("nv_mma_shared_layout", u(nv_mma_shared_layout))
    src, init, off, lay = u(alias), u(init_value), u(alias_offset_bytes), u(layout)
    _check_layout(lay, sc, dims, src is None)
    if src is None:
        args.allocation_shape(dims, dt.primitive_bitwidth)
        args.allocation_offset(off)
        _check_init(init, dt, dims, sc)
    return Arguments(dims, dt, lay, sc, init, src, off, nv_mma)


def _allocate(
    shape: list[int], dtype: Any, layout: Any, sc: _Scope, init_value: Any, semantic: Any
) -> Any:
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
    return place_alloc(
        shape, dtype, layout, scope, init_value, alias, alias_offset_bytes, nv_mma_shared_layout,
        profile=None, semantic=_semantic,
    )  # fmt: skip


def place_alloc(
    shape: Any,
    dtype: Any,
    layout: Any,
    scope: Any,
    init_value: Any,
    alias: Any,
    alias_offset_bytes: Any,
    nv_mma_shared_layout: Any,
    profile: str | None,
    semantic: Any,
) -> Any:
    """What ``alloc`` does, with the profile that judges an alias given (None: the one
    TLE_ALIAS_PROFILE names; the reuse planner's views are always judged under ``safe``)."""
    a = check_arguments(
        shape, dtype, layout, scope, init_value, alias, alias_offset_bytes, nv_mma_shared_layout
    )
    shape, dtype, layout, off = a.shape, a.dtype, a.layout, a.offset
    if layout is None and all(d >= 0 for d in shape) and a.scope.code == SMEM:
        layout = default_layout(shape, dtype, a.nv_mma)
    if a.alias is None:
        return _allocate(shape, dtype, layout, a.scope, a.init_value, semantic)

    src = _source_view(a.alias)
    res_layout = layout_info(layout) if layout is not None else LayoutInfo("other", len(shape))
    profile = _profile() if profile is None else profile
    rfacts = fixes.judge(
        src,
        a.scope.code,
        a.init_value is not None,
        shape,
        dtype.primitive_bitwidth,
        res_layout,
        off,
        profile,
        lowering.triton_version(),
        triton.__version__,
    )
    recipe, reasons = lowering.decide(rfacts)
    if recipe is None:
        raise fixes.unsupported(reasons, triton.__version__, rfacts, profile)
    out = lowering.emit(recipe, a.alias, dtype, shape, layout, rfacts, semantic)
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
