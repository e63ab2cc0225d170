"""Which bytes a source view covers inside its allocation (the physical semantics).

A view of logical shape S at element offsets V inside a dense row-major allocation of shape A
covers contiguous runs of elements. The runs form at most three strided levels here; the
facts ``run, p0, c0, p1, c1, p2, c2`` describe them (outermost level first, padded with
single-count levels whose stride spans everything inside, so the nesting invariants in
``facts.INVARIANTS`` always hold). Swizzle and padding inside a layout are below this model:
they permute bytes within the allocation's rows, not which rows a view covers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import prod

from alias_spec.model.errors import RequestError
from alias_spec.model.facts import INT64_MAX, elem_bytes

LEVELS = 3
# Alignment (bytes) Triton gives a shared-memory allocation whose layout asks for no more.
DEFAULT_ALIGNMENT = 16


def packed_bytes(bits: int, count: int) -> int:
    """The fewest bytes ``count`` elements of ``bits`` bits can occupy under any layout: every
    bit packed. A lower bound on a footprint, never a footprint (a layout gives an element at
    least ``elem_bytes`` bytes)."""
    return (bits * count + 7) // 8


def padded_elems(count: int, padding: Sequence[tuple[int, int]] = ()) -> int:
    """Element slots a padded shared layout spans for ``count`` elements: for each ``(interval,
    pad)`` pair, ``pad`` unused slots after every ``interval`` elements, none after the last
    element (the span ends at the last element's slot). Without padding: ``count``. Equal to
    what Triton 3.6 and 3.9 reserve, measured per layout kind (tests/reuse_sizes)."""
    if count <= 0:
        return 0
    return count + sum((count - 1) // interval * pad for interval, pad in padding)


def allocation_bytes(bits: int, count: int, padding: Sequence[tuple[int, int]] = ()) -> int:
    """The physical footprint of a shared buffer of ``count`` elements of ``bits`` bits: the
    bytes Triton's allocator reserves for it. Swizzled, NVMMA and linear layouts place elements
    densely (``padding`` empty); a padded layout adds its padding slots. The one size the reuse
    planner places buffers by and the frontend's alias rules bound a padded view by."""
    return padded_elems(count, padding) * elem_bytes(bits)


def swizzle_repeat(swizzle_bytes: int) -> int:
    """Bytes after which an NVMMA swizzle pattern repeats: 128 x maxPhase, maxPhase =
    swizzle / 16, i.e. 8 x swizzle bytes (1024 for the 128-byte swizzle); 0 if unswizzled.
    Works on ints and on solver terms alike."""
    return 8 * swizzle_bytes


def swizzle_bytes(repeat: int) -> int:
    """The NVMMA swizzle width whose pattern repeats every ``repeat`` bytes (inverse of
    :func:`swizzle_repeat`)."""
    return repeat // 8


def base_alignment(repeat: int, alignment: int = DEFAULT_ALIGNMENT) -> int:
    """Alignment of an allocation whose layout has swizzle repeat ``repeat`` (0: none) and
    states ``alignment``: Triton aligns it to both, and to at least the default."""
    return max(DEFAULT_ALIGNMENT, repeat, alignment)


def static_elems(shape: Sequence[object]) -> tuple[bool, int]:
    """(static, element count) of a shape, counted as FlagTree's MemDescAliasOp verifier
    counts it (getStaticMemDescByteSize): dims multiplied in order, each product checked
    against int64 before it is formed. Not static: a dim that is not an integer (dynamic), a
    negative dim, a dim no int64 shape can hold, or a count past INT64_MAX before the first
    zero dim (a zero dim after an overflow does not undo it; dims after a zero dim cannot
    overflow). The byte size (count x element bytes) is alias.size.static's to judge. Every
    path from input to facts (requests, lint, the frontend) counts with this function."""
    n = 1
    for d in shape:
        if not isinstance(d, int) or isinstance(d, bool) or d < 0 or d > INT64_MAX:
            return False, 0
        if d != 0 and n > INT64_MAX // d:
            return False, 0
        n *= d
    return True, n


@dataclass(frozen=True)
class Footprint:
    start: int  # elements from the allocation's base to the view's first element
    run: int  # elements per contiguous run
    levels: tuple[tuple[int, int], ...]  # (stride, count), outermost first, LEVELS of them

    def facts(self) -> dict[str, int]:
        out = {"src_start": self.start, "run": self.run}
        for i, (p, c) in enumerate(self.levels):
            out[f"p{i}"] = p
            out[f"c{i}"] = c
        return out

    def elements(self) -> list[int]:
        """Every covered element position relative to the view start (for tests)."""
        pos = [0]
        for p, c in self.levels:
            pos = [b + k * p for b in pos for k in range(c)]
        return sorted(b + t for b in pos for t in range(self.run))


EMPTY = Footprint(0, 0, ((0, 1),) * LEVELS)


# One axis of an allocation's linear order: the digit ``(x // unit) % count`` of the element's
# coordinate ``x`` along alloc dim ``dim``. A layout's placement is its axes, slowest first: a
# row-major allocation has one axis per dim (unit 1); a column-major one lists them the other
# way round; an NVMMA layout splits its contiguous dim into swizzle-row blocks (the digit of the
# block, slower than the rows, and the position inside it, fastest).
Axis = tuple[int, int, int]


def row_major(alloc: Sequence[int]) -> list[Axis]:
    return [(d, 1, a) for d, a in enumerate(alloc)]


def view_on_axes(
    axes: Sequence[Axis], shape: list[int], alloc: list[int], offsets: list[int]
) -> tuple[list[int], list[int], list[int]]:
    """(axis sizes, view extents, view offsets) on ``axes``; a view that cuts a split dim
    unevenly (across a block boundary, or part of a block with another) is a RequestError."""
    n = len(alloc)
    s = [1] * (n - len(shape)) + list(shape)
    sizes, ext, off = [], [], []
    for d, unit, count in axes:
        o, t = offsets[d], s[d]
        inner = unit * count  # the digits of this axis and the faster ones of dim d
        if unit == 1 and count == alloc[d]:
            sizes.append(count), ext.append(t), off.append(o)
            continue
        if unit == 1:  # the position inside a block of `count`
            if o % count + t <= count:
                sizes.append(count), ext.append(t), off.append(o % count)
                continue
            if o % count == 0 and t % count == 0:
                sizes.append(count), ext.append(count), off.append(0)
                continue
        elif o % unit + t <= unit or (o % unit == 0 and t % unit == 0):
            # the block digit: one block, or whole blocks
            sizes.append(count), ext.append(max(t // unit, 1)), off.append(o // unit % count)
            continue
        raise RequestError(
            "source.view_offsets",
            f"the view [{o}, {o + t}) of dim {d} cuts its layout's blocks of {inner // count} "
            "unevenly; such views are not modelled",
        )
    return sizes, ext, off


def footprint(
    shape: list[int],
    alloc: list[int],
    offsets: list[int],
    axes: Sequence[Axis] | None = None,
) -> Footprint:
    """Footprint of a static view; ``alloc`` may have extra leading (buffer) dims. ``axes``
    is the layout's placement (``layouts.axes_of``); None: dense row-major."""
    if axes is not None and [a for a in axes] != row_major(alloc):
        if any(d == 0 for d in shape) or any(a == 0 for a in alloc):
            return Footprint(0, 0, ((0, 1),) * LEVELS)
        sizes, ext, off = view_on_axes(axes, shape, alloc, offsets)
        return footprint(ext, sizes, off)
    n = len(alloc)
    s = [1] * (n - len(shape)) + list(shape)
    if any(d == 0 for d in s):
        return Footprint(0, 0, ((0, 1),) * LEVELS)
    stride = [prod(alloc[i + 1 :]) for i in range(n)]
    start = sum(o * st for o, st in zip(offsets, stride, strict=True))
    c = n - 1
    while c > 0 and s[c] == alloc[c]:
        c -= 1
    run = s[c] * stride[c]
    levels: list[tuple[int, int]] = []
    for i in range(c):
        if s[i] == 1:
            continue
        if levels and levels[-1][0] == s[i] * stride[i]:
            # The previous (outer) level steps exactly over this one: merge them.
            levels[-1] = (stride[i], levels[-1][1] * s[i])
        else:
            levels.append((stride[i], s[i]))
    if len(levels) > LEVELS:
        raise RequestError(
            "source.view_offsets",
            f"the source view has {len(levels)} strided levels; at most {LEVELS} are modelled",
        )
    extent = run
    for p, cnt in reversed(levels):
        extent += (cnt - 1) * p
    padded = [(extent, 1)] * (LEVELS - len(levels)) + levels
    return Footprint(start, run, tuple(padded))
