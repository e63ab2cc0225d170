"""What Triton's memdesc view rules need from shapes, layouts and offsets, as primitive facts.

Triton's verifiers quantify over dimensions ("every dim after the first is a power of 2", "every
dim that is not split has offset 0"). The rule language has no loops, so those per-dimension
checks are summarised here into boolean facts, each named after the check it answers; the rules
in the catalogue then combine the facts. The physical part (where a view's bytes lie) stays in
``physical.py`` and is shared by every profile.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import Any

from alias_spec.model.dtypes import MLIR_NAME
from alias_spec.model.errors import RequestError
from alias_spec.model.facts import Facts
from alias_spec.model.layouts import Layout
from alias_spec.model.physical import Axis, row_major, view_on_axes


def canonical_dtype(value: Any) -> str:
    if isinstance(value, dict):
        return f"b{value.get('bits')}"
    text = str(value)
    return MLIR_NAME.get(text, text)  # spellings of one type compare equal


def is_pow2(n: int | None) -> bool:
    return n is not None and n > 0 and n & (n - 1) == 0


def _offset_swizzled(lay: Layout, shape: list[int], coord: list[int]) -> int:
    """Linear offset (elements) of ``coord`` in a swizzled_shared buffer of ``shape``. The
    layout's dims are the trailing ones; a leading dim it leaves out is outermost."""
    n = len(shape)
    pad = n - (lay.rank or n)
    order = [d + pad for d in lay.order if 0 <= d + pad < n] or list(range(n - 1, -1, -1))
    order = order + [d for d in range(n - 1, -1, -1) if d not in order]
    col_dim = order[0]
    # A layout of higher rank than the shape (a type rule rejects it) has no row dim here.
    row_dim = order[1] if n - pad > 1 and len(order) > 1 else None
    col = coord[col_dim]
    if row_dim is not None and lay.max_phase > 1:
        phase = (coord[row_dim] // max(lay.per_phase, 1)) % lay.max_phase
        vec = max(lay.vec, 1)
        chunks = max(shape[col_dim] // vec, 1)
        col = (((col // vec) ^ phase) % chunks) * vec + col % vec
    off, stride = 0, 1
    for d in order:
        off += (col if d == col_dim else coord[d]) * stride
        stride *= shape[d]
    return off


def _offset_nvmma(lay: Layout, shape: list[int], coord: list[int]) -> int:
    """Linear offset (elements) of ``coord`` in an NVMMA-swizzled buffer of ``shape``: the
    contiguous dim is cut into rows of the swizzle width, 16-byte chunks XOR the row phase."""
    n = len(shape)
    if n < 2:
        return coord[0] if coord else 0
    inner_dim, outer_dim = (n - 2, n - 1) if lay.transposed else (n - 1, n - 2)
    bits = lay.elem_bits or 16
    ebytes = max(bits // 8, 1)
    width = lay.swizzle_bytes
    inner = shape[inner_dim]
    block = width // ebytes if width else inner
    block = max(min(block, inner), 1)
    c, r = coord[inner_dim], coord[outer_dim]
    if width:
        vec = max(16 // ebytes, 1)
        per_phase = max(128 // width, 1)
        max_phase = max(width // 16, 1)
        phase = (r // per_phase) % max_phase
        chunks = max(block // vec, 1)
        cin = c % block
        cin = (((cin // vec) ^ phase) % chunks) * vec + cin % vec
    else:
        cin = c % block
    rows = shape[outer_dim]
    off = (c // block) * rows * block + r * block + cin
    tile = rows * inner
    lead = 0
    stride = tile
    for d in range(n - 3, -1, -1):
        lead += coord[d] * stride
        stride *= shape[d]
    return lead + off


def split_keeps_swizzle(
    lay: Layout | None, src: list[int], dst: list[int], alloc: list[int] | None = None
) -> bool:
    """Triton's subslice swizzle check: for every split dim, each power-of-2 multiple of the
    result's size below the source's size must map to a power-of-2 offset (so adding the
    subslice offset never carries into the swizzle bits). The layout places elements over
    the whole allocation, so offsets are taken in ``alloc`` (the source's alloc shape; a
    subview source's view shape would give another swizzle, measured on 3.6-3.9)."""
    if lay is None or lay.kind not in ("swizzled", "nvmma") or len(src) != len(dst):
        return True
    offset = _offset_nvmma if lay.kind == "nvmma" else _offset_swizzled
    full = list(src) if alloc is None or len(alloc) < len(src) else list(alloc)
    pad = len(full) - len(src)
    if any(d <= 0 for d in full):
        return True
    outside = len(full) - (lay.rank or len(full))
    for d, (s, t) in enumerate(zip(src, dst, strict=False)):
        if s == t or d + pad < outside:  # a leading buffer dim is not part of the pattern
            continue
        size = t
        while 0 < size < s:
            coord = [0] * len(full)
            coord[d + pad] = size
            if not is_pow2(offset(lay, full, coord)):
                return False
            size *= 2
    return True


def nvmma_fits(lay: Layout | None, shape: list[int | None], bits: int) -> bool:
    """An NVMMA layout's contiguous dim covers at least one swizzle row. The row is counted in
    elements of the layout's own ``elementBitWidth`` (Triton 3.7-3.9 measure it so, whatever
    the memdesc's dtype; measured), rounded down as Triton divides; the dtype's width only
    where the layout states none (a JSON layout without ``element_bitwidth``)."""
    if lay is None or lay.kind != "nvmma" or not lay.swizzle_bytes or len(shape) < 2:
        return True
    dim = shape[-2] if lay.transposed else shape[-1]
    if dim is None:
        return True
    width = lay.elem_bits or bits
    return dim >= lay.swizzle_bytes * 8 // max(width, 1)


def nvmma_rows(lay: Layout | None, shape: list[int | None]) -> bool:
    """A swizzled NVMMA layout spans at least one 8-row swizzle pattern: the dims it covers,
    other than the contiguous one, hold at least 8 rows."""
    n = len(shape)
    if lay is None:
        return True
    rank = lay.rank or n
    if lay.kind != "nvmma" or not lay.swizzle_bytes or n < 2 or rank < 2:
        return True
    covered = shape[max(n - rank, 0) :]
    contiguous = len(covered) - 2 if lay.transposed else len(covered) - 1
    rows = [d for i, d in enumerate(covered) if i != contiguous]
    if any(d is None for d in rows):
        return True
    return prod(int(d) for d in rows) >= 8  # type: ignore[arg-type]


def type_facts(
    prefix: str,
    shape: list[int | None],
    alloc: list[int | None] | None,
    lay: Layout | None,
    bits: int,
) -> Facts:
    """The memdesc type's own facts for one side (``src`` or ``res``)."""
    alloc_l = list(shape) if alloc is None else list(alloc)
    tail = shape[1:]
    # A layout that states no rank (none, an undefined alias) is taken to fit the shape.
    lay_rank = len(shape) if lay is None or lay.rank is None else lay.rank
    fits = len(alloc_l) >= len(shape) and all(
        d is None or a is None or d <= a
        for d, a in zip(shape, alloc_l[len(alloc_l) - len(shape) :], strict=False)
    )
    return {
        f"{prefix}_rank": len(shape),
        f"{prefix}_alloc_rank": len(alloc_l),
        f"{prefix}_lay_rank": lay_rank,
        f"{prefix}_d0_pow2": bool(shape) and is_pow2(shape[0]),
        f"{prefix}_tail_pow2": all(is_pow2(d) for d in tail),
        f"{prefix}_nonzero": all(d is None or d > 0 for d in shape),
        f"{prefix}_alloc_fits": fits,
        # 3.9 checks the alloc dims its layout covers; leading dims outside it may be any size
        # (measured: 3x16 with a 2-D layout is refused, 3x6x16 with a 1-D one accepted).
        f"{prefix}_alloc_tail_pow2": all(
            is_pow2(d) for d in alloc_l[max(len(alloc_l) - lay_rank, 0) :]
        ),
        f"{prefix}_subview": alloc_l != list(shape),
        # The layout tiles the allocation, so its width is checked on the alloc shape.
        f"{prefix}_nvmma_fits": nvmma_fits(lay, alloc_l, bits),
        f"{prefix}_nvmma_rows": nvmma_rows(lay, alloc_l),
    }


NEUTRAL_OP_FACTS: Facts = {
    "same_elem": True,
    "same_enc": True,
    "same_alloc": True,
    "src_prefix_sub": False,
    "idx_static": True,
    "idx": 0,
    "idx_shape_ok": True,
    "sub_rank_ok": True,
    "sub_split": False,
    "sub_zero_ok": True,
    "sub_tile_ok": True,
    "sub_off_lt": True,
    "sub_in_bounds": True,
    "sub_swz_ok": True,
}


def prefix_subview(shape: list[int | None], alloc: list[int | None]) -> bool:
    """A subview that trims only the leading (buffer) dim: what 3.9 lets memdesc_index take."""
    return len(alloc) == len(shape) and alloc[1:] == shape[1:] and alloc != shape


def index_value(raw: Any) -> tuple[bool, int]:
    if raw is None or raw == "?":
        return False, 0
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise RequestError("index", f"must be an integer or null (runtime), got {raw!r}")
    return True, raw


def subslice_facts(
    offsets: Any,
    src: list[int | None],
    dst: list[int | None],
    lay: Layout | None,
    alloc: list[int | None] | None = None,
) -> Facts:
    if not isinstance(offsets, list) or not all(
        isinstance(o, int) and not isinstance(o, bool) for o in offsets
    ):
        raise RequestError("offsets", "must be a list of integers (one per source dim)")
    out = {k: v for k, v in NEUTRAL_OP_FACTS.items() if k.startswith("sub_")}
    out["sub_rank_ok"] = len(offsets) == len(src)
    if not out["sub_rank_ok"] or len(src) != len(dst) or None in src or None in dst:
        return out
    s = [int(d) for d in src]  # type: ignore[arg-type]
    t = [int(d) for d in dst]  # type: ignore[arg-type]
    split = [a != b for a, b in zip(s, t, strict=False)]
    out["sub_split"] = any(split)
    out["sub_zero_ok"] = all(o == 0 for o, sp in zip(offsets, split, strict=False) if not sp)
    # Triton tests the offset against the result size with a bit mask (a modulus for
    # power-of-2 sizes).
    # A leading buffer dim outside the layout may be cut anywhere (3.9 allows it).
    # (A layout of higher rank than the shape, which a type rule rejects, covers every dim.)
    rank = lay.rank if lay is not None and lay.rank else len(s)
    inner = range(max(len(s) - rank, 0), len(s))
    out["sub_tile_ok"] = all(offsets[d] & (t[d] - 1) == 0 for d in inner if split[d] and t[d])
    out["sub_off_lt"] = all(
        0 <= o < a or (o == 0 and a == 0) for o, a in zip(offsets, s, strict=False)
    )
    out["sub_in_bounds"] = all(
        o >= 0 and o + b <= a for o, a, b in zip(offsets, s, t, strict=False)
    )
    full = None if alloc is None or None in alloc else [int(d) for d in alloc]  # type: ignore[arg-type]
    out["sub_swz_ok"] = split_keeps_swizzle(lay, s, t, full)
    return out


def subslice_span(
    src_shape: list[int],
    alloc: list[int],
    view_offsets: list[int],
    offsets: list[int],
    dst: list[int],
    axes: Sequence[Axis] | None = None,
) -> tuple[int, int, int]:
    """(first, last, first run length) of the subslice result, as element positions in the
    allocation relative to the source view's first element. ``axes``: the layout's placement
    (``layouts.axes_of``); None: row-major."""  # fmt: skip
    if axes is not None and list(axes) != row_major(alloc):
        pad = len(alloc) - len(src_shape)
        full_off = [v + o for v, o in zip(view_offsets, [0] * pad + list(offsets), strict=True)]
        sizes, r_ext, r_off = view_on_axes(axes, [1] * pad + list(dst), alloc, full_off)
        _, s_ext, s_off = view_on_axes(axes, [1] * pad + list(src_shape), alloc, view_offsets)
        rel = [r - v for r, v in zip(r_off, s_off, strict=True)]
        return subslice_span(s_ext, sizes, s_off, rel, r_ext)
    n = len(alloc)
    pad = n - len(src_shape)
    stride = [prod(alloc[i + 1 :]) for i in range(n)]
    full_off = [0] * pad + list(offsets)
    full_dst = [1] * pad + list(dst)
    base = sum(v * st for v, st in zip(view_offsets, stride, strict=False))
    first = sum((v + o) * st for v, o, st in zip(view_offsets, full_off, stride, strict=False))
    last = sum(
        (v + o + d - 1) * st
        for v, o, d, st in zip(view_offsets, full_off, full_dst, stride, strict=False)
    )
    c = n - 1
    while c > 0 and full_dst[c] == alloc[c] and full_off[c] == 0:
        c -= 1
    run = full_dst[c] * stride[c]
    return first - base, last - base, run
