"""The fact vocabulary: the scalar values a rule may mention.

A request (JSON or MLIR types) is reduced to these primitive facts by ``request.py``; rules
never see shapes or layouts, only these numbers. The C++ and Python backends compute the same
primitive facts from their own inputs and share everything below.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from alias_spec.model import dsl

# A fact tuple: every primitive fact's value by name (ints and booleans).
Facts = dict[str, int | bool]

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1

# Enumerations, spelled as named integer constants inside formulas.
CONSTANTS: dict[str, int] = {
    "SMEM": 0,
    "TMEM": 1,
    "GLOBAL": 2,
    "INT32_MAX": INT32_MAX,
    "INT64_MAX": INT64_MAX,
    # Which op a request describes (the `op` field); stock Triton views are ttg.* ops.
    "OP_ALIAS": 0,
    "OP_REINTERPRET": 1,
    "OP_SUBSLICE": 2,
    "OP_INDEX": 3,
}
OPS = {
    "tle.memdesc_alias": 0,
    "ttg.memdesc_reinterpret": 1,
    "ttg.memdesc_subslice": 2,
    "ttg.memdesc_index": 3,
}
SPACES = {"smem": 0, "tmem": 1, "global": 2}
SCOPES = {"smem": 0, "tmem": 1}


@dataclass(frozen=True)
class Fact:
    name: str
    sort: str
    doc: str


FACTS: tuple[Fact, ...] = (
    Fact("src_buffered", dsl.BOOL, "the alias source is a buffered tensor (a memdesc)"),
    Fact("init_given", dsl.BOOL, "an init_value was passed together with alias"),
    Fact("scope", dsl.INT, "requested scope: SMEM or TMEM"),
    Fact("src_space", dsl.INT, "memory space of the source: SMEM, TMEM or GLOBAL"),
    Fact("res_space", dsl.INT, "memory space of the result"),
    Fact("src_mutable", dsl.BOOL, "the source descriptor is mutable"),
    Fact("res_mutable", dsl.BOOL, "the result descriptor is mutable"),
    Fact("off_int", dsl.BOOL, "alias_offset_bytes is a compile-time integer (not a bool)"),
    Fact("off", dsl.INT, "alias_offset_bytes (0 when it is not an integer)"),
    Fact("src_bits", dsl.INT, "bit width of the source element type"),
    Fact("res_bits", dsl.INT, "bit width of the result element type"),
    Fact(
        "src_static",
        dsl.BOOL,
        "every dimension of the source view is static, and its element count (multiplied "
        "dim by dim, as FlagTree does) fits in int64",
    ),
    Fact(
        "res_static",
        dsl.BOOL,
        "every dimension of the result is static, and its element count fits in int64",
    ),
    Fact("src_elems", dsl.INT, "elements in the source view's logical shape (0 if dynamic)"),
    Fact("res_elems", dsl.INT, "elements in the result's logical shape (0 if dynamic)"),
    Fact("src_start", dsl.INT, "elements from the source's base to its view start (subslice)"),
    Fact("src_base", dsl.INT, "bytes from the allocation start to the source's base"),
    Fact("run", dsl.INT, "elements in one contiguous run of the source view"),
    Fact("p0", dsl.INT, "outer stride (elements) of the source view's runs, level 0"),
    Fact("c0", dsl.INT, "number of runs along level 0"),
    Fact("p1", dsl.INT, "stride (elements) of level 1"),
    Fact("c1", dsl.INT, "count along level 1"),
    Fact("p2", dsl.INT, "stride (elements) of level 2, the innermost"),
    Fact("c2", dsl.INT, "count along level 2"),
    Fact("align", dsl.INT, "guaranteed alignment (bytes) of the allocation's start"),
    Fact("swz", dsl.INT, "swizzle repeat (bytes) of the result's NVMMA layout, 0 if none"),
    # Stock Triton views (ttg.memdesc_*): the op, each memdesc type, and the op's operands.
    Fact("op", dsl.INT, "the view op: OP_ALIAS, OP_REINTERPRET, OP_SUBSLICE or OP_INDEX"),
    *(
        fact
        for side, who in (("src", "source"), ("res", "result"))
        for fact in (
            Fact(f"{side}_rank", dsl.INT, f"rank of the {who} shape"),
            Fact(f"{side}_alloc_rank", dsl.INT, f"rank of the {who} type's alloc shape"),
            Fact(f"{side}_lay_rank", dsl.INT, f"rank of the {who} layout (shape rank if unknown)"),
            Fact(f"{side}_d0_pow2", dsl.BOOL, f"the {who}'s first dim is a power of 2"),
            Fact(f"{side}_tail_pow2", dsl.BOOL, f"every {who} dim after the first is a power of 2"),
            Fact(f"{side}_nonzero", dsl.BOOL, f"every {who} dim is non-zero"),
            Fact(
                f"{side}_alloc_fits",
                dsl.BOOL,
                f"each {who} dim is at most the matching trailing alloc-shape dim",
            ),
            Fact(
                f"{side}_alloc_tail_pow2",
                dsl.BOOL,
                f"every {who} alloc-shape dim its layout covers (the trailing layout-rank dims) "
                "is a power of 2",
            ),
            Fact(f"{side}_subview", dsl.BOOL, f"the {who} type is a subview (alloc != shape)"),
            Fact(
                f"{side}_nvmma_fits",
                dsl.BOOL,
                f"the {who}'s NVMMA layout (if any) has a contiguous dim of at least one "
                "swizzle row, counted in the layout's elementBitWidth",
            ),
            Fact(
                f"{side}_nvmma_rows",
                dsl.BOOL,
                f"the {who}'s swizzled NVMMA layout (if any) covers at least 8 rows",
            ),
        )
    ),
    Fact("same_elem", dsl.BOOL, "source and result element types are the same type"),
    Fact("same_enc", dsl.BOOL, "source and result layouts are the same attribute"),
    Fact("same_alloc", dsl.BOOL, "source and result alloc shapes are equal"),
    Fact("src_prefix_sub", dsl.BOOL, "the source is a subview that trims only its leading dim"),
    Fact("idx_static", dsl.BOOL, "memdesc_index: the index is a compile-time constant"),
    Fact("idx", dsl.INT, "memdesc_index: the index (0 when it is a runtime value)"),
    Fact("idx_shape_ok", dsl.BOOL, "memdesc_index: the result shape is the source shape[1:]"),
    Fact("sub_rank_ok", dsl.BOOL, "memdesc_subslice: one offset per source dim"),
    Fact("sub_split", dsl.BOOL, "memdesc_subslice: some dim differs between source and result"),
    Fact("sub_zero_ok", dsl.BOOL, "memdesc_subslice: every dim that is not split has offset 0"),
    Fact(
        "sub_tile_ok",
        dsl.BOOL,
        "memdesc_subslice: every split dim's offset has no bit below the result size "
        "(offset & (size - 1) == 0)",
    ),
    Fact("sub_off_lt", dsl.BOOL, "memdesc_subslice: every offset is below the source dim"),
    Fact(
        "sub_in_bounds",
        dsl.BOOL,
        "memdesc_subslice: offset + result dim <= source dim in every dim",
    ),
    Fact(
        "sub_swz_ok",
        dsl.BOOL,
        "memdesc_subslice: no split dim cuts the layout's swizzle pattern (each power-of-2 "
        "step of a split dim maps to a power-of-2 offset)",
    ),
)

# Abbreviations, inlined wherever they are used (so partial ones are guarded by their user).
DEFINITIONS: tuple[tuple[str, str, str], ...] = (
    ("src_eb", "(src_bits + 7) // 8", "bytes per source element, ceil(bits / 8)"),
    ("res_eb", "(res_bits + 7) // 8", "bytes per result element, ceil(bits / 8)"),
    ("src_bytes", "src_elems * src_eb", "logical byte size of the source view"),
    ("res_bytes", "res_elems * res_eb", "logical byte size of the result"),
    ("run_b", "run * src_eb", "bytes in one contiguous run of the source view"),
    ("p0_b", "p0 * src_eb", "level-0 stride in bytes"),
    ("p1_b", "p1 * src_eb", "level-1 stride in bytes"),
    ("p2_b", "p2 * src_eb", "level-2 stride in bytes"),
    ("r1", "off % p0_b % p1_b", "offset within its level-1 block"),
    ("r2", "r1 % p2_b", "offset within its run"),
    ("abs_off", "src_base + src_start * src_eb + off", "result start, bytes from allocation"),
)

# What every fact tuple produced from a well-formed request satisfies. The solver assumes
# these; tests check the extractor against them.
INVARIANTS: tuple[str, ...] = (
    "scope == SMEM or scope == TMEM",
    "src_space >= 0 and src_space <= 2 and res_space >= 0 and res_space <= 2",
    "src_bits >= 0 and res_bits >= 0 and src_bits <= 2147483648 and res_bits <= 2147483648",
    "off_int or off == 0",
    "src_elems >= 0 and res_elems >= 0",
    "src_static or src_elems == 0",
    "res_static or res_elems == 0",
    "src_start >= 0 and src_base >= 0 and align >= 1",
    "swz == 0 or swz >= 1",
    "c0 >= 1 and c1 >= 1 and c2 >= 1 and run >= 0",
    "src_elems == c0 * c1 * c2 * run",
    # Runs nest: each level's stride spans everything inside it, so runs never overlap.
    "p2 >= run and p1 >= (c2 - 1) * p2 + run and p0 >= (c1 - 1) * p1 + (c2 - 1) * p2 + run",
    "run >= 1 or (p0 == 0 and p1 == 0 and p2 == 0)",
    # Normal form: real levels are innermost (padding is outermost, count 1), and a level
    # with several runs leaves a gap after each, otherwise it would have merged into one run.
    "(c1 == 1 or c2 > 1) and (c0 == 1 or c1 > 1)",
    "c2 == 1 or p2 > run",
    "c1 == 1 or p1 > (c2 - 1) * p2 + run",
    "c0 == 1 or p0 > (c1 - 1) * p1 + (c2 - 1) * p2 + run",
    # Stock Triton views.
    "op >= OP_ALIAS and op <= OP_INDEX",
    "src_rank >= 0 and res_rank >= 0 and src_alloc_rank >= 0 and res_alloc_rank >= 0",
    "src_lay_rank >= 0 and res_lay_rank >= 0",
    "idx_static or idx == 0",
    # A stock view has no offset argument, scope or init_value: those facts are neutral.
    "op == OP_ALIAS or (src_buffered and not init_given and scope == SMEM and off_int)",
    "op != OP_REINTERPRET or off == 0",
    # memdesc_index starts its result idx results into the source (Triton's lowering).
    "op != OP_INDEX or not idx_static or off == idx * res_bytes",
    # For a stock view (the alias profiles never read type facts, so hand-built alias fact
    # sets need not keep them consistent): a type that is not a subview is its own
    # allocation block (same rank, fits, starts at 0, one dense run) ...
    "op == OP_ALIAS or src_subview or (src_alloc_rank == src_rank and src_alloc_fits and "
    "src_start == 0 and run == src_elems and c0 == 1 and c1 == 1 and c2 == 1)",
    "op == OP_ALIAS or res_subview or (res_alloc_rank == res_rank and res_alloc_fits)",
    "not src_prefix_sub or src_subview",
    # ... and a static shape has elements exactly when no dim is zero.
    "op == OP_ALIAS or not src_static or src_nonzero == (src_elems >= 1)",
    "op == OP_ALIAS or op == OP_SUBSLICE or not res_static or res_nonzero == (res_elems >= 1)",
    # Operand facts of other ops keep their neutral values.
    "op == OP_INDEX or (idx_static and idx == 0 and idx_shape_ok)",
    "op == OP_SUBSLICE or (sub_rank_ok and not sub_split and sub_zero_ok and sub_tile_ok and "
    "sub_off_lt and sub_in_bounds and sub_swz_ok)",
    "op != OP_ALIAS or (same_elem and same_enc and same_alloc and not src_prefix_sub)",
    # A subslice inside its source starts inside it.
    "not (sub_in_bounds and res_nonzero) or sub_off_lt",
)


def sorts() -> dict[str, str]:
    out = {f.name: f.sort for f in FACTS}
    out.update({name: dsl.INT for name in CONSTANTS})
    return out


@cache
def _definition_env() -> dict[str, dsl.Expr]:
    env: dict[str, dsl.Expr] = {}
    for name, text, _ in DEFINITIONS:
        env[name] = dsl.substitute(dsl.parse(text), env)
    return env


@cache
def elem_bytes(bits: int) -> int:
    """Bytes per element of a type ``bits`` wide: the definition ``src_eb`` evaluated, so every
    caller computes what the rules compute."""
    return int(dsl.evaluate(_definition_env()["src_eb"], {"src_bits": bits}))


def expand(text: str) -> dsl.Expr:
    """Parse formula text, inline definitions and constants, and type-check it."""
    env = dict(_definition_env())
    env.update({k: dsl.const(v) for k, v in CONSTANTS.items()})
    e = dsl.substitute(dsl.parse(text), env)
    dsl.sort_of(e, sorts())
    return e


def parse_checked(text: str) -> dsl.Expr:
    """Parse formula text keeping definition names (for display); still type-checked."""
    e = dsl.parse(text)
    names = sorts()
    names.update({name: dsl.INT for name, _, _ in DEFINITIONS})
    dsl.sort_of(e, names)
    return e
