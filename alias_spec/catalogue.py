"""The rule catalogue: every alias rule as data.

A rule holds when its ``guard`` is false (its inputs are ill-typed, and the rule judging
those inputs fires instead) or its ``formula`` is true. Order here is catalogue order, the
order of violations in a verdict. Profiles name the rules they enforce.
"""

from __future__ import annotations

from functools import cache

from pydantic import BaseModel, ConfigDict

from . import dsl
from .facts import expand, parse_checked


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
    ),
    Rule(
        id="alias.scope.smem",
        title="Shared memory only",
        prose="Alias mode supports shared memory only: the requested scope and the source's "
        "memory space must both be shared memory.",
        guard="True",
        formula="scope == SMEM and src_space == SMEM",
        message="alloc alias mode currently supports only smem buffers",
        values=("scope", "src_space"),
        provenance=PY + "; " + CPP + " ('expects shared memory descriptors')",
        profiles=BOTH,
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
    ),
    Rule(
        id="alias.size.static",
        title="Static byte sizes",
        prose="Both byte sizes must be known at compile time: every dimension static and "
        "non-negative, and each byte size representable in int64.",
        guard="True",
        formula="src_static and res_static and src_bytes <= INT64_MAX and res_bytes <= INT64_MAX",
        message="expects static source and result memdesc byte sizes",
        values=("src_static", "res_static", "src_bytes", "res_bytes"),
        provenance=CPP,
        profiles=BOTH,
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
    ),
)

PROFILES: dict[str, str] = {
    FT: "FlagTree's shipped checks (Python frontend and C++ verifier together)",
    SAFE: "FlagTree's checks plus what FEP-0065 promises: physical containment and "
    "absolute alignment (the default)",
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
