"""The rule catalogue: every alias rule as data.

A rule holds when its ``guard`` is false (its inputs are ill-typed, and the rule judging
those inputs fires instead) or its ``formula`` is true. Order here is catalogue order, the
order of violations in a verdict. Profiles name the rules they enforce.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache

from pydantic import BaseModel, ConfigDict

from alias_spec.model import dsl
from alias_spec.model.facts import expand, parse_checked


class Rule(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    title: str
    prose: str
    guard: str  # formula text; "True" when always evaluated
    formula: str  # formula text over facts and definitions; true means the rule holds
    message: str  # diagnostic text (FlagTree's where one exists)
    values: tuple[str, ...]  # facts/definitions reported when the rule fails
    provenance: str
    profiles: tuple[str, ...]
    fix: str | None = None  # what the solver may vary to propose a fix: "offset" or "size"
    hint: str | None = None  # what to change when the rule fires and no solver fix applies

    def guard_expr(self) -> dsl.Expr:
        return expand(self.guard)

    def formula_expr(self) -> dsl.Expr:
        return expand(self.formula)

    def display_formula(self) -> dsl.Expr:
        return parse_checked(self.formula)

    def display_guard(self) -> dsl.Expr:
        return parse_checked(self.guard)


FT = "flagtree"
SAFE = "safe"
BOTH = (FT, SAFE)
PY = "FlagTree PR #826, tle.gpu.alloc Python checks (semantic.py)"
CPP = "FlagTree PR #826, MemDescAliasOp::verify (C++)"
FEP = "FEP-0065 (FlagTree alias design), not checked by FlagTree"

OFF_OK = "off_int"
SIZES_OK = "off_int and src_static and res_static"

RULES: tuple[Rule, ...] = (
    Rule(
        id="alias.source.kind",
        title="The source is a buffered tensor",
        prose="alias= must name an existing shared-memory descriptor (a buffered tensor), "
        "not a register tensor or a pointer.",
        guard="True",
        formula="src_buffered",
        message="alias must be a tle.buffered_tensor",
        values=(),
        provenance=PY,
        profiles=BOTH,
        hint="pass a shared-memory descriptor (from tle.gpu.alloc or Gluon) as alias",
    ),
    Rule(
        id="alias.init_value",
        title="No init_value with alias",
        prose="An alias reuses existing bytes; initialising it would overwrite the source, "
        "so alias and init_value are mutually exclusive.",
        guard="True",
        formula="not init_given",
        message="alloc alias mode cannot be combined with init_value",
        values=(),
        provenance=PY,
        profiles=BOTH,
        hint="drop init_value; store into the alias after creating it if needed",
    ),
    Rule(
        id="alias.scope.smem",
        title="Shared memory only",
        prose="Alias mode supports shared memory only: the requested scope and the source's "
        "memory space must both be shared memory. A stock Triton view has no alias mode and "
        "may view tensor memory.",
        # Only tle.memdesc_alias has an alias scope; a stock view request's scope is neutral.
        guard="op == OP_ALIAS",
        formula="scope == SMEM and src_space == SMEM",
        message="alloc alias mode currently supports only smem buffers",
        values=("scope", "src_space"),
        provenance=PY + "; " + CPP + " ('expects shared memory descriptors')",
        profiles=BOTH,
        hint="use scope=tle.smem and a shared-memory source",
    ),
    Rule(
        id="alias.space.match",
        title="Source and result share a memory space",
        prose="A view cannot move bytes between memory spaces: the result lives where the "
        "source lives.",
        guard="True",
        formula="src_space == res_space",
        message="expects source and result memory spaces to match",
        values=("src_space", "res_space"),
        provenance=CPP,
        profiles=BOTH,
        hint="view the source in its own memory space",
    ),
    Rule(
        id="alias.mutability",
        title="No mutable alias of an immutable source",
        prose="Writing through an alias writes the source, so a mutable result needs a "
        "mutable source.",
        guard="True",
        formula="src_mutable or not res_mutable",
        message="cannot create a mutable alias from an immutable source",
        values=("src_mutable", "res_mutable"),
        provenance=CPP,
        profiles=BOTH,
        hint="make the result immutable, or view a mutable source",
    ),
    Rule(
        id="alias.offset.constexpr",
        title="The offset is a compile-time integer",
        prose="alias_offset_bytes must be a compile-time integer; a bool, float, string or "
        "runtime value is rejected.",
        guard="True",
        formula="off_int",
        message="alias_offset_bytes must be a compile-time integer",
        values=(),
        provenance=PY,
        profiles=BOTH,
        hint="pass a Python int or a gl.constexpr as alias_offset_bytes",
    ),
    Rule(
        id="alias.offset.nonneg",
        title="The offset is non-negative",
        prose="The alias starts at or after the source view's base.",
        guard=OFF_OK,
        formula="off >= 0",
        message="alias_offset_bytes must be non-negative",
        values=("off",),
        provenance=PY + "; " + CPP + " ('expects non-negative offset_bytes')",
        profiles=BOTH,
        fix="offset",
        hint="choose an offset that is non-negative, aligned and inside the source",
    ),
    Rule(
        id="alias.offset.i32",
        title="The offset fits in i32",
        prose="Shared-memory addresses are 32-bit, so the offset must be at most 2^31 - 1.",
        guard=OFF_OK,
        formula="off <= INT32_MAX",
        message="expects offset_bytes to fit in i32 for shared memory lowering",
        values=("off",),
        provenance=CPP,
        profiles=BOTH,
        fix="offset",
        hint="choose an offset that is non-negative, aligned and inside the source",
    ),
    Rule(
        id="alias.dtype.addressable",
        title="The result element type is byte-addressable",
        prose="The result's element width in bytes, ceil(bits / 8), must be at least 1.",
        guard="True",
        formula="res_eb >= 1",
        message="expects byte-addressable result element type",
        values=("res_bits", "res_eb"),
        provenance=CPP,
        profiles=BOTH,
        hint="use a dtype of at least 8 bits",
    ),
    Rule(
        id="alias.offset.aligned",
        title="The offset is aligned to the result element width",
        prose="The offset from the source view's base is a multiple of the result's element "
        "width in bytes.",
        guard=OFF_OK + " and res_eb >= 1",
        formula="off % res_eb == 0",
        message="expects offset_bytes to be aligned to the result element byte width",
        values=("off", "res_eb"),
        provenance=CPP,
        profiles=BOTH,
        fix="offset",
        hint="choose an offset that is non-negative, aligned and inside the source",
    ),
    Rule(
        id="alias.size.static",
        title="Static byte sizes",
        prose="Both byte sizes must be known at compile time: every dimension static and "
        "non-negative, the element count representable in int64 (counted dim by dim, as FlagTree "
        "does), each byte size representable in int64, and the source's element at least one "
        "byte wide (FlagTree's byte size has no value for a zero-byte element; a zero-byte "
        "result element is alias.dtype.addressable's, which FlagTree checks first).",
        guard="True",
        formula="src_static and res_static and src_bytes <= INT64_MAX and res_bytes <= INT64_MAX "
        "and src_bits >= 1",
        message="expects static source and result memdesc byte sizes",
        values=("src_static", "res_static", "src_bits", "src_bytes", "res_bytes"),
        provenance=CPP,
        profiles=BOTH,
        hint="give shape static, non-negative int dims and a source dtype of at least 8 bits",
    ),
    Rule(
        id="alias.range.fits",
        title="The result fits in the source view (logical sizes)",
        prose="With sizes taken from the logical view shapes, the result's bytes "
        "[off, off + result bytes) lie inside [0, source bytes).",
        guard=SIZES_OK,
        formula="res_bytes <= src_bytes and off <= src_bytes - res_bytes",
        message="result byte range must fit within the source view",
        values=("off", "res_bytes", "src_bytes"),
        provenance=CPP,
        profiles=BOTH,
        fix="offset",
        hint="shrink the result or move it so that it ends inside the source view",
    ),
    Rule(
        id="alias.range.physical",
        title="The result lies in the source view's physical footprint",
        prose="Every byte of the result lies in bytes the source view really covers inside "
        "its allocation. A subslice source with gaps between its rows is not treated as "
        "dense: the result must sit inside one contiguous run of the source view.",
        guard=SIZES_OK + " and off >= 0",
        formula="res_bytes == 0 or (run_b >= res_bytes and off // p0_b < c0 and "
        "off % p0_b // p1_b < c1 and r1 // p2_b < c2 and r2 + res_bytes <= run_b)",
        message="result byte range must lie within the source view's physical footprint",
        values=("off", "res_bytes", "run_b", "p0_b", "c0", "p1_b", "c1", "p2_b", "c2"),
        provenance=FEP + " (FEP promises address-set containment)",
        profiles=(SAFE,),
        fix="offset",
        hint="shrink the result or move it so that it ends inside the source view",
    ),
    Rule(
        id="alias.address.aligned",
        title="The result is element-aligned in absolute address terms",
        prose="The result's start, counted from the allocation's start (source base, "
        "subslice position and offset), is a multiple of the result element width, and the "
        "allocation's own alignment guarantees that width. An offset aligned relative to a "
        "misaligned source is not enough.",
        guard=OFF_OK + " and res_eb >= 1 and src_static",
        formula="abs_off % res_eb == 0 and align % res_eb == 0",
        message="result start must be aligned to its element width in absolute address terms",
        values=("abs_off", "res_eb", "align"),
        provenance=FEP + " (element alignment of every access)",
        profiles=(SAFE,),
        fix="offset",
        hint="start the view on a multiple of its element width from the allocation",
    ),
    Rule(
        id="alias.address.i32",
        title="The result is 32-bit addressable from its allocation",
        prose="Shared-memory addresses are 32-bit: the result's end, counted from the "
        "allocation's start, is at most 2^31 - 1. Checking only the offset against i32 does "
        "not compose: two i32 offsets along a chain of aliases can sum past it.",
        # An offset past i32 is judged by alias.offset.i32 alone.
        guard=SIZES_OK + " and off <= INT32_MAX",
        formula="abs_off + res_bytes <= INT32_MAX",
        message="result byte range must end within 32-bit shared-memory addressing",
        values=("abs_off", "res_bytes"),
        provenance="Derived from FlagTree's i32 offset check, made to compose along chains",
        profiles=(SAFE,),
        fix="offset",
        hint="start the view on a multiple of its element width from the allocation",
    ),
    Rule(
        id="alias.base.aligned",
        title="A swizzled NVMMA result starts on a swizzle repeat",
        prose="TMA and wgmma apply the NVMMA swizzle to absolute shared-memory address "
        "bits, so a result with a swizzled NVMMA layout must start on a multiple of its "
        "swizzle repeat (8 x swizzle bytes), and the allocation must guarantee that "
        "alignment.",
        guard=OFF_OK + " and src_static",
        formula="swz == 0 or (abs_off % swz == 0 and align % swz == 0)",
        message="swizzled NVMMA alias must start on a multiple of its swizzle repeat",
        values=("abs_off", "swz", "align"),
        provenance="Triton NVMMA shared layout alignment (128 x maxPhase); not checked by FlagTree",
        profiles=(SAFE,),
        fix="offset",
        hint="start the swizzled view on a multiple of its swizzle repeat",
    ),
)


# --- Stock Triton view rules ----------------------------------------------------------------
# Triton's own verifiers for ttg.memdesc_reinterpret, _subslice, _index and the memdesc type,
# per release. Each rule was read off the release's diagnostics and checked against its real
# C++ verifier by `alias-spec triton-diff` (docs/triton-agreement.md). "Aborts" rules model
# inputs on which the release's verifier kills the process instead of reporting an error: not
# accepted. 3.7.0 has 3.6.0's view-op verifiers but two more memdesc type checks (no zero dim,
# NVMMA width), found by the differential test; every 3.6 rule is a 3.7 rule (``_t``).

T36, T37, T38, T39 = "triton-3.6", "triton-3.7", "triton-3.8", "triton-3.9"
ALL_T = (T36, T38, T39)
V36 = "Triton 3.6.0 verifier"
V38 = "Triton 3.8.0 verifier (PRs #10243, #10286 for memdesc_reinterpret)"
V39 = "Triton 3.9.0 verifier"
TYPE = "MemDescType::verify"
IS_RE = "op == OP_REINTERPRET"
IS_SUB = "op == OP_SUBSLICE"
IS_IDX = "op == OP_INDEX"
SPLIT = IS_SUB + " and sub_split"


def _t(
    rule_id: str,
    title: str,
    prose: str,
    guard: str,
    formula: str,
    message: str,
    values: tuple[str, ...],
    provenance: str,
    profiles: tuple[str, ...],
    hint: str | None = None,
) -> Rule:
    return Rule(
        id=rule_id,
        title=title,
        prose=prose,
        guard=guard,
        formula=formula,
        message=message,
        values=values,
        provenance=provenance + ("; unchanged in 3.7.0" if T36 in profiles else ""),
        profiles=tuple(x for q in profiles for x in ((q, T37) if q == T36 else (q,))),
        hint=hint,
    )


TRITON_RULES: tuple[Rule, ...] = (
    _t(
        "triton.op.stock",
        "The op exists in stock Triton",
        "tle.memdesc_alias is FlagTree's op; stock Triton has only ttg.memdesc_reinterpret, "
        "ttg.memdesc_subslice and ttg.memdesc_index (the Gluon recipes express an alias with "
        "them).",
        "True",
        "op != OP_ALIAS",
        "tle.memdesc_alias is not a stock Triton op",
        ("op",),
        "Triton 3.6.0, 3.8.0, 3.9.0 dialect registries",
        ALL_T,
        hint="lower tle.memdesc_alias to a Gluon recipe (reinterpret + index)",
    ),
    _t(
        "triton.type.rank",
        "A memdesc has rank >= 1",
        "Every memdesc type, source and result, has at least one dimension.",
        "True",
        "src_rank >= 1 and res_rank >= 1",
        "rank 0 memdesc is not allowed",
        ("src_rank", "res_rank"),
        f"{TYPE} in 3.6.0, 3.8.0, 3.9.0",
        ALL_T,
        hint="fix the memdesc type (rank, layout rank, alloc shape, power-of-2 dims)",
    ),
    _t(
        "triton.type.layout_rank",
        "The layout rank is the shape rank or one less",
        "A shared layout covers every dim of the shape, or all but a leading buffer dim "
        "(multi-buffering).",
        "True",
        # Written as a range (not a disjunction) so the C++ rendering stays warning-free.
        "src_rank - src_lay_rank >= 0 and src_rank - src_lay_rank <= 1 and "
        "res_rank - res_lay_rank >= 0 and res_rank - res_lay_rank <= 1",
        "rank must be equal to or one less than the shape size",
        ("src_lay_rank", "src_rank", "res_lay_rank", "res_rank"),
        f"{TYPE} in 3.6.0, 3.8.0, 3.9.0",
        ALL_T,
        hint="fix the memdesc type (rank, layout rank, alloc shape, power-of-2 dims)",
    ),
    _t(
        "triton.type.alloc_rank",
        "The alloc shape has at least the shape's rank",
        "A view's alloc shape (its allocation's shape) has at least as many dims as its shape.",
        "True",
        "src_alloc_rank >= src_rank and res_alloc_rank >= res_rank",
        "alloc shape must have at least as many dimensions as shape",
        ("src_alloc_rank", "src_rank", "res_alloc_rank", "res_rank"),
        f"{TYPE} in 3.6.0, 3.8.0, 3.9.0",
        ALL_T,
        hint="fix the memdesc type (rank, layout rank, alloc shape, power-of-2 dims)",
    ),
    _t(
        "triton.type.alloc_fits",
        "The shape fits in the alloc shape",
        "Each dim of a view is at most the matching trailing dim of its alloc shape.",
        "True",
        "src_alloc_fits and res_alloc_fits",
        "shape must be less than or equal to allocShape",
        (),
        f"{TYPE} in 3.6.0, 3.8.0, 3.9.0",
        ALL_T,
        hint="fix the memdesc type (rank, layout rank, alloc shape, power-of-2 dims)",
    ),
    _t(
        "triton.type.pow2_tail",
        "Every dim after the first is a power of 2",
        "Only the leading dim of a memdesc may have any size (including 0 in 3.6); every "
        "other dim is a non-zero power of 2.",
        "True",
        "src_tail_pow2 and res_tail_pow2",
        "shape must have power-of-2 and non-zero dimensions",
        (),
        f"{TYPE} in 3.6.0 and 3.8.0",
        (T36, T38),
        hint="use power-of-2 dims (only a leading buffer dim may be any size)",
    ),
    _t(
        "triton.type.nonzero",
        "No zero dim",
        "Every dim of a memdesc is non-zero, the leading one too (3.6 accepts a leading 0).",
        "True",
        "src_nonzero and res_nonzero",
        "shape has 0 dimension",
        (),
        f"{TYPE} in 3.7.0, 3.8.0 and 3.9.0",
        (T37, T38, T39),
        hint="fix the memdesc type (rank, layout rank, alloc shape, power-of-2 dims)",
    ),
    _t(
        "triton.type.pow2",
        "Every dim the layout covers is a power of 2",
        "3.9 extends the power-of-2 rule to the leading dim unless the layout leaves it out "
        "(a leading buffer dim may have any size).",
        "True",
        "src_tail_pow2 and res_tail_pow2 and (True if src_lay_rank < src_rank else "
        "src_d0_pow2) and (True if res_lay_rank < res_rank else res_d0_pow2)",
        "shape must have power-of-2 and non-zero dimensions",
        (),
        f"{TYPE} in 3.9.0",
        (T39,),
        hint="use power-of-2 dims (only a leading buffer dim may be any size)",
    ),
    _t(
        "triton.type.alloc_pow2",
        "Every alloc-shape dim after the first is a power of 2",
        "3.9 checks the alloc shape too: every dim its layout covers is a power of 2 (a "
        "leading buffer dim the layout leaves out may have any size).",
        "True",
        "src_alloc_tail_pow2 and res_alloc_tail_pow2",
        "alloc shape must have power-of-2 and non-zero dimensions",
        (),
        f"{TYPE} in 3.9.0",
        (T39,),
        hint="fix the memdesc type (rank, layout rank, alloc shape, power-of-2 dims)",
    ),
    _t(
        "triton.type.nvmma_width",
        "An NVMMA layout's contiguous dim spans a swizzle row",
        "With an NVMMA swizzle of W bytes, the contiguous dim holds at least 8W / B elements "
        "(rounded down), B the layout's elementBitWidth, whatever the element type: f16 data "
        "in an 8-bit layout needs twice the elements an f16 layout does.",
        "True",
        "src_nvmma_fits and res_nvmma_fits",
        "block shape along the contiguous dimension is too small for the swizzle byte width",
        (),
        "NVMMA layout check in 3.7.0, 3.8.0 and 3.9.0 (3.6.0 aborts on a subslice of one)",
        (T37, T38, T39),
        hint="fix the memdesc type (rank, layout rank, alloc shape, power-of-2 dims)",
    ),
    _t(
        "triton.type.byte_elems",
        "Shared-memory elements are whole bytes",
        "3.9 requires element widths that are multiples of 8 bits in shared memory.",
        "True",
        "src_bits >= 8 and res_bits >= 8 and src_bits % 8 == 0 and res_bits % 8 == 0",
        "shared-memory element type bit width must be a multiple of 8",
        ("src_bits", "res_bits"),
        f"{TYPE} in 3.9.0",
        (T39,),
        hint="fix the memdesc type (rank, layout rank, alloc shape, power-of-2 dims)",
    ),
    # memdesc_reinterpret
    _t(
        "triton.reinterpret.space",
        "Reinterpret keeps the memory space",
        "A reinterpret cannot move bytes between memory spaces.",
        IS_RE,
        "src_space == res_space",
        "source and result must have the same memory space",
        ("src_space", "res_space"),
        f"{V38}; {V39}",
        (T38, T39),
        hint="reinterpret the whole parent descriptor",
    ),
    _t(
        "triton.reinterpret.mutability",
        "Reinterpret keeps mutability",
        "The result is mutable exactly when the source is. 3.6 checks nothing here, so it "
        "makes a writable view of read-only memory.",
        IS_RE,
        "src_mutable == res_mutable",
        "source and result must have the same mutability",
        ("src_mutable", "res_mutable"),
        f"{V38}; {V39}",
        (T38, T39),
        hint="keep the source's mutability",
    ),
    _t(
        "triton.reinterpret.no_subview",
        "3.8: neither side is a subview",
        "3.8 reinterprets whole descriptors only: reinterpret the parent, then take a subview.",
        IS_RE,
        "not src_subview and not res_subview",
        "source and result must not be subviews; reinterpret the parent descriptor and then "
        "take a subview",
        ("src_subview", "res_subview"),
        V38,
        (T38,),
        hint="reinterpret the parent descriptor, then take the subview",
    ),
    _t(
        "triton.reinterpret.same_size",
        "3.8: the logical storage size is unchanged",
        "Source and result hold the same number of bits (elements x bit width, the leading "
        "buffer dim included).",
        IS_RE + " and src_static and res_static",
        "src_elems * src_bits == res_elems * res_bits",
        "source and result must have the same logical storage size",
        ("src_elems", "src_bits", "res_elems", "res_bits"),
        V38,
        (T38,),
        hint="reinterpret to exactly the source's byte size",
    ),
    _t(
        "triton.reinterpret.layout",
        "3.8 aborts on some reinterprets",
        "3.8 computes storage sizes through the layouts, which assert on a non-power-of-2 "
        "leading dim inside a side's layout (a leading buffer dim outside it may have any "
        "size) and on a swizzled NVMMA layout covering fewer than 8 rows: the process dies.",
        IS_RE,
        "(src_d0_pow2 or src_lay_rank < src_rank) and (res_d0_pow2 or res_lay_rank < res_rank) "
        "and src_nvmma_rows and res_nvmma_rows",
        "Triton 3.8 aborts on this reinterpret (layout conversion assert)",
        (),
        V38 + " (observed abort)",
        (T38,),
        hint="reinterpret the whole parent descriptor",
    ),
    _t(
        "triton.reinterpret.result_subview",
        "3.9: the result is not a subview",
        "A reinterpret creates a new root descriptor; its type cannot claim a larger allocation.",
        IS_RE,
        "not res_subview",
        "result must not be a subview",
        ("res_subview",),
        V39,
        (T39,),
        hint="reinterpret the whole parent descriptor",
    ),
    _t(
        "triton.reinterpret.fits",
        "3.9: the result fits in the source view",
        "The result's bytes are at most the source view's bytes.",
        IS_RE + " and src_static and res_static",
        "res_bytes <= src_bytes",
        "result shared-memory footprint exceeds the source view",
        ("res_bytes", "src_bytes"),
        V39,
        (T39,),
        hint="reinterpret to at most the source view's byte size",
    ),
    _t(
        "triton.reinterpret.owned",
        "3.9: a subview source owns the result's bytes",
        "A subview source may be reinterpreted when the result lies in bytes it owns: within "
        "its first contiguous run.",
        IS_RE + " and src_static and res_static and src_subview",
        "res_bytes <= run_b",
        "result shared-memory footprint includes offsets not owned by the source subview",
        ("res_bytes", "run_b"),
        V39,
        (T39,),
        hint="reinterpret only a contiguous part of a subview source",
    ),
    # memdesc_index
    _t(
        "triton.index.elem",
        "Index keeps the element type",
        "The result has the source's element type.",
        IS_IDX,
        "same_elem",
        "result element type must match desc element type",
        (),
        "MemDescIndexOp::verify in 3.6.0, 3.8.0, 3.9.0",
        ALL_T,
        hint="index a whole multi-buffered allocation; the result is shape[1:]",
    ),
    _t(
        "triton.index.rank",
        "Index drops exactly one dim",
        "The result's rank is the source's rank minus one.",
        IS_IDX,
        "res_rank + 1 == src_rank",
        "result rank must be input rank - 1",
        ("src_rank", "res_rank"),
        "MemDescIndexOp::verify in 3.6.0, 3.8.0, 3.9.0",
        ALL_T,
        hint="index a whole multi-buffered allocation; the result is shape[1:]",
    ),
    _t(
        "triton.index.of_index",
        "No index of a view with a longer alloc shape",
        "A source whose alloc shape has more dims than its shape (the type of an earlier "
        "index view) cannot be indexed.",
        IS_IDX,
        "src_alloc_rank == src_rank",
        "We don't allow taking memdesc_index of a memdesc_index",
        ("src_alloc_rank", "src_rank"),
        "MemDescIndexOp::verify in 3.6.0, 3.8.0, 3.9.0",
        ALL_T,
        hint="index a whole multi-buffered allocation; the result is shape[1:]",
    ),
    _t(
        "triton.index.shape",
        "The result shape is the source shape without its first dim",
        "memdesc_index keeps the trailing dims unchanged.",
        IS_IDX,
        "idx_shape_ok",
        "result shape must equal to srcShape[1:]",
        (),
        "MemDescIndexOp::verify in 3.6.0, 3.8.0, 3.9.0",
        ALL_T,
        hint="index a whole multi-buffered allocation; the result is shape[1:]",
    ),
    _t(
        "triton.index.subview",
        "3.6/3.8: no index of a subview",
        "The source must be a whole allocation (alloc shape == shape).",
        IS_IDX,
        "not src_subview",
        "We don't support memdesc_index of a subview",
        ("src_subview",),
        f"{V36}; {V38}",
        (T36, T38),
        hint="index a whole multi-buffered allocation; the result is shape[1:]",
    ),
    _t(
        "triton.index.prefix",
        "3.9: only a leading-dim subview can be indexed",
        "3.9 also indexes a subview that trims only the leading (buffer) dim.",
        IS_IDX,
        "not src_subview or src_prefix_sub",
        "We only support memdesc_index of a multibuffer-prefix subview",
        ("src_subview", "src_prefix_sub"),
        V39,
        (T39,),
        hint="index a whole multi-buffered allocation; the result is shape[1:]",
    ),
    _t(
        "triton.index.result_alloc",
        "The index result is a root-shaped view",
        "The result's alloc shape equals its shape.",
        IS_IDX,
        "not res_subview",
        "alloc shape must match shape for the result",
        ("res_subview",),
        "MemDescIndexOp::verify in 3.6.0, 3.8.0, 3.9.0",
        ALL_T,
        hint="index a whole multi-buffered allocation; the result is shape[1:]",
    ),
    _t(
        "triton.index.encoding",
        "3.8+: index keeps the layout",
        "The result carries the source's layout attribute, so the source layout must leave "
        "out the indexed (leading) dim.",
        IS_IDX,
        "same_enc",
        "src and result must have the same encoding",
        (),
        f"{V38}; {V39}",
        (T38, T39),
        hint="give the result the source's layout (a layout without the leading buffer dim)",
    ),
    # memdesc_subslice
    _t(
        "triton.subslice.elem",
        "Subslice keeps the element type",
        "The result has the source's element type.",
        IS_SUB,
        "same_elem",
        "result element type must match desc element type",
        (),
        "MemDescSubsliceOp::verify in 3.6.0, 3.8.0, 3.9.0",
        ALL_T,
        hint="take a subslice with the source's layout, alloc shape and element type",
    ),
    _t(
        "triton.subslice.offsets",
        "One offset per source dim",
        "The offsets list has the source's rank.",
        IS_SUB,
        "sub_rank_ok",
        "offsets must have the same rank as input",
        (),
        "MemDescSubsliceOp::verify in 3.6.0, 3.8.0, 3.9.0",
        ALL_T,
        hint="take a subslice with the source's layout, alloc shape and element type",
    ),
    _t(
        "triton.subslice.rank",
        "Subslice keeps the rank",
        "Source and result have the same rank.",
        IS_SUB,
        "src_rank == res_rank",
        "result rank must equal to input rank",
        ("src_rank", "res_rank"),
        "MemDescSubsliceOp::verify in 3.6.0, 3.8.0, 3.9.0",
        ALL_T,
        hint="take a subslice with the source's layout, alloc shape and element type",
    ),
    _t(
        "triton.subslice.encoding",
        "3.8+: subslice keeps the layout",
        "The result carries the source's layout attribute.",
        IS_SUB,
        "same_enc",
        "src and result must have the same encoding",
        (),
        f"{V38}; {V39}",
        (T38, T39),
        hint="take a subslice with the source's layout, alloc shape and element type",
    ),
    _t(
        "triton.subslice.alloc_shape",
        "3.9: subslice keeps the alloc shape",
        "The result's alloc shape is the source's: a subslice result that claims another "
        "allocation shape gets other strides downstream.",
        IS_SUB,
        "same_alloc",
        "source and result must have the same allocation shape",
        (),
        V39,
        (T39,),
        hint="take a subslice with the source's layout, alloc shape and element type",
    ),
    _t(
        "triton.subslice.bounds",
        "3.9: the subslice lies inside the source",
        "In every dim, offset + result size <= source size.",
        IS_SUB + " and sub_rank_ok",
        "sub_in_bounds",
        "The split offset may not exceed the source shape",
        (),
        V39,
        (T39,),
        hint="keep offset + size within the source in every dim",
    ),
    _t(
        "triton.subslice.start",
        "3.8: every offset is below the source size",
        "3.8 checks where a subslice starts, not where it ends: a result larger than a "
        "subview source passes. Checked only when some dim is split.",
        SPLIT + " and sub_rank_ok",
        "sub_off_lt",
        "The split offset may not exceed the source shape",
        (),
        V38,
        (T38,),
        hint="keep every offset below the source size",
    ),
    _t(
        "triton.subslice.unsplit",
        "Dims that are not split have offset 0",
        "A dim whose size is unchanged starts at 0. Checked only when some dim is split "
        "(an identity subslice passes whatever its offsets).",
        SPLIT + " and sub_rank_ok",
        "sub_zero_ok",
        "A non zero offset found in a dimension that is not being split",
        (),
        "MemDescSubsliceOp::verify in 3.6.0, 3.8.0, 3.9.0",
        ALL_T,
        hint="take a subslice with the source's layout, alloc shape and element type",
    ),
    _t(
        "triton.subslice.tile",
        "A split offset is a multiple of the result size",
        "offset & (size - 1) == 0 in every split dim, so the lowering can OR the offset into "
        "the address.",
        SPLIT + " and sub_rank_ok",
        "sub_tile_ok",
        "The split offset may not touch the tile",
        (),
        "MemDescSubsliceOp::verify in 3.6.0, 3.8.0, 3.9.0",
        ALL_T,
        hint="use offsets that are multiples of the result size",
    ),
    _t(
        "triton.subslice.swizzle",
        "A split does not cut the swizzle pattern",
        "Each power-of-2 step of a split dim, from the result size up to the source size, maps "
        "to a power-of-2 offset in the source layout.",
        SPLIT + " and sub_rank_ok",
        "sub_swz_ok",
        "We don't support splitting along the swizzling pattern",
        (),
        "MemDescSubsliceOp::verify in 3.6.0, 3.8.0, 3.9.0",
        ALL_T,
        hint="split along whole swizzle patterns (rows in multiples of perPhase x maxPhase)",
    ),
    _t(
        "triton.subslice.layout",
        "3.6/3.8 abort on a split of some sources",
        "Splitting a source whose layout leaves out a leading buffer dim, whose leading dim "
        "is not a power of 2, or whose NVMMA layout is narrower than the swizzle or shorter "
        "than its 8-row pattern kills the process in the layout conversion.",
        SPLIT,
        "src_lay_rank == src_rank and src_d0_pow2 and src_nvmma_fits and src_nvmma_rows",
        "Triton aborts on this subslice (layout conversion assert)",
        ("src_lay_rank", "src_rank"),
        f"{V36}; {V38} (observed aborts)",
        (T36, T38),
        hint="take a subslice with the source's layout, alloc shape and element type",
    ),
)

TRITON_RULES += (
    _t(
        "triton.subslice.nvmma_rows",
        "3.9 aborts on a split of a short NVMMA source",
        "Splitting a source whose swizzled NVMMA layout covers fewer than 8 rows kills the "
        "process in the layout conversion.",
        SPLIT,
        "src_nvmma_rows",
        "Triton aborts on this subslice (NVMMA layout shorter than its swizzle pattern)",
        (),
        V39 + " (observed aborts)",
        (T39,),
        hint="take a subslice with the source's layout, alloc shape and element type",
    ),
    _t(
        "triton.reinterpret.nvmma_rows",
        "3.9 aborts on a reinterpret of a short NVMMA view",
        "3.9 computes both footprints through the layouts; a swizzled NVMMA layout covering "
        "fewer than 8 rows kills the process there.",
        IS_RE,
        "src_nvmma_rows and res_nvmma_rows",
        "Triton aborts on this reinterpret (NVMMA layout shorter than its swizzle pattern)",
        (),
        V39 + " (observed aborts)",
        (T39,),
        hint="reinterpret the whole parent descriptor",
    ),
)

RULES = RULES + TRITON_RULES

PROFILES: dict[str, str] = {
    FT: "FlagTree's shipped checks (Python frontend and C++ verifier together)",
    SAFE: "FlagTree's checks plus what FEP-0065 promises: physical containment and "
    "absolute alignment (the default)",
    T36: "Stock Triton 3.6's view verifiers (memdesc types, reinterpret, subslice, index)",
    T37: "Stock Triton 3.7's view verifiers (3.6's, plus no zero dims and the NVMMA width check "
    "on every memdesc type)",
    T38: "Stock Triton 3.8's view verifiers (reinterpret checks size, subviews, mutability)",
    T39: "Stock Triton 3.9's view verifiers (reinterpret relaxed to fit the source view)",
}
DEFAULT_PROFILE = SAFE


def rules_for(profile: str) -> tuple[Rule, ...]:
    if profile not in PROFILES:
        raise KeyError(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    return tuple(r for r in RULES if profile in r.profiles)


def rule(rule_id: str) -> Rule:
    for r in RULES:
        if r.id == rule_id:
            return r
    raise KeyError(f"unknown rule {rule_id!r}")


@cache
def compiled(rule_id: str) -> tuple[dsl.Expr, dsl.Expr]:
    """(guard, formula) with definitions inlined; validated once."""
    r = rule(rule_id)
    return r.guard_expr(), r.formula_expr()


@dataclass(frozen=True)
class Spec:
    """A catalogue as the backends take it: its rules, in order, and its profiles (name ->
    description). Every generator is a function of one (``spec()`` by default), so a test or a
    mutation campaign hands it another catalogue instead of patching module globals."""

    rules: tuple[Rule, ...]
    profiles: Mapping[str, str]
    _trees: dict[str, tuple[dsl.Expr, dsl.Expr]] = field(default_factory=dict, compare=False)

    def rules_for(self, profile: str) -> tuple[Rule, ...]:
        if profile not in self.profiles:
            raise KeyError(f"unknown profile {profile!r}; choose one of {', '.join(self.profiles)}")
        return tuple(r for r in self.rules if profile in r.profiles)

    def rule(self, rule_id: str) -> Rule:
        for r in self.rules:
            if r.id == rule_id:
                return r
        raise KeyError(f"unknown rule {rule_id!r}")

    def compiled(self, r: Rule) -> tuple[dsl.Expr, dsl.Expr]:
        """(guard, formula) of one of its rules, definitions inlined; computed once."""
        if self.rules is RULES:
            return compiled(r.id)  # the catalogue's own: cached for the process
        got = self._trees.get(r.id)
        if got is None:
            got = self._trees[r.id] = (r.guard_expr(), r.formula_expr())
        return got


def spec() -> Spec:
    """The catalogue as it stands (read at the call: ``difftest.mutate.catalogue_as`` may have
    put a mutated one in its place)."""
    return Spec(RULES, PROFILES)
