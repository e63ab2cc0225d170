"""Where a shared-memory view lives in its allocation, and the spec facts that follow.

Pure Python (no Triton, no z3, no pydantic): the frontend tracks a ``Place`` next to every
descriptor that ``tle.gpu.alloc`` creates or derives, and turns it into the primitive facts that
``alias_spec.generated.alias_checks`` judges. The fact meanings, the footprint, element bytes
and layout alignments are the spec's own (alias_spec/model/facts.py, physical.py), imported.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from math import prod

from alias_spec.model import physical
from alias_spec.model.errors import RequestError
from alias_spec.model.facts import CONSTANTS, Facts, elem_bytes
from alias_spec.model.layouts import Layout, axes_of
from alias_spec.model.physical import (
    DEFAULT_ALIGNMENT,
    Footprint,
    allocation_bytes,
    base_alignment,
    static_elems,
    swizzle_repeat,
)

SMEM, TMEM = CONSTANTS["SMEM"], CONSTANTS["TMEM"]
LEVELS = physical.LEVELS


class PlaceError(ValueError):
    """A view the spec's model cannot describe (for example more than three strided levels)."""


@dataclass(frozen=True)
class LayoutInfo:
    """What the facts need from a shared layout, read off Gluon layout objects by duck typing."""

    kind: str  # "swizzled", "nvmma" or "other"
    rank: int
    swizzle_bytes: int = 0  # NVMMA swizzle width
    max_phase: int = 1  # swizzled layouts: 1 means no swizzle
    row_major: bool = True  # fastest dim is the last one
    bits: int = 0  # element width an NVMMA layout names
    alignment: int = DEFAULT_ALIGNMENT
    padding: tuple[tuple[int, int], ...] = ()  # a padded layout's (interval, padding) pairs
    unsized: str = ""  # why the physical model cannot size a buffer of it ("": it can)
    # The same layout as the model reads it (swizzled and NVMMA only): where its bytes lie.
    model: Layout | None = None

    def axes(self, block: tuple[int, ...], bits: int, view_rank: int) -> list[physical.Axis] | None:
        """The layout's placement of a block holding views of ``view_rank`` dims
        (``layouts.axes_of``); None: dense row-major."""
        return axes_of(self.model, list(block), bits, view_rank)

    @property
    def swizzle_repeat(self) -> int:
        """Bytes after which an NVMMA swizzle pattern repeats; 0 if none (the model's)."""
        return swizzle_repeat(self.swizzle_bytes) if self.kind == "nvmma" else 0

    @property
    def base_alignment(self) -> int:
        """Alignment Triton gives an allocation with this layout (the model's)."""
        return base_alignment(self.swizzle_repeat, self.alignment)

    def footprint_bytes(self, bits: int, count: int) -> int:
        """Bytes a buffer of ``count`` elements of ``bits`` bits occupies under this layout
        (the physical model's; only where ``unsized`` is empty)."""
        return allocation_bytes(bits, count, self.padding)


def _multi_cta(layout: object) -> bool:
    """Whether a layout spreads its buffer over several CTAs (a CGA layout or block bases)."""
    return any(bool(getattr(layout, f, None)) for f in ("cga_layout", "block_bases"))


def layout_info(layout: object) -> LayoutInfo:
    info = _layout_info(layout)
    name = type(layout).__name__
    if not info.unsized and _multi_cta(layout):
        why = f"the {name} spreads the buffer over several CTAs; only one CTA's is sized"
        return replace(info, unsized=why)
    return info


def _layout_info(layout: object) -> LayoutInfo:
    name = type(layout).__name__
    if name == "NVMMASharedLayout":
        fp4 = bool(getattr(layout, "fp4_padded", False))
        rank, swizzle = int(layout.rank), int(layout.swizzle_byte_width)  # type: ignore[attr-defined]
        transposed, bits = bool(layout.transposed), int(layout.element_bitwidth)  # type: ignore[attr-defined]
        return LayoutInfo(
            "nvmma",
            rank,
            swizzle_bytes=swizzle,
            row_major=not transposed,
            bits=bits,
            unsized="an fp4-padded NVMMA layout is not sized by the physical model" if fp4 else "",
            model=None
            if fp4
            else Layout(
                "nvmma", swizzle, rank=rank, transposed=transposed, elem_bits=bits
            ),  # fmt: skip
        )
    if name == "SwizzledSharedLayout":
        order = [int(d) for d in layout.order]  # type: ignore[attr-defined]
        max_phase = int(layout.max_phase)  # type: ignore[attr-defined]
        return LayoutInfo(
            "swizzled",
            len(order),
            max_phase=max_phase,
            row_major=order == sorted(order, reverse=True),
            model=Layout("swizzled", rank=len(order), order=tuple(order), max_phase=max_phase),
        )
    if name == "SharedLinearLayout":
        # Triton accepts only offset bases bijective onto the shape (zero bases aside), so the
        # buffer is dense: measured, tests/reuse_sizes.
        bases = layout.offset_bases  # type: ignore[attr-defined]
        return LayoutInfo("other", len(bases[0]), alignment=int(layout.alignment))  # type: ignore[attr-defined]
    if name == "PaddedSharedLayout":
        pairs = layout.interval_padding_pairs  # type: ignore[attr-defined]
        padding = tuple((int(i), int(p)) for i, p in pairs)
        return LayoutInfo("other", len(layout.shape), padding=padding)  # type: ignore[attr-defined]
    rank = getattr(layout, "rank", None)
    if rank is None:
        rank = len(getattr(layout, "shape", getattr(layout, "order", [])))
    return LayoutInfo("other", int(rank), unsized=f"the physical model cannot size a {name}")


def pow2_part(n: int) -> int:
    """Largest power of 2 dividing n (n > 0)."""
    return n & -n


def footprint(
    shape: tuple[int, ...],
    block: tuple[int, ...],
    offsets: tuple[int, ...],
    axes: list[physical.Axis] | None = None,
) -> Footprint:
    """The runs a view of ``shape`` at ``offsets`` covers in ``block`` placed on ``axes`` (the
    layout's; None: dense row-major): the spec's physical model, with its errors as a
    PlaceError."""
    try:
        return physical.footprint(list(shape), list(block), list(offsets), axes)
    except RequestError as exc:
        raise PlaceError(exc.problem) from None


@dataclass(frozen=True)
class Place:
    """A view's position: a dense block at ``base`` bytes (static part) from the allocation's
    start, which plus any runtime part is a multiple of ``align``; the view sits at element
    ``offsets`` inside the block (``None`` when unknown)."""

    base: int
    align: int
    block: tuple[int, ...]
    offsets: tuple[int, ...] | None
    layout: LayoutInfo
    elem_bytes: int
    known: bool = True  # False: derived from a descriptor tle did not create
    notes: tuple[str, ...] = field(default=())

    @staticmethod
    def root(shape: list[int], layout: LayoutInfo, elem_bytes: int) -> Place:
        return Place(0, layout.base_alignment, tuple(shape), (0,) * len(shape), layout, elem_bytes)

    @staticmethod
    def foreign(
        shape: list[int],
        alloc_shape: list[int],
        layout: LayoutInfo,
        elem_bytes: int,
        lost: bool = False,
    ) -> Place:
        """A descriptor whose position in its allocation is unknown. A plain Gluon descriptor
        that is not a subview is assumed to start where its layout's alignment allows (as an
        allocation or an index of one does); a tle descriptor that lost its place (carried
        through a loop, branch or call) only where its element width allows."""
        block = tuple(alloc_shape)
        nbytes = prod(shape) * elem_bytes
        if lost:
            align = elem_bytes
            note = (
                "the source was carried through a loop, branch or call, so its position is unknown"
            )
        elif tuple(shape) == block[len(block) - len(shape) :] and nbytes:
            align = min(layout.base_alignment, pow2_part(nbytes))
            note = "the source was not created by tle.gpu.alloc; its layout's alignment is assumed"
        else:
            align = elem_bytes
            note = "the source is a subview not created by tle.gpu.alloc; its position is unknown"
        return Place(0, max(align, 1), block, None, layout, elem_bytes, False, (note,))

    def start_bytes(self, shape: tuple[int, ...]) -> int:
        offsets = self.offsets or (0,) * len(self.block)
        axes = self.layout.axes(self.block, 8 * self.elem_bytes, len(shape))
        return footprint(shape, self.block, offsets, axes).start * self.elem_bytes

    def index(self, shape: tuple[int, ...], i: int | None) -> Place | None:
        """The place of ``view.index(i)`` (``i`` None when it is a runtime value)."""
        if self.offsets is None or any(self.offsets) or tuple(shape) != self.block:
            return None  # Triton rejects an index of a subview
        inner = tuple(shape[1:])
        step = prod(inner) * self.elem_bytes
        if i is None:
            align = min(self.align, pow2_part(step)) if step else self.align
            return replace(self, align=align, block=inner, offsets=(0,) * len(inner))
        return replace(self, base=self.base + i * step, block=inner, offsets=(0,) * len(inner))

    def slice(self, rank: int, start: int, dim: int) -> Place:
        if self.offsets is None:
            return self
        offsets = list(self.offsets)
        offsets[len(self.block) - rank + dim] += start
        return replace(self, offsets=tuple(offsets))

    def rebased(
        self,
        shape: tuple[int, ...],
        off: int,
        layout: LayoutInfo,
        elem_bytes: int,
        res_shape: list[int],
    ) -> Place:
        """The place of an alias (or a reinterpret) of this view at ``off`` bytes."""
        return Place(
            self.base + self.start_bytes(shape) + off,
            self.align,
            tuple(res_shape),
            (0,) * len(res_shape),
            layout,
            elem_bytes,
            self.known,
            self.notes,
        )

    def model_holds(self, shape: tuple[int, ...]) -> bool:
        """Whether Triton places this view's bytes where the spec's dense row-major model says.

        Only a view that cuts a dim inside the layout can differ: swizzling permutes bytes
        within rows, and NVMMA layouts tile wide rows into column blocks."""
        lead = len(self.block) - len(shape)
        dims = (1,) * lead + tuple(shape)
        first_layout_dim = len(self.block) - self.layout.rank
        cut = [
            i for i in range(len(self.block)) if dims[i] != self.block[i] and i >= first_layout_dim
        ]
        if not cut:
            return True
        lay, last = self.layout, len(self.block) - 1
        if not lay.row_major:
            return False
        if lay.kind == "swizzled":
            return lay.max_phase == 1 or last not in cut
        if lay.kind == "nvmma" and lay.swizzle_bytes and lay.rank == 2:
            one_tile = self.block[last] * self.elem_bytes == lay.swizzle_bytes
            return one_tile and last not in cut
        return False


@dataclass(frozen=True)
class SourceView:
    """The alias source as the facts see it."""

    buffered: bool
    space: int = SMEM
    mutable: bool = True
    bits: int = 0
    shape: tuple[int, ...] = ()
    place: Place | None = None
    subview: bool = False  # Triton's type is a subview (shape != alloc_shape)
    alloc_shape: tuple[int, ...] = ()  # Triton's alloc_shape of the source type
    layout_rank: int = 0  # rank of the source's layout


def alias_facts(
    src: SourceView,
    scope: int,
    init_given: bool,
    res_shape: list[object],
    res_bits: int,
    res_layout: LayoutInfo,
    off: object,
) -> Facts:
    """The spec's primitive facts for one ``alloc(alias=...)`` call."""
    res_static, res_elems = static_elems(res_shape)
    off_int = isinstance(off, int) and not isinstance(off, bool)
    facts: Facts = {
        "src_buffered": src.buffered,
        "init_given": init_given,
        "scope": scope,
        "src_space": src.space,
        "res_space": scope,
        "src_mutable": src.mutable,
        "res_mutable": True,
        "off_int": off_int,
        "off": off if off_int else 0,  # type: ignore[dict-item]
        "res_bits": res_bits,
        "res_static": res_static,
        "res_elems": res_elems,
        "swz": res_layout.swizzle_repeat,
        "op": 0,  # OP_ALIAS: alias.scope.smem applies to alias requests only
    }
    if not src.buffered or src.place is None:
        # Nothing is known of the source: make every source fact neutral (the result itself,
        # at the allocation's start) so that only the rules about the source's kind fire.
        facts.update(
            src_bits=res_bits,
            src_static=True,
            src_elems=res_elems,
            src_base=0,
            align=base_alignment(res_layout.swizzle_repeat),
        )
        e = res_elems
        facts.update(src_start=0, run=e, p0=e, c0=1, p1=e, c1=1, p2=e, c2=1)
        return facts
    p = src.place
    src_static, src_elems = static_elems(src.shape)
    facts.update(
        src_bits=src.bits,
        src_static=src_static,
        src_elems=src_elems,
        src_base=p.base,
        align=p.align,
    )
    # A source whose element count passes int64 has no footprint (as for a request).
    axes = p.layout.axes(p.block, src.bits, len(src.shape))
    fp = (
        footprint(src.shape, p.block, p.offsets or (0,) * len(p.block), axes)
        if src_static
        else None
    )
    facts.update(fp.facts() if fp is not None else physical.EMPTY.facts())
    if fp is not None and res_static and off_int:
        _padding_fits(fp, src.bits, res_elems, res_bits, res_layout, int(off))  # type: ignore[call-overload]
    return facts


def _padding_fits(
    fp: Footprint, src_bits: int, res_elems: int, res_bits: int, res_layout: LayoutInfo, off: int
) -> None:
    """A padded result spans more bytes than its logical shape (``allocation_bytes``), which the
    rules' facts do not see: its padded span must lie in the source view's bytes, which the
    model describes only for a contiguous source view, and it must start at the source view's
    start (Triton indexes stacked padded tiles at the padded stride, so the lowering's index
    recipe would put it elsewhere than ``off``: 9216 bytes for the second 64x64 f16 tile padded
    8 after every 64, measured). A PlaceError says which does not hold."""
    if not res_layout.padding:
        return
    logical = res_elems * elem_bytes(res_bits)
    span = res_layout.footprint_bytes(res_bits, res_elems)
    if off != 0:
        raise PlaceError(
            f"a padded result layout is lowered only at offset 0 of its source (got {off}): "
            f"alias a dense int8 view of its {span} bytes at the offset, then the padded view "
            "at offset 0 of it"
        )
    contiguous = all(c == 1 for _, c in fp.levels)
    room = fp.run * elem_bytes(src_bits) if contiguous else None
    if room is None or span > room:
        where = f"its {room} bytes" if room is not None else "it is strided"
        raise PlaceError(
            f"the padded result layout spans {span} bytes (its padding included; its shape "
            f"{logical}), more than the source view holds: {where}"
        )


def recipe_facts(
    src: SourceView, res_shape: list[int], res_layout: LayoutInfo, off: int, tv: int
) -> Facts:
    """The extra facts the recipe predicate (alias_spec/backends/gen_recipes.py) reads."""

    def is_pow2(n: int) -> bool:
        return n > 0 and n & (n - 1) == 0

    place = src.place
    return {
        "tv": tv,
        "res_rank": len(res_shape),
        "res_d0_pow2": bool(res_shape) and is_pow2(res_shape[0]),
        "res_tail_pow2": all(is_pow2(d) for d in res_shape[1:]),
        "res_layout_rank": res_layout.rank,
        "res_layout_bits": res_layout.bits if res_layout.kind == "nvmma" else 0,
        "src_sub": src.subview,
        "src_lead_pow2": bool(src.shape) and is_pow2(src.shape[0]),
        "src_alloc_pow2": all(is_pow2(d) for d in src.alloc_shape),
        "src_layout_full": src.layout_rank == len(src.alloc_shape),
        "src_model": place is None or place.model_holds(src.shape),
        "gran": pow2_part(off) if off > 0 else 0,
    }
