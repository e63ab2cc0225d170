"""Reading memdesc views out of MLIR text (TTGIR dumps, FlagTree modules), without MLIR.

A dump is read line by line: attribute and location aliases, function boundaries (SSA names
restart there), integer constants, and every op that allocates or views shared memory, in the
pretty or the generic form. Region structure is followed too, as far as it moves memdesc values:
``scf.for`` iter_args, ``scf.if`` / ``scf.while`` results and region arguments, ``cf`` block
arguments and ``ttg.warp_specialize`` partition captures each become a ``Binding`` (a value and
everything that can flow into it). ``lint.py`` follows every view back to its allocation through
those bindings, so that its source's place in the allocation (base offset, alloc shape, subview
offsets, alignment) is known, and turns each view into one spec request (``request.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from math import prod
from typing import Any

from alias_spec.ir.memdesc_type import memdesc_side as memdesc_side
from alias_spec.ir.memdesc_type import memdesc_types
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
# Region ops whose block arguments and results are bound to known operands.
_WS = "ttg.warp_specialize"
CONTROL_OPS = {"scf.for", "scf.if", "scf.while", _WS}
JUDGED = {
    "ttg.memdesc_reinterpret",
    "ttg.memdesc_subslice",
    "ttg.memdesc_index",
    "tle.memdesc_alias",
}
_FUNC = re.compile(r"^\s*(?:tt\.func|func\.func|llvm\.func)\b")
# Greedy value, stripped afterwards: a lazy value followed by \s*$ is quadratic on long blanks.
_ALIAS_DEF = re.compile(r"^\s*(#[\w.$-]+)\s*=\s*(.+)$")
_RESULTS = re.compile(
    r'^\s*(?P<res>%[\w.$-]+(?::\d+)?(?:\s*,\s*%[\w.$-]+(?::\d+)?)*)\s*=\s*"?(?P<op>[\w.]+)'
)
_BARE_OP = re.compile(r'^\s*"?(?P<op>[a-z_]\w*\.[\w.]+)"?')
# An integer constant, pretty (``arith.constant 3 : i32``) or generic
# (``"arith.constant"() <{value = 3 : i32}> : () -> i32``): the literal token and its type.
_CONST = re.compile(
    r"arith\.constant\b(?:[^=]*?\bvalue\s*=)?\s*(-?\s*[\w.+-]+)(?:\s*:\s*([\w.]+))?"
)
_NAME = r"%[\w.$-]+(?:#\d+)?"
_ARG_DECL = re.compile(r"(%[\w.$-]+)\s*:")
_LABEL_HEAD = re.compile(r"^\s*\^([\w.$-]+)")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


# Bounds no real dump comes near; past them the text is rejected (exit 2), so that reading stays
# linear (a name lookup walks the open regions) and memory stays bounded.
MAX_DEPTH = 256  # nested regions
MAX_RESULTS = 4096  # results of one op (``%r:N``)
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


def strip_comment(line: str) -> str:
    """The line without its ``//`` comment (one outside a string literal)."""
    if "//" not in line:
        return line
    in_str = False
    i = 0
    n = len(line)
    while i < n:
        ch = line[i]
        if in_str:
            if ch == "\\":
                i += 1
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch == "/" and line.startswith("//", i):
            return line[:i]
        i += 1
    return line


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


@dataclass(frozen=True)
class Incoming:
    """One value that can flow into a block argument or region result."""

    value: str  # SSA name
    via: str  # how it gets there: "init operand", "yield operand", "branch operand", ...
    line: int


@dataclass
class Binding:
    """A block argument or region result and every value that can flow into it."""

    target: str
    what: str  # e.g. "iter_arg of the scf.for at line 17", for messages
    line: int
    incoming: list[Incoming]


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


def _strip_arrow(text: str) -> str:
    # "->" would count as a closing ">".
    return text.replace("->", "  ")


def _matching(text: str, open_ch: str, close_ch: str) -> dict[int, int]:
    """Position of each opening bracket -> position of its closing one (one linear pass;
    brackets left open have no entry)."""
    out: dict[int, int] = {}
    stack: list[int] = []
    for i, ch in enumerate(text):
        if ch == open_ch:
            stack.append(i)
        elif ch == close_ch and stack:
            out[stack.pop()] = i
    return out


def _loc_text(
    value: str, locs: dict[str, str], depth: int = 0, seen: dict[str, str | None] | None = None
) -> str | None:
    """Resolve a location to "file:line:col" (following aliases and names). Each alias is
    resolved once (``seen``), so locations that fan out to the same aliases stay linear."""
    seen = {} if seen is None else seen
    if depth > 20:
        return None
    value = value.strip()
    if value in locs:
        if value not in seen:
            seen[value] = None  # a cycle reads as unresolved
            seen[value] = _loc_text(locs[value], locs, depth + 1, seen)
        return seen[value]
    m = re.search(r'"([^"]+)":(\d+):(\d+)', value)
    if m:
        return f"{m.group(1)}:{m.group(2)}:{m.group(3)}"
    for ref in dict.fromkeys(re.findall(r"#[\w.$-]+", value)):
        got = _loc_text(ref, locs, depth + 1, seen)
        if got:
            return got
    return None


# Attribute values as raw tokens, read by parse_int afterwards (so that a literal the reader
# does not expect is reported, never half-read: "0x10" is not "0").
_OFFSET_BYTES = re.compile(r"\boffset_bytes\s*=\s*([^\s,:}>]+)(?:\s*:\s*([\w.]+))?")
_ARRAY = {key: re.compile(rf"\b{key}\s*=\s*array<\s*([\w.]+)\s*(?::([^<>=]*))?>")
          for key in ("offsets", "order")}  # fmt: skip
_BRACKET_OFFSETS = re.compile(r"%[\w.$-]+(?:#\d+)?\s*\[([^\]%]*)\]")


def _int_list(text: str, type_name: str | None, what: str) -> list[int]:
    parts = [p for p in (x.strip() for x in text.split(",")) if p]
    try:
        return [parse_int(p, type_name) for p in parts]
    except LiteralError as exc:
        raise LiteralError(f"{what}: {exc}") from None


def _attrs(op: str, rest: str) -> tuple[dict[str, Any], list[str]]:
    """Offsets, offset_bytes and operands of one statement (pretty or generic form). A value
    that cannot be read is kept as ``attrs["unread"]``, the reason."""
    head = rest.split(" : ", 1)[0]
    attrs: dict[str, Any] = {}
    try:
        m = _OFFSET_BYTES.search(rest)
        if m:
            attrs["offset_bytes"] = parse_int(m.group(1), m.group(2))
        for key, pattern in _ARRAY.items():
            m = pattern.search(rest)
            if m:
                attrs[key] = _int_list(m.group(2) or "", m.group(1), key)
        if op == "ttg.memdesc_subslice" and "offsets" not in attrs:
            m = _BRACKET_OFFSETS.search(head)
            if m:
                attrs["offsets"] = _int_list(m.group(1), "i32", "offsets")
    except LiteralError as exc:
        attrs["unread"] = str(exc)
    if op == "ttg.memdesc_subslice" and "offsets" not in attrs and "unread" not in attrs:
        attrs["unread"] = "no offsets found"
    operands = re.findall(r"%[\w.$-]+(?:#\d+)?", head)
    return attrs, operands


def _names(text: str) -> list[str]:
    return re.findall(_NAME, text)


def _top_operands(text: str) -> list[str]:
    """SSA names before the top-level " : " that starts an operand list's types."""
    depth = 0
    for i, ch in enumerate(text):
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        elif ch == ":" and depth == 0 and text[i - 1 : i] == " ":
            return _names(text[:i])
    return _names(text)


def _paren_after(text: str, start: int, close: dict[int, int] | None = None) -> str | None:
    """The text inside the parenthesis group that opens at or after ``start`` (``close``: the
    text's matching parentheses, for callers that ask many times)."""
    i = text.find("(", start)
    if i < 0:
        return None
    j = (close if close is not None else _matching(text, "(", ")")).get(i)
    return None if j is None else text[i + 1 : j]


def _results(res: str) -> list[str]:
    """``%a:2`` -> ``%a#0, %a#1``; ``%a, %b`` -> both; ``%a`` -> itself."""
    out: list[str] = []
    for part in (p.strip() for p in res.split(",")):
        name, _, count = part.partition(":")
        n = int(count) if count and len(count) <= 6 else (0 if not count else MAX_RESULTS + 1)
        if n > MAX_RESULTS:
            raise MlirError(f"result group {name}:{count[:12]} has more than {MAX_RESULTS} results")
        out += [f"{name}#{k}" for k in range(n)] if count else [name]
    if len(out) > MAX_RESULTS:
        raise MlirError(f"an op with more than {MAX_RESULTS} results")
    return out


def _pairs(text: str) -> list[tuple[str, str]]:
    """``%a = %x, %b = %y`` -> [(a, x), (b, y)]."""
    return re.findall(rf"({_NAME})\s*=\s*({_NAME})", text)


@dataclass
class _Region:
    args: list[str] = field(default_factory=list)  # entry block arguments
    exits: list[tuple[str, list[str], int]] = field(default_factory=list)  # terminators


@dataclass
class _Ctrl:
    kind: str
    line: int
    results: list[str] = field(default_factory=list)
    carried: list[tuple[str, str]] = field(default_factory=list)  # (block arg, init)
    raw_args: list[str] = field(default_factory=list)  # block args named in the op's header
    operands: list[str] = field(default_factory=list)  # warp_specialize captures
    regions: list[_Region] = field(default_factory=list)


@dataclass
class _Frame:
    """One open region. SSA names are visible in the region that defines them and the regions
    nested in it, so sibling regions may reuse a name (the printer does: both branches of an
    scf.if can define %s); each region's names get its own suffix."""

    ctrl: _Ctrl | None
    rid: str  # suffix of the names defined here ("" for a function's body)
    func: bool = False
    isolated: bool = False  # names from outside are not visible (a function, a partition)
    seen_op: bool = False  # a statement other than a block label appeared in the region
    names: dict[str, str] = field(default_factory=dict)  # name -> suffixed name


class _Reader:
    """Line-by-line state: the open regions, the current function and its control ops."""

    def __init__(self) -> None:
        self.aliases: dict[str, str] = {}
        self.locs: dict[str, str] = {}
        self.functions: list[Function] = []
        self.frames: list[_Frame] = []
        self.ctrls: list[_Ctrl] = []
        self.labels: dict[tuple[int, str], tuple[list[str], int]] = {}
        self.branches: list[tuple[int, str, list[str], int]] = []
        self.pending: _Ctrl | None = None  # a warp_specialize whose regions follow
        self.saw_module = False
        self.regions = 0

    @property
    def fn(self) -> Function:
        if not self.functions:
            self.functions.append(Function("(module)"))
        return self.functions[-1]

    def define(self, name: str, frame: _Frame | None = None) -> str:
        frame = frame or (self.frames[-1] if self.frames else None)
        if frame is None:
            return name
        out = f"{name}@{frame.rid}" if frame.rid else name
        frame.names[name] = out
        return out

    def use(self, name: str) -> str:
        for frame in reversed(self.frames):
            if name in frame.names:
                return frame.names[name]
            if frame.isolated:
                break
        return name

    def frame_key(self) -> int:
        return id(self.frames[-1]) if self.frames else 0

    # -- regions -------------------------------------------------------------------------

    def close_function(self) -> None:
        fn = self.fn
        for c in self.ctrls:
            fn.bindings += _bind(c)
        to: dict[tuple[int, str], list[tuple[list[str], int]]] = {}
        for bkey, blabel, ops, bline in self.branches:
            to.setdefault((bkey, blabel), []).append((ops, bline))
        for (key, label), (args, line) in self.labels.items():
            for i, arg in enumerate(args):
                got = [
                    Incoming(ops[i], f"operand of the branch to ^{label}", bline)
                    for ops, bline in to.get((key, label), [])
                    if i < len(ops)
                ]
                if got:
                    fn.bindings.append(
                        Binding(arg, f"argument of block ^{label} (line {line})", line, got)
                    )
        self.ctrls, self.labels, self.branches = [], {}, []

    def pop(self) -> _Frame | None:
        if not self.frames:
            return None
        frame = self.frames.pop()
        if frame.func:
            self.close_function()
        return frame

    def push(self, ctrl: _Ctrl | None, stmt: str, func: bool = False) -> None:
        if len(self.frames) >= MAX_DEPTH:
            raise MlirError(f"regions nested more than {MAX_DEPTH} deep")
        self.regions += 1
        partition = ctrl is not None and ctrl.kind == _WS and len(ctrl.regions) >= 1
        frame = _Frame(ctrl, "" if func else f"r{self.regions}", func, func or partition)
        self.frames.append(frame)
        head = stmt.split("{", 1)[0]
        if func:
            for a in _ARG_DECL.findall(_paren_after(head, head.find("@")) or ""):
                self.fn.defs[self.define(a)] = f"an argument of function @{self.fn.name}"
        if ctrl is None:
            return
        region = _Region()
        ctrl.regions.append(region)
        if partition:
            # A partition is isolated from above: its arguments take the captured operands.
            region.args = [self.define(n) for n in _ARG_DECL.findall(head)]
        elif len(ctrl.regions) == 1 and ctrl.kind in ("scf.for", "scf.while"):
            ctrl.carried = [
                (self.define(raw), init)
                for raw, (_, init) in zip(ctrl.raw_args, ctrl.carried, strict=False)
            ]
            if ctrl.kind == "scf.for":
                iv = re.search(r"scf\.for\s+(%[\w.$-]+)", stmt)
                if iv:
                    self.define(iv.group(1))

    # -- statements ----------------------------------------------------------------------

    def structure(self, stmt: str, ctrl: _Ctrl | None, is_func: bool) -> None:
        """Open and close regions for the braces of one statement."""
        bare = _STRING.sub('""', stmt)
        depth, pops = 0, 0
        for ch in bare:
            if ch == "{":
                depth += 1
            elif ch == "}":
                if depth:
                    depth -= 1
                else:
                    pops += 1
        popped = None
        for _ in range(pops):
            popped = self.pop()
        if popped is not None and popped.ctrl is not None and popped.ctrl.kind == _WS:
            self.pending = popped.ctrl
        if ctrl is not None and ctrl.kind == _WS:
            self.pending = ctrl
        if depth <= 0:
            return
        owner = None
        if ctrl is not None:
            owner = ctrl
        elif popped is not None and popped.ctrl is not None and popped.ctrl.kind != _WS:
            owner = popped.ctrl  # "} else {", "} do {": the same op's next region
        elif self.pending is not None and not is_func and not _RESULTS.match(stmt):
            owner = self.pending  # "default {", "partition0(...) num_warps(4) {"
        self.push(owner, stmt, is_func)
        for _ in range(depth - 1):
            self.push(None, stmt)

    def terminator(self, op: str, stmt: str, line_no: int) -> None:
        if not self.frames or self.frames[-1].ctrl is None:
            return
        rest = stmt[stmt.index(op) + len(op) :]
        if op == "scf.condition":
            cond = _paren_after(rest, 0) or ""
            rest = rest[rest.index(cond) + len(cond) + 1 :] if cond else rest
        names = [self.use(n) for n in _top_operands(rest)]
        self.frames[-1].ctrl.regions[-1].exits.append((op, names, line_no))

    def label(self, name: str, arg_text: str, line_no: int) -> None:
        args = [self.define(n) for n in _ARG_DECL.findall(arg_text)]
        if len(args) > MAX_RESULTS:
            raise MlirError(f"block ^{name} has more than {MAX_RESULTS} arguments")
        frame = self.frames[-1] if self.frames else None
        if frame is not None and frame.ctrl is not None and not frame.seen_op:
            frame.ctrl.regions[-1].args = args  # the region's entry block
        for a in args:
            self.fn.defs.setdefault(a, f"an argument of block ^{name} (line {line_no})")
        self.labels[(self.frame_key(), name)] = (args, line_no)

    def branch(self, stmt: str, line_no: int) -> None:
        close = _matching(stmt, "(", ")")
        for m in re.finditer(r"\^([\w.$-]+)\s*", stmt):
            opens = stmt.startswith("(", m.end())
            inner = _paren_after(stmt, m.end(), close) if opens else None
            ops = [self.use(n) for n in _top_operands(inner)] if inner else []
            self.branches.append((self.frame_key(), m.group(1), ops, line_no))

    def control(self, op: str, stmt: str, line_no: int) -> _Ctrl:
        """A region op's header: its operands are read here, in the enclosing region; the
        block arguments it names are defined when its first region opens."""
        ctrl = _Ctrl(op, line_no)
        rest = stmt[stmt.index(op) + len(op) :]
        pairs: list[tuple[str, str]] = []
        if op == "scf.for":
            m = re.search(r"iter_args\(([^)]*)\)", rest)
            pairs = _pairs(m.group(1)) if m else []
        elif op == "scf.while":
            pairs = _pairs(_paren_after(rest, 0) or "")
        elif op == _WS:
            ctrl.operands = [self.use(n) for n in _names(_paren_after(rest, 0) or "")]
        ctrl.raw_args = [a for a, _ in pairs]
        ctrl.carried = [(a, self.use(b)) for a, b in pairs]
        self.ctrls.append(ctrl)
        return ctrl


def _bind(c: _Ctrl) -> list[Binding]:
    """The bindings one control op makes (MLIR's region semantics for each kind)."""
    out: list[Binding] = []
    where = f"the {c.kind} at line {c.line}"

    def exits(region: int, op: str) -> list[tuple[list[str], int]]:
        if region >= len(c.regions):
            return []
        return [(names, ln) for o, names, ln in c.regions[region].exits if o == op]

    if c.kind == "scf.for":
        # An iter_arg is its init on entry and the matching yield operand after each trip; the
        # loop's result is the iter_arg's last value.
        for i, (arg, init) in enumerate(c.carried):
            inc = [Incoming(init, "init operand", c.line)]
            inc += [Incoming(ys[i], "yield operand", ln) for ys, ln in exits(0, "scf.yield")
                    if i < len(ys)]  # fmt: skip
            out.append(Binding(arg, f"iter_arg of {where}", c.line, inc))
            if i < len(c.results):
                out.append(
                    Binding(
                        c.results[i],
                        f"result of {where}",
                        c.line,
                        [Incoming(arg, "loop-carried value", c.line)],
                    )  # fmt: skip
                )
    elif c.kind == "scf.if":
        for i, res in enumerate(c.results):
            inc = [
                Incoming(ys[i], f"{'then' if r == 0 else 'else'} yield operand", ln)
                for r in range(len(c.regions))
                for ys, ln in exits(r, "scf.yield")
                if i < len(ys)
            ]
            out.append(Binding(res, f"result of {where}", c.line, inc))
    elif c.kind == "scf.while":
        # "before" arguments: the inits, then the "do" region's yields; "do" arguments and
        # the results: what scf.condition forwards.
        conds = exits(0, "scf.condition")
        for i, (arg, init) in enumerate(c.carried):
            inc = [Incoming(init, "init operand", c.line)]
            inc += [Incoming(ys[i], "yield operand", ln) for ys, ln in exits(1, "scf.yield")
                    if i < len(ys)]  # fmt: skip
            out.append(Binding(arg, f"before-region argument of {where}", c.line, inc))
        after = c.regions[1].args if len(c.regions) > 1 else []
        for targets, what in ((after, "do-region argument"), (c.results, "result")):
            for i, t in enumerate(targets):
                inc = [Incoming(ys[i], "scf.condition operand", ln) for ys, ln in conds
                       if i < len(ys)]  # fmt: skip
                out.append(Binding(t, f"{what} of {where}", c.line, inc))
    elif c.kind == _WS:
        for r, region in enumerate(c.regions[1:], 1):
            for i, arg in enumerate(region.args):
                if i < len(c.operands):
                    out.append(
                        Binding(
                            arg,
                            f"argument of partition {r - 1} of {where}",
                            c.line,
                            [Incoming(c.operands[i], "captured operand", c.line)],
                        )  # fmt: skip
                    )
        for i, res in enumerate(c.results):
            inc = [Incoming(ys[i], "ttg.warp_yield operand", ln)
                   for ys, ln in exits(0, "ttg.warp_yield") if i < len(ys)]  # fmt: skip
            out.append(Binding(res, f"result of {where}", c.line, inc))
    return out


def _label(line: str) -> tuple[str, str] | None:
    """A block label line ``^bb1(%a: T, ...):`` (with an optional location): its name and the
    text of its argument list; None for any other line."""
    m = _LABEL_HEAD.match(line)
    if not m:
        return None
    rest = line[m.end() :].lstrip()
    args = ""
    if rest.startswith("("):
        j = _matching(rest, "(", ")").get(0)
        if j is None:
            return None
        args, rest = rest[1:j], rest[j + 1 :].lstrip()
    if not rest.startswith(":"):
        return None
    rest = rest[1:].strip()
    if rest and not (rest.startswith("loc(") and rest.endswith(")")):
        return None
    return m.group(1), args


def _scan(text: str, depth: int, in_str: bool) -> tuple[int, bool]:
    """Bracket depth and string state after ``text`` (``->`` is not a closing ``>``)."""
    return _balance_from(_strip_arrow(text), depth, in_str)


def _balance_from(text: str, depth: int, in_str: bool) -> tuple[int, bool]:
    for ch in text:
        if ch == '"':
            in_str = not in_str
        elif not in_str:
            if ch in "<([{":
                depth += 1
            elif ch in ">)]}":
                depth -= 1
    return depth, in_str


_JOINED = VIEW_OPS | ALLOC_OPS


def _loc_of(stmt: str) -> str | None:
    """The statement's trailing location as written: an alias (``#loc3``) or inline text."""
    stmt = stmt.rstrip()
    if not stmt.endswith(")"):
        return None
    i = stmt.rfind("loc(")
    if i < 0:
        return None
    inner = stmt[i + 4 : -1].strip()
    return inner or None


def read_module(text: str) -> Module:
    if "\x00" in text:
        raise MlirError("binary input, not MLIR text")
    # MLIR counts lines by "\n" only (str.splitlines would also split at form feeds, ...).
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in text.split("\n")]
    r = _Reader()
    i = 0
    while i < len(lines):
        line = strip_comment(lines[i])
        start = i
        if not line.strip():
            i += 1
            continue
        if re.match(r"^\s*(module|builtin\.module)\b", line) or _FUNC.match(line):
            r.saw_module = True
        m = _ALIAS_DEF.match(line)
        if m and not line.lstrip().startswith("%"):
            name, value = m.group(1), m.group(2).strip()
            if value.startswith("loc("):
                r.locs[name] = value
            else:
                r.aliases[name] = value
            i += 1
            continue
        lab = _label(line)
        if lab:
            r.label(lab[0], lab[1], i + 1)
            i += 1
            continue
        is_func = bool(_FUNC.match(line))
        if is_func:
            fm = re.search(r"@([\w.$-]+)", line)
            r.functions.append(Function(fm.group(1) if fm else "?"))
        dm = _RESULTS.match(line)
        bm = None if dm else _BARE_OP.match(line)
        op = dm.group("op") if dm else (bm.group("op") if bm else "")
        parts = [line]
        # A view statement continues while brackets are open or it ends mid-signature (other
        # ops may open a region here: they are not joined). The depth is kept line by line so
        # that a statement that never closes costs its length once.
        if op in _JOINED:
            depth, in_str = _scan(line, 0, False)
            tail = line.rstrip()
            while i + 1 < len(lines) and (depth > 0 or tail.endswith((":", "->", ","))):
                i += 1
                piece = strip_comment(lines[i]).strip()
                parts.append(piece)
                depth, in_str = _scan(piece, depth, in_str)
                tail = piece or tail
        stmt = " ".join(parts)
        i += 1
        line_no = start + 1
        if r.frames:
            r.frames[-1].seen_op = True
        # Operands are read before the statement's results are defined.
        ctrl = r.control(op, stmt, line_no) if op in CONTROL_OPS else None
        if op in ("scf.yield", "scf.condition", "ttg.warp_yield"):
            r.terminator(op, stmt, line_no)
        elif "^" in stmt:
            r.branch(stmt, line_no)  # cf.br, cf.cond_br, cf.switch: block arguments
        operands: list[str] = []
        attrs: dict[str, Any] = {}
        if op in _JOINED:
            attrs, raw = _attrs(op, stmt[stmt.index(op) + len(op) :])
            operands = [r.use(o) for o in raw]
        results = [r.define(n) for n in _results(dm.group("res"))] if dm else []
        for res in results:
            r.fn.defs[res] = f"the result of {op} at line {line_no}"
        if ctrl is not None:
            ctrl.results = results
        r.structure(stmt, ctrl, is_func)
        if op and op != _WS:
            r.pending = None
        if op == "arith.constant" and results:
            _constant(r.fn, results[0], stmt, line_no)
            continue
        if op not in _JOINED or not results:
            continue
        types = memdesc_types(stmt)
        res_type = types[-1] if types else None
        src_type = types[0] if len(types) >= 2 else None
        col = line.index(op) + 1
        r.fn.ops.append(
            Op(
                op,
                results[0],
                line_no,
                col,
                stmt,
                operands,
                src_type,
                res_type,
                attrs,
                None,
                _loc_of(stmt),
            )  # fmt: skip
        )
    while r.frames:
        r.pop()
    if r.ctrls or r.labels:
        r.close_function()
    functions = [f for f in r.functions if f.ops]
    if not r.saw_module and not functions:
        raise MlirError("no module, function or memdesc op found")
    # Location aliases are usually defined after their uses: resolve once all are known, each
    # alias once for the whole module.
    seen: dict[str, str | None] = {}
    for f in functions:
        for o in f.ops:
            if o.loc_raw is not None:
                o.loc = _loc_text(o.loc_raw, r.locs, 0, seen)
    return Module(r.aliases, functions, r.locs)


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
