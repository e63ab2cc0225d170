"""Reading memdesc views out of MLIR text (TTGIR dumps, FlagTree modules), without MLIR.

A dump is read line by line: attribute and location aliases, function boundaries (SSA names
restart there), integer constants, and every op that allocates or views shared memory, in the
pretty or the generic form. Each view is followed back to its ``ttg.local_alloc`` so that its
source's place in the allocation (base offset, alloc shape, subview offsets, alignment) is
known, and the view becomes one spec request (``request.py``), judged by any profile.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from math import prod
from typing import Any

from .dtypes import DTYPE_BITS
from .layouts import Layout, parse_layout
from .triton_facts import SharedLayout, shared_layout

VIEW_OPS = {
    "ttg.memdesc_reinterpret",
    "ttg.memdesc_subslice",
    "ttg.memdesc_index",
    "ttg.memdesc_trans",
    "ttg.memdesc_reshape",
    "tle.memdesc_alias",
}
ALLOC_OPS = {"ttg.local_alloc"}
JUDGED = {
    "ttg.memdesc_reinterpret",
    "ttg.memdesc_subslice",
    "ttg.memdesc_index",
    "tle.memdesc_alias",
}
_FUNC = re.compile(r"^\s*(?:tt\.func|func\.func|llvm\.func)\b")
_ALIAS_DEF = re.compile(r"^\s*(#[\w.$-]+)\s*=\s*(.+?)\s*$")
_DEF = re.compile(
    r'^(?P<indent>\s*)(?P<res>%[\w.$-]+)(?::\d+)?\s*=\s*(?P<q>"?)(?P<op>[\w.]+)(?P=q)(?P<rest>.*)$',
    re.S,
)
_CONST = re.compile(r"arith\.constant\s+(-?\d+)\s*:\s*(?:i\d+|index)")
_LOC_REF = re.compile(r"loc\((#[\w.$-]+)\)\s*$")


class MlirError(ValueError):
    """Text that is not an MLIR module this reader understands."""


@dataclass
class Op:
    name: str
    result: str
    line: int  # 1-based line of the op's first line
    column: int  # 1-based column of the op name
    text: str  # the whole statement, joined
    operands: list[str]
    src_type: str | None
    res_type: str | None
    attrs: dict[str, Any]
    loc: str | None  # "file:line:col" from the op's location, if any


@dataclass
class Module:
    aliases: dict[str, str]  # attribute aliases (#shared = ...)
    functions: list[list[Op]]
    constants: list[dict[str, int]]  # per function: SSA name -> integer value
    locations: dict[str, str] = field(default_factory=dict)


def _balance(text: str) -> int:
    depth = 0
    in_str = False
    for ch in text:
        if ch == '"':
            in_str = not in_str
        elif not in_str:
            if ch in "<([{":
                depth += 1
            elif ch in ">)]}":
                depth -= 1
    return depth


def _strip_arrow(text: str) -> str:
    # "->" would count as a closing ">".
    return text.replace("->", "  ")


def memdesc_types(text: str) -> list[str]:
    """Every ``!ttg.memdesc<...>`` in the text, in order (brackets matched)."""
    out = []
    for m in re.finditer(r"!ttg\.memdesc<", text):
        depth, i = 0, m.start() + len("!ttg.memdesc")
        body = _strip_arrow(text)
        while i < len(text):
            if body[i] == "<":
                depth += 1
            elif body[i] == ">":
                depth -= 1
                if depth == 0:
                    out.append(text[m.start() : i + 1])
                    break
            i += 1
    return out


def _loc_text(value: str, locs: dict[str, str], depth: int = 0) -> str | None:
    """Resolve a location to "file:line:col" (following aliases and names)."""
    if depth > 20:
        return None
    value = value.strip()
    if value in locs:
        return _loc_text(locs[value], locs, depth + 1)
    m = re.search(r'"([^"]+)":(\d+):(\d+)', value)
    if m:
        return f"{m.group(1)}:{m.group(2)}:{m.group(3)}"
    inner = re.findall(r"#[\w.$-]+", value)
    for ref in inner:
        got = _loc_text(ref, locs, depth + 1)
        if got:
            return got
    return None


def _attrs(op: str, rest: str) -> tuple[dict[str, Any], list[str]]:
    """Offsets, offset_bytes and operands of one statement (pretty or generic form)."""
    head = rest.split(" : ", 1)[0]
    attrs: dict[str, Any] = {}
    m = re.search(r"offset_bytes\s*=\s*(-?\d+)", rest)
    if m:
        attrs["offset_bytes"] = int(m.group(1))
    m = re.search(r"offsets\s*=\s*array<i32:\s*([-\d,\s]*)>", rest)
    if m:
        attrs["offsets"] = [int(x) for x in m.group(1).replace(" ", "").split(",") if x]
    m = re.search(r"order\s*=\s*array<i32:\s*([-\d,\s]*)>", rest)
    if m:
        attrs["order"] = [int(x) for x in m.group(1).replace(" ", "").split(",") if x]
    operands = re.findall(r"%[\w.$-]+(?:#\d+)?", head)
    if op == "ttg.memdesc_subslice" and "offsets" not in attrs:
        m = re.search(r"%[\w.$-]+\s*\[([-\d,\s]*)\]", head)
        if m:
            attrs["offsets"] = [int(x) for x in m.group(1).replace(" ", "").split(",") if x]
    return attrs, operands


def read_module(text: str) -> Module:
    if "\x00" in text:
        raise MlirError("binary input, not MLIR text")
    lines = text.splitlines()
    aliases: dict[str, str] = {}
    locs: dict[str, str] = {}
    functions: list[list[Op]] = [[]]
    constants: list[dict[str, int]] = [{}]
    saw_module = False
    i = 0
    while i < len(lines):
        line = lines[i]
        start = i
        if re.match(r"^\s*(module|builtin\.module)\b", line) or _FUNC.match(line):
            saw_module = True
        m = _ALIAS_DEF.match(line)
        if m and not line.lstrip().startswith("%"):
            name, value = m.group(1), m.group(2)
            if value.startswith("loc("):
                locs[name] = value
            else:
                aliases[name] = value
            i += 1
            continue
        if _FUNC.match(line):
            functions.append([])
            constants.append({})
        dm = _DEF.match(line)
        if not dm:
            i += 1
            continue
        op = dm.group("op")
        stmt = line
        # A view statement continues while brackets are open or it ends mid-signature (other
        # ops may open a region here: they are not joined).
        while (
            op in VIEW_OPS | ALLOC_OPS
            and i + 1 < len(lines)
            and (_balance(_strip_arrow(stmt)) > 0 or re.search(r"(:|->|,)\s*$", stmt))
        ):
            i += 1
            stmt += " " + lines[i].strip()
        i += 1
        if op == "arith.constant":
            cm = _CONST.search(stmt)
            if cm:
                constants[-1][dm.group("res")] = int(cm.group(1))
            continue
        if op not in VIEW_OPS and op not in ALLOC_OPS:
            continue
        rest = dm.group("rest")
        rest_all = stmt[stmt.index(op) + len(op) :]
        attrs, operands = _attrs(op, rest_all if rest else rest_all)
        types = memdesc_types(stmt)
        res_type = types[-1] if types else None
        src_type = types[0] if len(types) >= 2 else None
        lm = _LOC_REF.search(stmt)
        inline = re.search(r'loc\((".*)\)\s*$', stmt)
        loc = (
            _loc_text(lm.group(1), locs)
            if lm
            else (_loc_text(inline.group(1), locs) if inline else None)
        )
        col = line.index(op) + 1
        functions[-1].append(
            Op(
                op, dm.group("res"), start + 1, col, stmt, operands, src_type, res_type, attrs, loc
            )  # fmt: skip
        )
    if not saw_module and not any(functions):
        raise MlirError("no module, function or memdesc op found")
    # Location aliases are usually defined after their uses: resolve once all are known.
    for ops in functions:
        for op in ops:
            lm = _LOC_REF.search(op.text)
            if op.loc is None and lm:
                op.loc = _loc_text(lm.group(1), locs)
    kept = [(f, c) for f, c in zip(functions, constants, strict=True) if f]
    return Module(aliases, [f for f, _ in kept], [c for _, c in kept], locs)


# --- places ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Place:
    """Where a memdesc value's alloc-shape block starts in its allocation, and where its view
    sits in that block."""

    root: str  # the allocating op's result name ("?" when the root is not known)
    root_line: int
    base: int  # bytes from the allocation start to the block this value's alloc shape spans
    offsets: tuple[int, ...] | None  # element offsets of the view in its alloc shape
    align: int  # alignment of the allocation start
    exact: bool = True  # False once a runtime index made the base a representative
    size: int = 0  # bytes of the allocation (0: unknown)


def _space(text: str, aliases: dict[str, str]) -> str:
    """A memdesc type with its memory-space alias spelled out."""
    for name, value in aliases.items():
        if value.strip() in ("#ttg.shared_memory",) and name not in ("#smem",):
            text = re.sub(re.escape(name) + r"(?=[,>])", "#ttg.shared_memory", text)
    return text


def memdesc_side(text: str, aliases: dict[str, str]) -> dict[str, Any]:
    from .memdesc import parse_memdesc

    return parse_memdesc(_space(text, aliases), "memdesc")


def element_bytes(side: dict[str, Any]) -> int:
    bits = DTYPE_BITS.get(str(side["dtype"]), 0)
    return (bits + 7) // 8


def layout_of(side: dict[str, Any], aliases: dict[str, str]) -> tuple[Layout | None, SharedLayout]:
    try:
        lay = parse_layout(side.get("layout"), "layout", aliases)
    except ValueError:
        lay = None
    return lay, shared_layout(side.get("layout"), aliases)


def side_bytes(side: dict[str, Any], alloc: bool = False) -> int:
    dims = side.get("alloc_shape") if alloc and side.get("alloc_shape") else side["shape"]
    if any(d is None or d < 0 for d in dims):
        return 0
    return prod(int(d) for d in dims) * element_bytes(side)


def alloc_alignment(side: dict[str, Any], aliases: dict[str, str]) -> int:
    lay, _ = layout_of(side, aliases)
    return max(16, (lay or Layout("other")).swizzle_repeat)


def view_start(place: Place, side: dict[str, Any]) -> int:
    """Bytes from the allocation start to this value's first element."""
    alloc = [int(d) for d in (side.get("alloc_shape") or side["shape"]) if d is not None]
    if place.offsets is None or len(place.offsets) != len(alloc):
        return place.base
    stride = [prod(alloc[i + 1 :]) for i in range(len(alloc))]
    return place.base + sum(o * s for o, s in zip(place.offsets, stride, strict=True)) * (
        element_bytes(side)
    )
