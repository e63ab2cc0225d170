"""The lowering's recipe choice as data: which Gluon op sequence expresses an alias.

Which Gluon op sequence can express an alias on a given Triton release is a question of the
same kind as the alias rules, so it is written the same way: formulas in the spec's DSL over the
spec's facts plus a few recipe facts that only the lowering needs. The backend
``alias_spec.backends.gen_recipes`` renders them as Python; the theorems in
``alias_spec.semantics.recipe_theorems`` prove them.
"""

from __future__ import annotations

from dataclasses import dataclass

from alias_spec.model import dsl
from alias_spec.model.facts import CONSTANTS, DEFINITIONS, Fact, sorts

RECIPE_FACTS: tuple[Fact, ...] = (
    Fact("tv", dsl.INT, "installed Triton version as major * 100 + minor (306 for 3.6)"),
    Fact("res_rank", dsl.INT, "rank of the result shape"),
    Fact("res_d0_pow2", dsl.BOOL, "the result's first dim is a power of 2"),
    Fact("res_tail_pow2", dsl.BOOL, "every result dim after the first is a power of 2"),
    Fact("res_layout_rank", dsl.INT, "rank of the result's shared layout"),
    Fact("res_layout_bits", dsl.INT, "element bit width an NVMMA result layout names, else 0"),
    Fact("src_sub", dsl.BOOL, "the source's memdesc type is a subview (shape != alloc_shape)"),
    Fact("src_lead_pow2", dsl.BOOL, "the source's first dim is a power of 2"),
    Fact("src_alloc_pow2", dsl.BOOL, "every dim of the source type's alloc_shape is a power of 2"),
    Fact("src_layout_full", dsl.BOOL, "the source layout's rank equals its alloc_shape's rank"),
    Fact(
        "src_model",
        dsl.BOOL,
        "the spec's dense byte model describes the source view (false for a subslice that "
        "cuts a swizzled or NVMMA-tiled dim, whose bytes Triton places elsewhere)",
    ),
    Fact("gran", dsl.INT, "largest power of 2 dividing off (0 when off is 0)"),
)

# Abbreviations used below only (the spec's own definitions are inlined as well).
LOCAL_DEFINITIONS: tuple[tuple[str, str], ...] = (
    ("src_contig", "not src_sub or c0 * c1 * c2 == 1"),
    # 3.8 reinterprets only a whole allocation whose leading dim is a power of 2 or a buffer
    # dim outside its layout, and compares bits, so a sub-byte source (one byte per element in
    # shared memory) never matches bytes.
    (
        "src_whole",
        "not src_sub and (src_lead_pow2 or not src_layout_full) and src_bits % 8 == 0",
    ),
)


@dataclass(frozen=True)
class Support:
    """A condition the installed Triton needs; each failing one is a lowering.unsupported."""

    check: str
    formula: str
    reason: str
    fix: str
    values: tuple[str, ...]


SUPPORT: tuple[Support, ...] = (
    Support(
        "shape.rank",
        "res_rank >= 1",
        "a shared-memory descriptor needs rank >= 1",
        "give the result at least one dimension",
        ("res_rank",),
    ),
    Support(
        "shape.empty",
        "res_elems >= 1",
        "the result has no elements",
        "give every result dim a positive size",
        ("res_elems",),
    ),
    Support(
        "dtype.bytes",
        "res_bits % 8 == 0",
        "Gluon cannot view sub-byte elements in shared memory",
        "alias with an element type of 8, 16, 32 or 64 bits",
        ("res_bits",),
    ),
    Support(
        "shape.pow2",
        "res_tail_pow2 and (res_rank >= 2 or res_d0_pow2)",
        "every result dim after the first must be a power of 2, and so must a 1-D result "
        "(Triton aborts the process on a non-power-of-2 1-D shared view)",
        "pad the result shape to powers of 2 (only the leading dim of a rank >= 2 result may "
        "be any size)",
        ("res_rank",),
    ),
    Support(
        "layout.rank",
        "res_layout_rank == res_rank or res_layout_rank + 1 == res_rank",
        "the result layout's rank must equal the result rank or be one less (a leading buffer dim)",
        "pass a layout built for the result's rank",
        ("res_layout_rank", "res_rank"),
    ),
    Support(
        "layout.dtype",
        "res_layout_bits == 0 or res_layout_bits == res_bits",
        "the NVMMA layout names another element width than the result dtype",
        "build the NVMMA layout with element_bitwidth equal to the result dtype's width",
        ("res_layout_bits", "res_bits"),
    ),
    Support(
        "shape.pow2_lead",
        "tv <= 307 or res_d0_pow2 or res_layout_rank < res_rank",
        "Triton 3.8 aborts on, and 3.9 rejects, a shared view whose leading dim is not a power "
        "of 2 unless that dim lies outside the layout",
        "pad the leading dim to a power of 2, or pass a layout of one rank less so that the "
        "leading dim is a buffer dim",
        ("res_rank", "res_layout_rank"),
    ),
    Support(
        "base.align16",
        "abs_off % 16 == 0 and align % 16 == 0",
        "Triton 3.6 assumes every shared-memory view starts 16-byte aligned and may access it "
        "with ldmatrix/stmatrix or 16-byte vectors; a view starting elsewhere faulted on an H200 "
        "(misaligned address) even where its elements were aligned",
        "choose alias_offset_bytes so that the alias starts on a 16-byte boundary",
        ("abs_off", "align"),
    ),
    Support(
        "source.subview",
        "not src_sub or (src_alloc_pow2 and src_layout_full)",
        "Triton 3.6 aborts the process when it folds the offset of a subslice whose parent has a "
        "non-power-of-2 dim or a leading buffer dim outside its layout",
        "alias the parent descriptor (or an index of it) and fold the slice position into "
        "alias_offset_bytes",
        (),
    ),
    Support(
        "source.model",
        "src_model",
        "the source is a subslice that cuts a swizzled or NVMMA-tiled dim; Triton places its "
        "bytes where the spec's dense byte model does not expect them, so no check can vouch "
        "for the alias",
        "alias the parent descriptor (or a slice along its leading dim) and fold the slice "
        "position into alias_offset_bytes",
        (),
    ),
)


@dataclass(frozen=True)
class Recipe:
    name: str
    formula: str
    ops: str  # the Gluon op sequence, for docs and messages


RECIPES: tuple[Recipe, ...] = (
    Recipe(
        "view",
        "off == 0 and (tv <= 307 or (tv == 308 and src_whole and res_bytes == src_bytes) or "
        "(tv >= 309 and src_contig and res_bytes <= src_bytes))",
        "src._reinterpret(D, S, L)",
    ),
    Recipe(
        "index",
        "res_bytes >= 1 and off % res_bytes == 0 and res_d0_pow2 and res_layout_rank == res_rank "
        "and (tv <= 307 or (tv == 308 and src_whole and src_bytes % res_bytes == 0) or "
        "(tv >= 309 and src_contig))",
        "src._reinterpret(D, [M, *S], L).index(off // B)._reinterpret(D, S, L)",
    ),
    Recipe(
        "granule",
        "tv <= 307 and gran >= 1 and off % gran == 0",
        "src._reinterpret(int8, [K, g], L1).index(off // g)._reinterpret(D, S, L)",
    ),
)


def recipe_sorts() -> dict[str, str]:
    out = sorts()
    out.update({f.name: f.sort for f in RECIPE_FACTS})
    return out


def _env() -> dict[str, dsl.Expr]:
    env: dict[str, dsl.Expr] = {k: dsl.const(v) for k, v in CONSTANTS.items()}
    for name, text, _ in DEFINITIONS:
        env[name] = dsl.substitute(dsl.parse(text), env)
    for name, text in LOCAL_DEFINITIONS:
        env[name] = dsl.substitute(dsl.parse(text), env)
    return env


def expand(text: str) -> dsl.Expr:
    """Formula text with every definition inlined, type-checked against all fact sorts."""
    e = dsl.substitute(dsl.parse(text), _env())
    dsl.sort_of(e, recipe_sorts())
    return e
