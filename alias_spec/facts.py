"""The fact vocabulary: the scalar values a rule may mention.

A request (JSON or MLIR types) is reduced to these primitive facts by ``request.py``; rules
never see shapes or layouts, only these numbers. The C++ and Python backends compute the same
primitive facts from their own inputs and share everything below.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from . import dsl

INT32_MAX = 2**31 - 1
INT64_MAX = 2**63 - 1

# Enumerations, spelled as named integer constants inside formulas.
CONSTANTS: dict[str, int] = {
    "SMEM": 0,
    "TMEM": 1,
    "GLOBAL": 2,
    "INT32_MAX": INT32_MAX,
    "INT64_MAX": INT64_MAX,
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
    Fact("src_static", dsl.BOOL, "every dimension of the source view is static"),
    Fact("res_static", dsl.BOOL, "every dimension of the result is static"),
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
