"""Reading memdesc views out of MLIR text (TTGIR dumps, FlagTree modules), without MLIR.

The text is read by the project's one TTGIR reader (``alias_spec.ir.ttgir``, leniently: lint
reports on what it can read of a dump): its ops, the values each op uses and defines (resolved
by region scope), its regions, locations and aliases. This module keeps what lint needs of
that: every op that allocates or views shared memory (pretty or generic form) with its
operands, memdesc types and view attributes, integer constants, and how memdesc values move
through regions: ``scf.for`` iter_args, ``scf.if`` / ``scf.while`` results and region
arguments, ``cf`` block arguments and ``ttg.warp_specialize`` partition captures each become a
``Binding`` (a value and everything that can flow into it). ``lint.py`` follows every view back
to its allocation through those bindings, so that its source's place in the allocation (base
offset, alloc shape, subview offsets, alignment) is known, and turns each view into one spec
request (``request.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from math import prod
from typing import Any

from alias_spec.ir import ttgir
from alias_spec.ir.flows import Binding, bindings
from alias_spec.ir.memdesc_type import memdesc_side as memdesc_side
from alias_spec.ir.memdesc_type import memdesc_types
from alias_spec.ir.ttgir import strip_comment as strip_comment
from alias_spec.model.dtypes import DTYPE_BITS
from alias_spec.model.errors import RequestError
from alias_spec.model.facts import elem_bytes
from alias_spec.model.layouts import Layout, parse_layout, repeat_of

VIEW_OPS = {
    "ttg.memdesc_reinterpret",
    "ttg.memdesc_subslice",
    "ttg.memdesc_index",
    "ttg.memdesc_trans",
    "ttg.memdesc_reshape",
    "tle.memdesc_alias",
    "ttng.tmem_subslice",
}
ALLOC_OPS = {"ttg.local_alloc", "ttng.tmem_alloc"}
JUDGED = {
    "ttg.memdesc_reinterpret",
    "ttg.memdesc_subslice",
    "ttg.memdesc_index",
    "tle.memdesc_alias",
}
# An integer constant, pretty (``arith.constant 3 : i32``) or generic
# (``"arith.constant"() <{value = 3 : i32}> : () -> i32``): the literal token and its type.
_CONST = re.compile(
    r"arith\.constant\b(?:[^=]*?\bvalue\s*=)?\s*(-?\s*[\w.+-]+)(?:\s*:\s*([\w.]+))?"
)

# Integer types whose width a literal is checked against (MLIR's default attribute type is i64).
_INT_TYPE = re.compile(r"(?:[su]?i)(\d+)|index")
_DECIMAL = re.compile(r"[0-9]+")
_HEX = re.compile(r"0x[0-9a-fA-F]+")


class MlirError(ValueError):
    """Text that is not an MLIR module this reader understands."""


class LiteralError(ValueError):
    """An integer literal this reader cannot read as MLIR reads it."""


def parse_int(token: str, type_name: str | None = None) -> int:
    """An MLIR integer literal (``decimal-literal`` or ``0x`` ``hexadecimal-literal``, after an
    optional ``-``) as the value its type holds: checked against the type's width (i64 when no
    type is given, as for an untyped integer attribute) and read as a two's complement signed
    value, the way a signless index or offset is used. Raises LiteralError otherwise."""
    text = token.strip()
    negative = text.startswith("-")
    body = text[1:].lstrip() if negative else text
    m = _INT_TYPE.fullmatch(type_name.strip()) if type_name is not None else None
    if type_name is not None and m is None:
        raise LiteralError(f"integer literal {_short(token)} has non-integer type {type_name!r}")
    width = 64 if m is None or m.group(1) is None else int(m.group(1))
    if width < 1 or width > 1024:
        raise LiteralError(f"integer type width {width} of {_short(token)} is not supported")
    if _HEX.fullmatch(body):
        digits = body[2:].lstrip("0")
        if len(digits) * 4 > width + 4:
            raise LiteralError(f"integer literal {_short(token)} does not fit in i{width}")
        value = int(digits or "0", 16)
    elif _DECIMAL.fullmatch(body):
        digits = body.lstrip("0")
        if len(digits) > width // 3 + 2:  # 2**width has at most width / 3.32 + 1 digits
            raise LiteralError(f"integer literal {_short(token)} does not fit in i{width}")
        value = int(digits or "0")
    else:
        raise LiteralError(f"{_short(token)} is not an MLIR integer literal")
    value = -value if negative else value
    # MLIR accepts a signless value that fits the width either as unsigned or as signed.
    if not -(1 << (width - 1)) <= value < (1 << width):
        raise LiteralError(f"integer literal {_short(token)} does not fit in i{width}")
    return value - (1 << width) if value >= 1 << (width - 1) else value


def _short(token: str) -> str:
    token = token.strip()
    return repr(token if len(token) <= 24 else token[:20] + "...")


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
    loc_raw: str | None = None  # the location as written (resolved once all aliases are read)


@dataclass
class Function:
    name: str
    ops: list[Op] = field(default_factory=list)
    constants: dict[str, int] = field(default_factory=dict)  # SSA name -> integer value
    # SSA name -> why its constant value could not be read (a literal MLIR reads, this not)
    unread: dict[str, str] = field(default_factory=dict)
    bindings: list[Binding] = field(default_factory=list)
    defs: dict[str, str] = field(default_factory=dict)  # SSA name -> what defines it


@dataclass
class Module:
    aliases: dict[str, str]  # attribute aliases (#shared = ...)
    functions: list[Function]
    locations: dict[str, str] = field(default_factory=dict)


def shown(name: str) -> str:
    """An SSA name as the dump spells it (names inside an isolated region carry a scope)."""
    return name.split("@", 1)[0]


# The pretty form's subslice offsets, ``%src[0, 32]``.
_BRACKET_OFFSETS = re.compile(r"%[\w.$-]+(?:#\d+)?\s*\[([^\]%]*)\]")
# The attributes lint reads: an integer, and two dense arrays (``array<i32: 0, 32>``).
_READ_KEYS = ("offset_bytes", "offsets", "order")


def _int_list(text: str, type_name: str | None, what: str) -> list[int]:
    parts = [p for p in (x.strip() for x in text.split(",")) if p]
    try:
        return [parse_int(p, type_name) for p in parts]
    except LiteralError as exc:
        raise LiteralError(f"{what}: {exc}") from None


def op_attributes(rest: str) -> dict[str, list[list[ttgir.Tok]]]:
    """The op's own attribute entries (``rest``: its text after the op's name): name -> the
    value tokens of each entry so named. An entry is ``name = value`` directly inside the op's
    attribute dictionary (``{...}`` at the op's level: ``attributes {...}``, a custom form's
    ``{...}``) or its properties (``<{...}>``), its name compared whole, as MLIR's dictionary
    does: ``tle.offset_bytes`` is not ``offset_bytes``, and a dictionary nested in a value or a
    type (a layout's ``{order = ...}``) is not the op's."""
    try:
        toks = ttgir.lex(rest)
    except ttgir.TtgirError:
        return {}
    out: dict[str, list[list[ttgir.Tok]]] = {}
    stack: list[str] = []  # open brackets; "{op" is the op's own dictionary
    key: str | None = None
    value: list[ttgir.Tok] = []
    for i, t in enumerate(toks):
        top = stack[-1] if stack else None
        if t.kind == "punct" and t.text in "([{<":
            own = t.text == "{" and (not stack or (stack == ["<"] and toks[i - 1].text == "<"))
            stack.append("{op" if own else t.text)
            if key is not None:
                value.append(t)
            continue
        if t.kind == "punct" and t.text in ")]}>" and stack:
            closed = stack.pop()
            if closed == "{op":
                if key is not None:
                    out.setdefault(key, []).append(value)
                key, value = None, []
            elif key is not None:
                value.append(t)
            continue
        if top != "{op":
            if key is not None:
                value.append(t)
            continue
        # Directly inside the op's dictionary: ``name = value`` entries separated by commas.
        if t.text == ",":
            if key is not None:
                out.setdefault(key, []).append(value)
            key, value = None, []
        elif (
            key is None
            and t.kind in ("id", "str")
            and i + 1 < len(toks)
            and (toks[i + 1].text == "=")
        ):
            key = t.text if t.kind == "id" else str(t.value)
        elif key is not None and not (t.text == "=" and not value):
            value.append(t)
    return out


def _split_type(value: list[ttgir.Tok]) -> tuple[str, str | None]:
    """An integer attribute's value as (literal, type): ``-4 : i32`` -> ("-4", "i32")."""
    cut = next((i for i, t in enumerate(value) if t.text == ":"), len(value))
    literal = " ".join(t.text for t in value[:cut]).replace("- ", "-")
    kind = " ".join(t.text for t in value[cut + 1 :]) if cut < len(value) else None
    return literal, kind


def _dense_array(value: list[ttgir.Tok], key: str) -> list[int]:
    """``array<i32: 0, 32>`` (or ``array<i32>``, empty) as its integers."""
    texts = [t.text for t in value]
    if len(texts) < 4 or texts[:2] != ["array", "<"] or texts[-1] != ">":
        raise LiteralError(f"{key} is not a dense integer array (array<iN: ...>)")
    inner = value[2:-1]
    kind = inner[0].text
    items = " ".join(t.text for t in inner[2:]).replace("- ", "-") if len(inner) > 1 else ""
    if len(inner) > 1 and inner[1].text != ":":
        raise LiteralError(f"{key} is not a dense integer array (array<iN: ...>)")
    return _int_list(items, kind, key)


def _attrs(op: str, rest: str) -> dict[str, Any]:
    """Offsets and offset_bytes of one statement (pretty or generic form; ``rest`` is its text
    after the op's name). A value that cannot be read, or an attribute given twice (MLIR
    rejects a dictionary with a duplicate name), is kept as ``attrs["unread"]``, the reason."""
    head = rest.split(" : ", 1)[0]
    entries = op_attributes(rest)
    attrs: dict[str, Any] = {}
    try:
        for key in _READ_KEYS:
            got = entries.get(key, [])
            if len(got) > 1:
                raise LiteralError(f"attribute {key} is given {len(got)} times")
            if not got:
                continue
            if key == "offset_bytes":
                literal, kind = _split_type(got[0])
                attrs[key] = parse_int(literal, kind)
            else:
                attrs[key] = _dense_array(got[0], key)
        if op == "ttg.memdesc_subslice" and "offsets" not in attrs:
            m = _BRACKET_OFFSETS.search(head)
            if m:
                attrs["offsets"] = _int_list(m.group(1), "i32", "offsets")
    except LiteralError as exc:
        attrs["unread"] = str(exc)
    if op == "ttg.memdesc_subslice" and "offsets" not in attrs and "unread" not in attrs:
        attrs["unread"] = "no offsets found"
    if op == "tle.memdesc_alias" and "offset_bytes" not in attrs and "unread" not in attrs:
        # The op's offset is its own; never a guess (an attribute of another name is not it).
        others = sorted(k for k in entries if k.endswith("offset_bytes"))
        also = f" ({', '.join(others)} is another attribute)" if others else ""
        attrs["unread"] = f"no offset_bytes attribute{also}"
    return attrs


_JOINED = VIEW_OPS | ALLOC_OPS


def read_module(text: str) -> Module:
    """The views, constants and bindings of every function of a dump; MlirError (one line)
    when the text cannot be read as MLIR."""
    try:
        ir = ttgir.read_module(text, strict=False)
    except ttgir.TtgirError as exc:
        raise MlirError(str(exc)) from None
    aliases = {k: v for k, v in ir.aliases.items() if not v.startswith("loc(")}
    locations = {k: v for k, v in ir.aliases.items() if v.startswith("loc(")}
    functions = [f for f in (_function(fn, ir) for fn in ir.functions) if f.ops]
    if not ir.saw_module and not functions:
        raise MlirError("no module, function or memdesc op found")
    return Module(aliases, functions, locations)


def _function(ir_fn: ttgir.Function, module: ttgir.Module) -> Function:
    fn = Function(ir_fn.name)
    for a in ir_fn.args:
        fn.defs[a] = f"an argument of function @{ir_fn.name}"
    for op in ir_fn.ops:
        if op.name.startswith("^"):
            for a in op.decls:
                fn.defs.setdefault(a, f"an argument of block {op.name} (line {op.line})")
            continue
        for res in op.results:
            fn.defs[res] = f"the result of {op.name} at line {op.line}"
        if op.name == "arith.constant" and op.results:
            _constant(fn, op.results[0], op.text, op.line)
        if op.name not in _JOINED or not op.results:
            continue
        text = op.text
        types = memdesc_types(text)
        fn.ops.append(Op(
            op.name,
            op.results[0],
            op.line,
            op.column,
            text,
            list(op.uses),
            types[0] if len(types) >= 2 else None,
            types[-1] if types else None,
            _attrs(op.name, text[op.name_end :]),
            ttgir.resolve_loc(op.loc_ref, module.aliases),
            op.loc_ref,
        ))  # fmt: skip
    fn.bindings = bindings(ir_fn)
    return fn


def _constant(fn: Function, name: str, stmt: str, line_no: int) -> None:
    """Record an integer constant's value, or why it cannot be read."""
    cm = _CONST.search(stmt)
    if cm is None:
        fn.unread[name] = f"the arith.constant at line {line_no} has no value this reader finds"
        return
    try:
        fn.constants[name] = parse_int(cm.group(1), cm.group(2))
    except LiteralError as exc:
        fn.unread[name] = f"the arith.constant at line {line_no}: {exc}"


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
    # Why the root is not known: the place is then relative to the value's own type, taken as
    # its allocation, and where that allocation starts is unknown.
    why: str | None = None
    # What the spec does not model on the way here (a layout, tensor memory): byte positions
    # from this value on are unknown.
    model: str | None = None


def element_bytes(side: dict[str, Any]) -> int:
    return elem_bytes(DTYPE_BITS.get(str(side["dtype"]), 0))


def layout_of(side: dict[str, Any], aliases: dict[str, str]) -> Layout | None:
    """A side's layout, read by the request parser's one layout reader (None: none, or one it
    cannot read; parse_request names that when the view is judged)."""
    try:
        return parse_layout(side.get("layout"), "layout", aliases)
    except RequestError:
        return None


def unmodelled_layout(side: dict[str, Any], aliases: dict[str, str]) -> str | None:
    """How to name a side's layout when the spec does not know where it puts its bytes (None:
    no layout, or a swizzled or NVMMA shared layout, the two whose byte placement the spec
    knows)."""
    raw = side.get("layout")
    if raw is None:
        return None
    lay = layout_of(side, aliases)
    if lay is not None and lay.placement_known:
        return None
    text = str(raw).strip()
    if lay is not None and lay.kind == "unresolved":
        return lay.describe()
    resolved = aliases.get(text, text).strip()
    m = re.match(r"#[\w.]+", resolved)
    name = m.group(0) if m else resolved[:40]
    return name if text == resolved else f"{text} = {name}"


def side_bytes(side: dict[str, Any], alloc: bool = False) -> int:
    dims = side.get("alloc_shape") if alloc and side.get("alloc_shape") else side["shape"]
    if any(d is None or d < 0 for d in dims):
        return 0
    return prod(int(d) for d in dims) * element_bytes(side)


def alloc_alignment(side: dict[str, Any], aliases: dict[str, str]) -> int:
    return max(16, repeat_of(layout_of(side, aliases)))


def view_start(place: Place, side: dict[str, Any]) -> int:
    """Bytes from the allocation start to this value's first element."""
    alloc = [int(d) for d in (side.get("alloc_shape") or side["shape"]) if d is not None]
    if place.offsets is None or len(place.offsets) != len(alloc):
        return place.base
    stride = [prod(alloc[i + 1 :]) for i in range(len(alloc))]
    return place.base + sum(o * s for o, s in zip(place.offsets, stride, strict=True)) * (
        element_bytes(side)
    )
