"""``tle.gpu.alloc_reuse``: declared buffers placed in one shared-memory allocation by the planner.

A kernel author declares buffers and when each is in use, outside the kernel::

    PLAN = gl.constexpr(tle.gpu.reuse_plan(
        [tle.gpu.buffer("a", [STAGES, BM, BK], gl.bfloat16, a_layout),
         tle.gpu.buffer("c", [BM, BN], gl.bfloat16, c_layout)],
        uses={"a": "mainloop", "c": "epilogue"}, phases=["mainloop", "epilogue"]))

and inside it writes ``a, c = tle.gpu.alloc_reuse(PLAN)``. At compile time the planner
(``alias_spec.semantics.reuse``, z3) finds the smallest placement with every start aligned as
the buffer's layout needs and every pair in use together disjoint, each buffer as many bytes
as Triton reserves for its layout (``physical.allocation_bytes``: a padded layout's padding
included; a layout the model cannot size is refused); one allocation is made and
each buffer becomes a ``tle.gpu.alloc(alias=...)`` view of it, judged by the alias rules like
any other. A declaration that cannot be planned (unknown phase, too big to fit) is a compile
error at the kernel line. The program orders the phases itself (a CTA barrier between the last
use of one buffer and the first write of another over the same bytes), as with any alias.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language._core import _unwrap_if_constexpr, builtin
from triton.experimental.gluon.language._layouts import SharedLayout

from alias_spec.frontend.tle.args import TLEError, show
from alias_spec.frontend.tle.core import default_layout, place_alloc, smem
from alias_spec.frontend.tle.place import layout_info
from alias_spec.model import reuse
from alias_spec.model.physical import DEFAULT_ALIGNMENT
from alias_spec.model.reuse import SMEM_PER_BLOCK, Group, ReuseError


class buffer:
    """One declared buffer: a name, its shape, a Gluon dtype and shared layout (None: the
    default ``tle.gpu.alloc`` would pick)."""

    def __init__(self, name: str, shape: Sequence[int], dtype: Any, layout: Any = None) -> None:
        # Kept as given: alloc_reuse checks them when the kernel compiles, at the kernel's line.
        self.name, self.shape, self.dtype, self.layout = name, shape, dtype, layout

    def __repr__(self) -> str:
        return f"buffer({self.name!r}, {self.shape}, {self.dtype}, {self.layout!r})"


def shared(*members: str | Group) -> Group:
    """TLX's ``reuse_group(shared)``: the members may occupy the same bytes."""
    return Group("shared", tuple(members))


def distinct(*members: str | Group) -> Group:
    """TLX's ``reuse_group(distinct)``: the members are in use together."""
    return Group("distinct", tuple(members))


class reuse_plan:
    """Declarations for ``alloc_reuse``: the buffers and either ``uses`` (buffer name to the
    phase or phases it is in use in, the kernel's phases listed in ``phases``) or ``groups``.
    Checked here, where they are written (a TLEError names what is wrong: an unknown phase or
    buffer, a missing use, a layout that is not a shared one); whether they fit is found when
    the kernel compiles, an error at the kernel's line."""

    def __init__(
        self,
        buffers: Sequence[buffer],
        uses: Mapping[str, str | Iterable[str]] | None = None,
        phases: Sequence[str] | None = None,
        groups: Group | None = None,
        capacity: int = SMEM_PER_BLOCK,
    ) -> None:
        self.buffers, self.phases, self.groups, self.capacity = buffers, phases, groups, capacity
        self.uses = uses
        try:
            declarations(self)
        except TLEError as exc:
            text = str(exc).replace("tle.gpu.alloc_reuse: ", "tle.gpu.reuse_plan: ", 1)
            raise TLEError([text], exc.rules) from None

    def __repr__(self) -> str:  # Triton keys its cache on a constexpr's text: say everything
        return (
            f"reuse_plan({self.buffers!r}, uses={self.uses!r}, phases={self.phases!r}, "
            f"groups={self.groups!r}, capacity={self.capacity!r})"
        )


# Rows of bytes, unswizzled: the dense view a padded buffer's view is made in.
_BYTE_ROWS = gl.SwizzledSharedLayout(1, 1, 1, [1, 0])


def _fail(problem: str) -> TLEError:
    return TLEError([f"tle.gpu.alloc_reuse: {problem}"], ["reuse.plan"])


def _layout(b: buffer) -> Any:
    if b.layout is None:
        return default_layout(list(b.shape), b.dtype, True)  # shape checked by the caller
    if not isinstance(b.layout, SharedLayout):
        raise _fail(f"buffers.{b.name}.layout must be a Gluon shared layout, got {show(b.layout)}")
    return b.layout


def declarations(p: reuse_plan) -> tuple[reuse.Declarations, list[Any]]:
    """The model's declarations of a plan, and each buffer's Gluon layout; a TLEError names
    what is wrong."""
    if not isinstance(p.buffers, (list, tuple)):
        raise _fail(f"buffers must be a list of tle.gpu.buffer, got {show(p.buffers)}")
    bufs, layouts = [], []
    try:
        for i, b in enumerate(p.buffers):
            if not isinstance(b, buffer):
                raise ReuseError(f"buffers[{i}]", f"must be a tle.gpu.buffer, got {show(b)}")
            if type(b.dtype) is not gl.dtype:
                raise ReuseError(
                    f"buffers[{i}].dtype", f"must be a Gluon dtype, got {show(b.dtype)}"
                )
            bits = b.dtype.primitive_bitwidth
            # The name and shape checked before the default layout is built from them.
            plain = reuse.buffer(b.name, b.shape, bits)
            lay = _layout(b)
            info = layout_info(lay)
            if info.unsized:  # never place a buffer by a size Triton may not reserve
                raise ReuseError(
                    f"buffers.{plain.name}.layout", f"cannot be planned: {info.unsized}"
                )
            swizzle = info.swizzle_bytes if info.kind == "nvmma" else 0
            bufs.append(reuse.buffer(plain.name, plain.shape, bits, swizzle, info.alignment,
                                     info.padding))  # fmt: skip
            layouts.append(lay)
        d = reuse.declare(bufs, p.uses, p.phases, p.groups, p.capacity)
        reuse.root_swizzle(d)  # one allocation must be able to align every buffer
    except ReuseError as exc:
        raise _fail(str(exc)) from None
    return d, layouts


@functools.lru_cache(maxsize=256)
def placement(d: reuse.Declarations) -> reuse.Placement:
    """The planner's placement (memoised: a kernel compiled again plans once). z3 is needed
    only where first fit is not already smallest."""
    from alias_spec.semantics.reuse import plan

    try:
        return plan(d)
    except ReuseError as exc:
        raise _fail(str(exc)) from None
    except ImportError:
        raise _fail("the planner needs z3 to search: pip install 'tle-alias-spec[spec]'") from None


def root_shape(d: reuse.Declarations, total: int) -> tuple[list[int], Any]:
    """Shape and layout of the int8 allocation that holds the plan: aligned as the most
    demanding buffer needs (an NVMMA layout of that swizzle repeat), whole rows of it."""
    swizzle = reuse.root_swizzle(d)
    if swizzle:
        width, rows_per_tile = swizzle, 8
        layout = gl.NVMMASharedLayout(swizzle_byte_width=swizzle, element_bitwidth=8, rank=2)
    else:
        width, rows_per_tile = DEFAULT_ALIGNMENT, 1
        layout = gl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    tile = width * rows_per_tile
    rows = -(-max(total, 1) // tile) * rows_per_tile
    return [rows, width], layout


@builtin
def alloc_reuse(plan, _semantic=None):
    """One allocation holding every buffer of ``plan`` (a ``tle.gpu.reuse_plan``) where the
    planner placed it; returns a tuple of views, one per buffer, in declaration order."""
    p = _unwrap_if_constexpr(plan)
    if not isinstance(p, reuse_plan):
        raise _fail(f"plan must be a tle.gpu.reuse_plan, got {show(p)}")
    d, layouts = declarations(p)
    where = placement(d)
    shape, layout = root_shape(d, where.total)

    def one(shape: list[int], dtype: Any, layout: Any, alias: Any, offset: int) -> Any:
        # Every view is judged under safe, whatever TLE_ALIAS_PROFILE says: that is the
        # planner's guarantee (the root is an allocation; no rule judges it).
        return place_alloc(shape, dtype, layout, scope=smem, init_value=None, alias=alias,
                           alias_offset_bytes=offset, nv_mma_shared_layout=True,
                           profile="safe", semantic=_semantic)  # fmt: skip

    def view(b: reuse.Buffer, dtype: Any, lay: Any) -> Any:
        at = where.offset(b.name)
        if not b.padding:
            return one(list(b.shape), dtype, lay, root, at)
        # A padded view is made at offset 0 of a dense byte view of its whole padded span: the
        # alias rules take a padded result only there (stacked padded tiles are indexed at the
        # padded stride, not at the offset).
        rows = -(-b.size // DEFAULT_ALIGNMENT)
        span = one([rows, DEFAULT_ALIGNMENT], gl.int8, _BYTE_ROWS, root, at)
        return one(list(b.shape), dtype, lay, span, 0)

    root = one(shape, gl.int8, layout, None, 0)
    views = [
        view(b, pb.dtype, lay) for b, pb, lay in zip(d.buffers, p.buffers, layouts, strict=True)
    ]
    return gl.tuple(views)
