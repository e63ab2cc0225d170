"""Reading what lint and the plan validator need out of TTGIR text, without MLIR.

Only the structure that shared-memory liveness depends on is read: functions, their ops in
textual order (each op's results, the SSA values it uses and the block arguments it declares),
the regions an op owns (so that loops, branches and warp-specialize partitions are known),
``cf`` block labels and branches, the ``allocation.offset`` / ``allocation.size`` attributes
and the module's ``ttg.shared``, each op's kernel source location and the callee of a call.

A statement may span lines (MLIR does not care where lines break): it goes on while a bracket
other than a region's brace is open or its line ends with ``:``, ``->``, ``,`` or ``=``. A
line may also hold several statements, since MLIR has no separator between ops (newlines are
whitespace): a new op begins where the syntax says so (``_op_starts``), and a region written on
one line has its ops read as statements of their own. Each
statement is split into MLIR tokens first, so strings, comments, symbols and literals mean
what they mean to MLIR: a ``//`` or a brace inside a string is text, a comment is not read,
``@"quoted names"`` and ``@bare`` ones are the same kind of symbol (escapes decoded), integers
may be hexadecimal or negative, and ``loc(...)`` is a location only where ``loc`` is a keyword.

SSA values are resolved by scope as MLIR's parser does: a value defined in a region is
visible in the regions nested in it and not after the region closes; a function and a
warp-specialize partition (isolated from above) start with nothing visible; a name used before
any visible definition is a forward reference to its next definition, and one that no
definition resolves is an error, as in MLIR. (A function's value used inside a partition, which
MLIR rejects, is read as captured: its live range can only grow.) Each definition gets a
unique name: the first of a name keeps it, later ones get ``@N`` (``%a``, ``%a@1``; ``@`` is
not allowed in an SSA name, so no real name collides), and every use names the definition it
resolves to. The results of an op with several (``%r:2 = ...``) are ``%r#0`` and ``%r#1``.

Every op, block label and region terminator gets a position: its index in the function's
textual order. Liveness (``plan/liveness.py``) works on those positions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Bounds no real dump comes near; past them the text is rejected (exit 2) so that reading
# stays linear and memory stays bounded.
MAX_DEPTH = 256
MAX_LINE = 1_000_000
MAX_RESULTS = 4096  # results of one op (``%r:N``), arguments of one block
_MAX_DIGITS = 64  # longest integer literal given a value (2**128 has 39 digits)

LOOP_OPS = {"scf.for", "scf.while"}
CONCURRENT_OPS = {"ttg.warp_specialize"}
TERMINATORS = {
    "scf.yield",
    "scf.condition",
    "ttg.warp_yield",
    "ttg.warp_return",
    "tt.reduce.return",
    "tt.scan.return",
}
BRANCHES = {"cf.br", "cf.cond_br", "cf.switch"}
INT_ATTRS = ("allocation.offset", "allocation.size")
_PARTITION = re.compile(r"partition\d+$")
_FILE_LOC = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')
_LOC_REF = re.compile(r"#loc\d*[\w.$-]*")
_GENERIC_NAME = re.compile(r"[a-z_]\w*\.[\w.]+")
_KEY = re.compile(r"[A-Za-z_][\w$.-]*")  # a quoted attribute name kept as written

# One MLIR token. Kinds: str (a string literal, its value decoded), sym (@name, decoded),
# ssa (%name, with #N kept), label (^name), hash (#name), bang (!name), id (a bare
# identifier or keyword, dots included), int, float, punct (one character, or "->").
# Alternatives ordered by how often they occur in compiled modules (the engine tries them in
# turn); no two of them start with the same character except where the longer comes first.
_TOKEN = re.compile(
    r"""(?P<ws>\s+)
    |(?P<punct>[()\[\]{}<>,:=*?|+])
    |(?P<ssa>%[\w$.-]+(?:\#\d+)?)
    |(?P<id>[A-Za-z_][\w$.-]*)
    |(?P<hash>\#[\w$.-]+)
    |(?P<int>\d+(?![.\dxX]))
    |(?P<str>"(?:[^"\\\n]|\\.)*")
    |(?P<comment>//.*)
    |(?P<sym>@(?:"(?:[^"\\\n]|\\.)*"|[A-Za-z_][\w$.]*))
    |(?P<label>\^[\w$.-]+)
    |(?P<bang>![\w$.-]+)
    |(?P<hex>0x[0-9a-fA-F]+)
    |(?P<float>\d+\.\d*(?:[eE][+-]?\d+)?)
    |(?P<int2>\d+)
    |(?P<arrow>->)
    |(?P<other>.)""",
    re.X,
)


class TtgirError(ValueError):
    """Text that is not a TTGIR module this reader understands (one line)."""


# Token kinds whose value is None and whose kind is kept as matched.
_PLAIN = frozenset(("punct", "ssa", "id", "label", "hash", "bang", "float"))


@dataclass(slots=True)
class Tok:
    kind: str
    text: str  # as written
    start: int
    end: int
    value: object = None  # decoded: str for str/sym, int for int


def _decode(body: str) -> str:
    """An MLIR string literal's contents with its escapes decoded (\\\\, \\", \\n, \\t, \\XX)."""
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        nxt = body[i + 1 : i + 2]
        if nxt in ('"', "\\"):
            out.append(nxt)
            i += 2
        elif nxt == "n":
            out.append("\n")
            i += 2
        elif nxt == "t":
            out.append("\t")
            i += 2
        elif re.fullmatch(r"[0-9a-fA-F]{2}", body[i + 1 : i + 3]):
            out.append(chr(int(body[i + 1 : i + 3], 16)))
            i += 3
        else:
            raise TtgirError(f"unknown escape in a string literal: {body[i : i + 2]!r}")
    return "".join(out)


def lex(line: str) -> list[Tok]:
    """A line's tokens, comments left out; TtgirError on a string that does not end."""
    toks: list[Tok] = []
    append = toks.append
    for m in _TOKEN.finditer(line):
        kind = m.lastgroup
        if kind in _PLAIN:  # most tokens: no value to decode (tested first: read per line)
            append(Tok(kind, m.group(), m.start(), m.end()))
            continue
        if kind == "ws" or kind == "comment":
            continue
        text = m.group()
        value: object = None
        if kind == "other":
            kind = "punct"
            if text == '"':
                raise TtgirError("a string literal does not end on its line")
        elif kind == "str":
            value = _decode(text[1:-1])
        elif kind == "sym":
            value = _decode(text[2:-1]) if text.startswith('@"') else text[1:]
        elif kind == "hex":
            # No integer the reader uses is this long: None (``_int_value`` rejects it) keeps
            # a huge literal from costing time or memory.
            kind, value = "int", int(text, 16) if len(text) <= _MAX_DIGITS else None
        elif kind == "int" or kind == "int2":
            kind, value = "int", int(text) if len(text) <= _MAX_DIGITS else None
        elif kind == "arrow":
            kind = "punct"
        append(Tok(kind, text, m.start(), m.end(), value))
    return toks


def strip_comment(line: str) -> str:
    """The line without its ``//`` comment (a ``//`` inside a string literal is text)."""
    for m in _TOKEN.finditer(line):
        if m.lastgroup == "comment":
            return line[: m.start()]
        if m.lastgroup == "punct" and m.group(0) == '"':
            return line  # a string that does not end: no comment after it
    return line


def _loc_spans(toks: list[Tok]) -> list[tuple[int, int]]:
    """Token index ranges [i, j] of each ``loc(...)`` group (``loc`` the keyword, not a symbol
    or a value named so)."""
    spans = []
    i = 0
    while i < len(toks):
        t = toks[i]
        if t.kind == "id" and t.text == "loc" and i + 1 < len(toks) and toks[i + 1].text == "(":
            depth = 0
            j = i + 1
            while j < len(toks):
                if toks[j].text == "(":
                    depth += 1
                elif toks[j].text == ")":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            spans.append((i, j))
            i = j + 1
            continue
        i += 1
    return spans


def _without_locs(toks: list[Tok]) -> list[Tok]:
    spans = _loc_spans(toks)
    if not spans:
        return toks
    out: list[Tok] = []
    k = 0
    for i, j in spans:
        out.extend(toks[k:i])
        k = j + 1
    out.extend(toks[k:])
    return out


def _blanked(line: str, toks: list[Tok]) -> str:
    """The line with string literals and quoted symbols emptied (a generic op name and a
    quoted attribute name such as ``"offset_bytes" =``, which names the same attribute as the
    bare one, are kept) and the comment cut: text for the regular expressions of later passes,
    which then never read what sits inside a string."""
    if '"' not in line and "//" not in line:
        return line.rstrip()  # no string and no comment: only whitespace between the tokens
    return _blanked_tokens(line, toks)


def _blanked_tokens(line: str, toks: list[Tok]) -> str:
    """``_blanked``, token by token."""
    out: list[str] = []
    k = 0
    for i, t in enumerate(toks):
        out.append(line[k : t.start])
        key = (t.kind == "str" and i + 1 < len(toks) and toks[i + 1].text == "="
               and _KEY.fullmatch(str(t.value)))  # fmt: skip
        if t.kind == "str" and not _GENERIC_NAME.fullmatch(str(t.value)) and not key:
            out.append('"' + " " * (len(t.text) - 2) + '"')
        elif t.kind == "sym" and t.text.startswith('@"'):
            out.append('@"' + " " * (len(t.text) - 3) + '"')
        else:
            out.append(t.text)
        k = t.end
    return "".join(out).rstrip()


def _strip_loc(text: str) -> str:
    """The text without any ``loc(...)`` group (they may sit inside argument lists)."""
    try:
        toks = lex(text)
    except TtgirError:
        return text
    spans = _loc_spans(toks)
    if not spans:
        return text
    out = []
    k = 0
    for i, j in spans:
        out.append(text[k : toks[i].start])
        k = toks[j].end if j < len(toks) else len(text)
    out.append(text[k:])
    return "".join(out)


def _top_level_types(toks: list[Tok]) -> int | None:
    """Index of the first ``:`` outside brackets (the op's type part follows it)."""
    depth = 0
    for i, t in enumerate(toks):
        if t.kind != "punct":
            continue
        if t.text in "([{<":
            depth += 1
        elif t.text in ")]}>":
            depth -= 1
        elif t.text == ":" and depth == 0:
            return i
    return None


@dataclass
class Op:
    name: str
    pos: int
    line: int  # 1-based
    column: int  # 1-based column of the op name
    results: list[str]
    uses: list[str]
    decls: list[str]  # block arguments and region arguments this statement declares
    head: str  # the statement text up to its region (strings emptied, comment cut)
    tail: str = ""  # text after the op's regions close (generic ops: attributes, types)
    attrs: dict[str, int] = field(default_factory=dict)
    loc_ref: str | None = None
    parent: int | None = None  # position of the op owning the region this op is in
    end: int = -1  # position of the last statement inside this op's regions (pos if none)
    targets: list[str] = field(default_factory=list)  # branch targets (cf)
    callee: str | None = None  # the symbol a call names (decoded)
    symbols: list[str] = field(default_factory=list)  # every symbol the statement names
    name_end: int = 0  # where the op's name ends in ``head`` (its operands follow)
    region: int = 0  # which region of ``parent`` this op is in (0: the first)
    regions: int = 0  # how many regions this op has
    # Per region: the values it declares for it (header values, partition arguments, the
    # entry block's arguments).
    region_args: list[list[str]] = field(default_factory=list)
    # ``%a = %b`` in the header (loop variables, iter_args, while arguments): for each entry
    # of ``decls`` the index into ``uses`` of the value it starts as (-1: none).
    init_uses: list[int] = field(default_factory=list)
    succ_uses: list[list[int]] = field(default_factory=list)  # per target: its operands
    # (text, result types) of the last ``result_types`` call: every reader of the flows asks
    # again, and lexing the op each time cost as much as reading the module.
    _types: tuple[str, str] | None = field(default=None, repr=False, compare=False)

    @property
    def inits(self) -> list[tuple[str, str]]:
        """(declared value, the value it starts as) for each ``%a = %b`` of the header."""
        return [(d, self.uses[k]) for d, k in zip(self.decls, self.init_uses, strict=False)
                if k >= 0]  # fmt: skip

    @property
    def succ_args(self) -> list[list[str]]:
        """The operands passed to each branch target, in the order of ``targets``."""
        return [[self.uses[k] for k in ks] for ks in self.succ_uses]

    @property
    def text(self) -> str:
        return self.head + (" " + self.tail if self.tail else "")

    def result_types(self) -> str:
        """The type part that holds the results: after the last top-level ``->`` of the type
        part (what follows the first ``:`` outside brackets), else that whole part."""
        whole = self.text
        if self._types is not None and self._types[0] == whole:
            return self._types[1]
        got = self._result_types(whole)
        self._types = (whole, got)
        return got

    @staticmethod
    def _result_types(whole: str) -> str:
        try:
            text, toks = _without_loc_text(whole)
        except TtgirError:
            return ""
        at = _top_level_types(toks)
        if at is None:
            return text.rsplit("->", 1)[1] if "->" in text else ""
        rest = toks[at + 1 :]
        depth = 0
        arrow = None
        for i, t in enumerate(rest):
            if t.kind == "punct" and t.text in "([{<":
                depth += 1
            elif t.kind == "punct" and t.text in ")]}>":
                depth -= 1
            elif t.text == "->" and depth == 0:
                arrow = i
        start = rest[arrow + 1].start if arrow is not None and arrow + 1 < len(rest) else (
            rest[0].start if rest else len(text))  # fmt: skip
        if arrow is not None and arrow + 1 >= len(rest):
            return ""
        return text[start:]


def _without_loc_text(text: str) -> tuple[str, list[Tok]]:
    """``_strip_loc(text)`` and its tokens, lexed once (TtgirError as ``lex``): the tokens
    outside ``loc(...)`` groups, moved to their places in the text without them."""
    toks = lex(text)
    spans = _loc_spans(toks)
    if not spans:
        return text, toks
    pieces: list[str] = []
    kept: list[Tok] = []
    k = 0  # where the next kept piece of ``text`` starts
    shift = 0  # characters cut before it
    t = 0
    for i, j in spans:
        cut = toks[i].start
        pieces.append(text[k:cut])
        for tok in toks[t:i]:
            kept.append(Tok(tok.kind, tok.text, tok.start - shift, tok.end - shift, tok.value))
        k = toks[j].end if j < len(toks) else len(text)
        shift += k - cut
        t = j + 1
    pieces.append(text[k:])
    for tok in toks[t:]:
        kept.append(Tok(tok.kind, tok.text, tok.start - shift, tok.end - shift, tok.value))
    return "".join(pieces), kept


@dataclass
class Function:
    name: str
    line: int
    args: list[str]
    ops: list[Op] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)  # label -> position
    attrs: dict[str, int] = field(default_factory=dict)  # allocation.* on the function itself
    # The function's value graph (``flows.flows_of``), built once for every reader.
    flows: object = field(default=None, repr=False, compare=False)


@dataclass
class Module:
    functions: list[Function]
    shared: int | None
    num_warps: int | None
    loc_aliases: dict[str, str]
    # Whether any op or function carries an allocation.* attribute (a planned module).
    planned: bool = False
    saw_module: bool = True
    target: str | None = None  # ttg.target, such as "cuda:90"

    @property
    def aliases(self) -> dict[str, str]:
        """Every ``#name = value`` definition (attribute and location aliases alike)."""
        return self.loc_aliases

    def function(self, name: str) -> Function | None:
        return next((f for f in self.functions if f.name == name), None)

    def source(self, op: Op) -> str | None:
        """The op's kernel source location as ``file:line:col``, if the dump has one."""
        return resolve_loc(op.loc_ref, self.loc_aliases)


def resolve_loc(ref: str | None, aliases: dict[str, str], depth: int = 0) -> str | None:
    """The first ``file:line:col`` a location (alias or inline text) expands to, following
    named and call-site locations; the caller's side of a call site comes last."""
    if ref is None or depth > 64:
        return None
    text = aliases.get(ref, ref) if ref.startswith("#") else ref
    text = text.strip()
    if text.startswith("loc(") and text.endswith(")"):
        text = text[4:-1].strip()
    if text.startswith("callsite(") and " at " in text:
        # The caller's side names the kernel line that led here (the callee may be a library).
        caller = text[len("callsite(") : -1].rsplit(" at ", 1)[1]
        found = resolve_loc(caller.strip(), aliases, depth + 1)
        if found:
            return found
    m = _FILE_LOC.search(text)
    refs = _LOC_REF.findall(text)
    if m and (not refs or text.find(m.group(0)) < text.find(refs[0])):
        return f"{m.group(1)}:{m.group(2)}:{m.group(3)}"
    for r in refs:
        if r != ref:
            found = resolve_loc(r, aliases, depth + 1)
            if found:
                return found
    return f"{m.group(1)}:{m.group(2)}:{m.group(3)}" if m else None


def op_locations(op: Op, module: Module) -> set[tuple[str, int, int]]:
    """Every ``(file, line, col)`` the op's location names, both sides of call sites included:
    LLVM IR may keep an inlined callee's line where the TTGIR shows the caller's first."""
    out: set[tuple[str, int, int]] = set()
    todo, seen = [op.loc_ref] if op.loc_ref else [], set()
    while todo and len(seen) < 64:
        ref = todo.pop()
        if ref in seen:
            continue
        seen.add(ref)
        text = module.aliases.get(ref, ref) if ref.startswith("#") else ref
        for fm in _FILE_LOC.finditer(text):
            out.add((fm.group(1), int(fm.group(2)), int(fm.group(3))))
        todo.extend(r for r in _LOC_REF.findall(text) if r not in seen)
    first = resolve_loc(op.loc_ref, module.aliases)
    if first:
        f, line, col = first.rsplit(":", 2)
        out.add((f, int(line), int(col)))
    return out


def same_file(a: str, b: str) -> bool:
    """LLVM IR names a file by its name, the TTGIR by its path (possibly rewritten): one ends
    with the other."""
    a, b = a.rsplit("/", 1)[-1], b.rsplit("/", 1)[-1]
    return a.endswith(b) or b.endswith(a)


def plain_symbol(name: str) -> str:
    """A symbol name as its symbol: a quoted spelling unquoted, its hex escapes decoded (TTGIR
    and LLVM IR both quote names that are not plain identifiers); a bare one is the name."""
    if len(name) >= 2 and name[0] == name[-1] == '"':
        return re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), name[1:-1])
    return name


def _own_loc(line: str, toks: list[Tok]) -> str | None:
    """The statement's own location: the contents of its last top-level ``loc(...)``."""
    depth = 0
    last = None
    spans = {i: j for i, j in _loc_spans(toks)}
    # A line that closes regions (``}) {attrs} : type loc(#l)``) starts below the op's level.
    lead = 0
    while lead < len(toks) and toks[lead].text in ("}", ")"):
        lead += 1
    i = 0
    while i < len(toks):
        if i in spans:
            if depth == 0:
                last = (i, spans[i])
            i = spans[i] + 1
            continue
        t = toks[i]
        if t.kind == "punct" and t.text in "([{<":
            depth += 1
        elif t.kind == "punct" and t.text in ")]}>" and i >= lead:
            depth -= 1
        i += 1
    if last is None:
        return None
    i, j = last
    if j >= len(toks):
        return None
    return line[toks[i + 1].end : toks[j].start].strip()


def _attr_key(t: Tok) -> str | None:
    """An attribute name: bare (``allocation.offset``) or quoted (``"allocation.offset"``)."""
    if t.kind == "id":
        return t.text
    if t.kind == "str":
        return str(t.value)
    return None


# What may follow an integer attribute's value: its type, the next attribute, the dict's end.
_AFTER_INT = {":", ",", "}", ">", ")"}


def _int_value(toks: list[Tok], j: int, what: str) -> int | None:
    """The integer literal at ``toks[j]`` (after an optional ``-``); None when there is none.
    TtgirError when the literal runs on into more text (``0X10``, ``1e3``, ``0x10g``): MLIR
    would not read it as the integer it starts with."""
    sign = 1
    if j < len(toks) and toks[j].text == "-":
        sign, j = -1, j + 1
    if j >= len(toks) or toks[j].kind != "int":
        return None
    if toks[j].value is None:
        raise TtgirError(f"{what} is longer than any integer ({len(toks[j].text)} digits)")
    nxt = toks[j + 1] if j + 1 < len(toks) else None
    if nxt is not None and (nxt.start == toks[j].end and nxt.text not in _AFTER_INT):
        raise TtgirError(f"{what} is not an MLIR integer literal")
    if nxt is not None and nxt.kind == "punct" and nxt.text not in _AFTER_INT:
        raise TtgirError(f"{what} is not an MLIR integer literal")
    return sign * int(toks[j].value)  # type: ignore[call-overload]


def _int_attrs(toks: list[Tok], line_no: int, into: dict[str, int]) -> None:
    """``allocation.offset = N`` / ``allocation.size = N`` (N decimal or hexadecimal, maybe
    negative, maybe typed; the key bare or quoted) into ``into``; TtgirError when the value is
    not an integer or the key is given twice."""
    for i, t in enumerate(toks):
        key = _attr_key(t)
        if key not in INT_ATTRS:
            continue
        if i + 1 >= len(toks) or toks[i + 1].text != "=":
            continue
        value = _int_value(toks, i + 2, f"line {line_no}: {key}")
        if value is None:
            raise TtgirError(f"line {line_no}: {key} is not an integer")
        if key in into:
            raise TtgirError(f"line {line_no}: {key} given twice")
        into[key] = value


def _module_int(toks: list[Tok], key: str) -> int | None:
    for i, t in enumerate(toks):
        if _attr_key(t) != key or i + 2 >= len(toks) or toks[i + 1].text != "=":
            continue
        value = _int_value(toks, i + 2, key)
        if value is None:
            raise TtgirError(f"{key} is not an integer")
        return value
    return None


def _module_str(toks: list[Tok], key: str) -> str | None:
    """A module string attribute (``ttg.target = "cuda:90"``), where it is one."""
    for i, t in enumerate(toks):
        if _attr_key(t) == key and i + 2 < len(toks) and toks[i + 1].text == "=":
            v = toks[i + 2]
            return str(v.value) if v.kind == "str" else None
    return None


def _balance(toks: list[Tok]) -> int:
    return sum(1 if t.text == "{" else -1 if t.text == "}" else 0
               for t in toks if t.kind == "punct")  # fmt: skip


def _arg_decls(toks: list[Tok]) -> list[str]:
    """Values declared as ``%x: type`` (function, block and partition arguments)."""
    return [t.text for i, t in enumerate(toks[:-1]) if t.kind == "ssa" and toks[i + 1].text == ":"]


class _Scopes:
    """SSA names of one function resolved by region scope (see the module's docstring)."""

    def __init__(self) -> None:
        self.visible: dict[str, list[str]] = {}
        self.frames: list[tuple[list[str], dict[str, list[str]] | None]] = [([], None)]
        self.count: dict[str, int] = {}
        self.multi: dict[str, int] = {}  # unique name -> number of results (when several)
        self.pending: dict[str, list[tuple[list[str], int, str]]] = {}  # forward references
        self.first_use: dict[str, int] = {}  # line of each forward reference's first use
        self.line = 0  # the line being read

    def push(self, isolated: bool = False) -> None:
        saved = self.visible if isolated else None
        if isolated:
            self.visible = {}
        self.frames.append(([], saved))

    def pop(self) -> None:
        if len(self.frames) <= 1:
            return
        names, saved = self.frames.pop()
        if saved is not None:
            self.visible = saved
            return
        for n in names:
            stack = self.visible.get(n)
            if stack:
                stack.pop()
                if not stack:
                    del self.visible[n]

    def define(self, raw: str, results: int = 1) -> str:
        k = self.count.get(raw, 0)
        self.count[raw] = k + 1
        uid = raw if k == 0 else f"{raw}@{k}"
        self.visible.setdefault(raw, []).append(uid)
        self.frames[-1][0].append(raw)
        if results > 1:
            self.multi[uid] = results
        self.first_use.pop(raw, None)
        for into, i, suffix in self.pending.pop(raw, []):
            into[i] = self._named(uid, suffix)
        return uid

    def _named(self, uid: str, suffix: str) -> str:
        if not suffix and uid in self.multi:
            return uid + "#0"  # a multi-result op's bare name is its first result
        return uid + suffix

    def use(self, raw: str, into: list[str]) -> None:
        """Append the unique name ``raw`` resolves to (patched later for a forward one)."""
        base, _, num = raw.partition("#")
        suffix = "#" + num if num else ""
        stack = self.visible.get(base)
        if not stack:
            # A value of the enclosing function used inside an isolated region (MLIR rejects
            # that): read as captured, so the value is live there too, never shorter.
            stack = next((saved[base] for _, saved in reversed(self.frames)
                          if saved is not None and saved.get(base)), None)  # fmt: skip
        if stack:
            into.append(self._named(stack[-1], suffix))
            return
        into.append(raw)
        self.pending.setdefault(base, []).append((into, len(into) - 1, suffix))
        self.first_use.setdefault(base, self.line)

    def check_defined(self) -> None:
        """At a function's end: a use that no definition resolved is an error (MLIR's too)."""
        if self.pending:
            name, line = min(((n, self.first_use[n]) for n in self.pending), key=lambda x: x[1])
            raise TtgirError(f"line {line}: use of {name}, which is never defined")


def _results_of(toks: list[Tok]) -> tuple[list[tuple[str, int]], int] | None:
    """Leading ``%a, %b:2 =``: [(name, count)] and the index after ``=``; None if absent."""
    out: list[tuple[str, int]] = []
    i = 0
    while i < len(toks) and toks[i].kind == "ssa":
        name, n = toks[i].text, 1
        i += 1
        if i + 1 < len(toks) and toks[i].text == ":" and toks[i + 1].kind == "int":
            n = int(toks[i + 1].value or 0)  # type: ignore[call-overload]
            if not 0 < n <= MAX_RESULTS:
                raise TtgirError(f"a result group {name}:{toks[i + 1].text[:12]} (at most "
                                 f"{MAX_RESULTS} results)")  # fmt: skip
            i += 2
        out.append((name, n))
        if i < len(toks) and toks[i].text == ",":
            i += 1
            continue
        break
    if out and i < len(toks) and toks[i].text == "=":
        return out, i + 1
    return None


def _op_name(tok: Tok) -> str | None:
    if tok.kind == "id" and "." in tok.text:
        return tok.text
    if tok.kind == "str" and _GENERIC_NAME.fullmatch(str(tok.value)):
        return str(tok.value)
    return None


# A statement continues on the next line while a bracket is open (a region's ``{`` aside) or
# when its line ends with one of these: MLIR does not care where lines break.
_CONTINUES = {":", "->", ",", "="}
_OPENERS = {"(": 1, "[": 1, "<": 1, ")": -1, "]": -1, ">": -1}


def _statements(text: str):
    """(first line number, text, tokens) of each statement: a line, or the lines a statement
    spans joined with single spaces (tokens keep their place in the joined text). Lines are
    counted by ``\n`` as MLIR counts them; each line is lexed once, so a statement that never
    ends costs its length once."""
    lines = text.split("\n")
    in_resources = False
    k = 0
    while k < len(lines):
        line_no, raw = k + 1, lines[k].removesuffix("\r")
        k += 1
        if len(raw) > MAX_LINE:
            raise TtgirError(f"line {line_no} is longer than {MAX_LINE} characters")
        if in_resources:
            in_resources = not raw.strip().startswith("#-}")
            continue
        if raw.strip().startswith("{-#"):
            # A resource section (blobs, not ops) runs to its closing ``#-}``.
            in_resources = not raw.rstrip().endswith("#-}")
            continue
        try:
            toks = lex(raw)
        except TtgirError as exc:
            raise TtgirError(f"line {line_no}: {exc}") from None
        if not toks:
            continue
        if toks[0].kind == "hash":
            yield line_no, raw, toks
            continue
        if toks[0].text == "}" or toks[0].kind == "label":
            yield from _split(raw, toks, [(0, line_no, 0)])
            continue
        depth = _open_depth(toks, 0)
        parts = [raw]
        size = len(raw)
        starts = [(0, line_no, 0)]  # (offset in the joined text, line, its stripped lead)
        while k < len(lines) and (
            (depth > 0 and toks[-1].text != "{") or toks[-1].text in _CONTINUES
        ):
            piece = lines[k].removesuffix("\r")
            if len(piece) > MAX_LINE:
                raise TtgirError(f"line {k + 1} is longer than {MAX_LINE} characters")
            k += 1
            try:
                more = lex(piece)
            except TtgirError as exc:
                raise TtgirError(f"line {k}: {exc}") from None
            if not more:
                continue
            lead = more[0].start
            shift = size + 1 - lead
            starts.append((size + 1, k, lead))
            toks += [Tok(t.kind, t.text, t.start + shift, t.end + shift, t.value) for t in more]
            parts.append(piece[lead:])
            size += 1 + len(piece) - lead
            depth = _open_depth(more, depth)
        yield from _split(" ".join(parts), toks, starts)


def _split(text: str, toks: list[Tok], starts: list[tuple[int, int, int]]):
    """The statement as MLIR reads it: one or more ops (and the braces of regions written on
    the line), each as (line, text, tokens) with its tokens at their columns in that text."""
    cuts = [0, *_op_starts(toks), len(toks)]
    if len(cuts) == 2:
        yield starts[0][1], text, toks
        return
    for a, b in zip(cuts, cuts[1:], strict=False):
        if a >= b:
            continue
        first = toks[a].start
        offset, line_no, lead = next(s for s in reversed(starts) if s[0] <= first)
        column = first - offset + lead
        delta = column - first
        piece = " " * column + text[first : toks[b - 1].end]
        yield line_no, piece, [Tok(t.kind, t.text, t.start + delta, t.end + delta, t.value)
                               for t in toks[a:b]]  # fmt: skip


def _op_starts(toks: list[Tok]) -> list[int]:
    """Where further statements begin in one statement's tokens. MLIR has no separator between
    ops: newlines are whitespace, and an op ends where its syntax does, so ``%a = op1 ...
    %b = op2 ...`` on one line is two ops. A new op begins, at the level of its region (not
    inside brackets or an attribute dictionary), at results followed by ``=`` and an op name,
    at an op name of a result-less op, at a quoted generic op name followed by ``(``, or at a
    block label's definition; a ``{`` followed by one of these opens a region written on the
    line (its ops are statements of their own) and its ``}`` closes it."""
    cuts: list[int] = []
    stack: list[str] = []  # open brackets; "r" for a region's brace
    for i, t in enumerate(toks):
        if t.kind == "punct" and t.text in "([{<":
            region = t.text == "{" and _op_begins(toks, i + 1, True)
            stack.append("r" if region else t.text)
            if region:
                cuts.append(i + 1)
            continue
        if t.kind == "punct" and t.text in ")]}>":
            if not stack and t.text == "}" and i > 0:
                cuts.append(i)  # closes a region opened on an earlier line
            elif stack and stack.pop() == "r":
                cuts.append(i)
            continue
        if i > 0 and (not stack or stack[-1] == "r") and (not cuts or cuts[-1] != i):
            if _op_begins(toks, i, False):
                cuts.append(i)
    return sorted(set(c for c in cuts if 0 < c < len(toks)))


def _op_begins(toks: list[Tok], i: int, first: bool) -> bool:
    """An op or block label begins at ``toks[i]`` (``first``: right after a ``{``; elsewhere
    the token before must end the previous op, not lead into this one)."""
    if i >= len(toks):
        return False
    t = toks[i]
    prev = toks[i - 1].text if i > 0 and not first else None
    if prev in (",", "="):
        return False  # inside a result list or an assignment
    if t.kind == "ssa":
        # ``%a, %b:2 = name``, scanned in place: each list is walked once, from its head.
        j = i
        while j < len(toks) and toks[j].kind == "ssa":
            j += 1
            if j + 1 < len(toks) and toks[j].text == ":" and toks[j + 1].kind == "int":
                j += 2
            if j < len(toks) and toks[j].text == ",":
                j += 1
                continue
            break
        return j + 1 < len(toks) and toks[j].text == "=" and _op_name(toks[j + 1]) is not None
    if t.kind == "id" and "." in t.text:
        if prev in (":", "->"):
            return False  # a type
        nxt = toks[i + 1].text if i + 1 < len(toks) else None
        return nxt not in ("=", ",", "}")  # not an attribute's name
    if t.kind == "str" and _GENERIC_NAME.fullmatch(str(t.value)):
        return i + 1 < len(toks) and toks[i + 1].text == "("
    if t.kind == "label":
        return _label_def(toks, i)
    return False


def _label_def(toks: list[Tok], i: int) -> bool:
    """``^bb:`` or ``^bb(%a: t):``: a label's definition, not a branch target."""
    j = i + 1
    if j < len(toks) and toks[j].text == "(":
        depth = 0
        while j < len(toks):
            depth += (toks[j].text == "(") - (toks[j].text == ")")
            j += 1
            if depth == 0:
                break
    return j < len(toks) and toks[j].text == ":"


def _open_depth(toks: list[Tok], depth: int) -> int:
    for t in toks:
        if t.kind == "punct":
            depth += _OPENERS.get(t.text, 0)
    return depth


def read_module(text: str, strict: bool = True) -> Module:
    """Read a TTGIR module; TtgirError (one line) when it is not one.

    ``strict=False`` reads what it can of text that is not quite a module (lint's view of a
    dump): a statement that is not an op is kept as an op named ``?``, a line outside any
    function that is not TTGIR is left out, a function left open at the end is closed there, a
    use never defined keeps its name as written. The plan validator reads strictly."""
    if not isinstance(text, str):
        raise TtgirError("input is not text")
    if "\x00" in text:
        raise TtgirError("binary input, not MLIR text")
    functions: list[Function] = []
    loc_aliases: dict[str, str] = {}
    shared: int | None = None
    warps: int | None = None
    target: str | None = None
    saw_module = False
    planned = False
    fn: Function | None = None
    scopes = _Scopes()
    # (region owner, brace depth at which it closes, results defined when it closes)
    stack: list[tuple[Op | None, int, list[tuple[str, int]] | None]] = []
    depth = 0  # brace depth inside the current function
    seen: set[tuple[int | None, int]] = set()  # regions (owner, index) with a statement
    for line_no, raw, all_toks in _statements(text):
        toks = _without_locs(all_toks)
        blanked = _blanked(raw, all_toks)
        lead = len(blanked) - len(blanked.lstrip())
        stripped = blanked.strip()
        first = toks[0] if toks else all_toks[0]
        if fn is None:
            if first.kind == "hash" and len(toks) > 1 and toks[1].text == "=":
                loc_aliases[first.text] = raw[toks[1].end :].strip()
                continue
            if first.kind == "id" and first.text in ("module", "builtin.module"):
                saw_module = True
                s = _module_int(toks, "ttg.shared")
                if s is not None:
                    shared = s
                w = _module_int(toks, "ttg.num-warps")
                if w is not None:
                    warps = w
                target = _module_str(toks, "ttg.target") or target
                continue
            if first.kind == "id" and first.text in ("tt.func", "func.func"):
                sym = next((t for t in toks if t.kind == "sym"), None)
                if sym is None:
                    if not strict:
                        continue
                    raise TtgirError(f"line {line_no}: a function without a name")
                if not saw_module and strict:
                    raise TtgirError(f"line {line_no}: a function outside any module")
                scopes = _Scopes()
                args = [scopes.define(a) for a in _arg_decls(toks)]
                fn = Function(str(sym.value), line_no, args)
                _int_attrs(toks, line_no, fn.attrs)
                planned = planned or bool(fn.attrs)
                functions.append(fn)
                depth = _balance(toks)
                stack = []
                seen = set()
                if depth <= 0:  # a declaration without a body
                    fn = None
                continue
            if first.text == "}":
                continue
            if first.kind == "id" and first.text.startswith("llvm."):
                continue  # declarations and globals outside functions
            if not strict:
                continue
            raise TtgirError(f"line {line_no}: not TTGIR ({stripped[:40]!r})")
        # Inside a function.
        scopes.line = line_no
        bal = _balance(toks)
        owner = stack[-1][0] if stack else None
        here = (owner.pos if owner else None, owner.regions - 1 if owner else 0)
        if first.text == "}":
            # Closing regions: the text after them belongs to the region's owner (else/do,
            # generic attributes and types); a brace opened after them opens its next region.
            closers = 0
            k = 0
            while k < len(toks) and toks[k].text in ("}", ")"):
                closers += toks[k].text == "}"
                k += 1
            rest_toks = toks[k:]
            rest = _blanked(raw, all_toks)[rest_toks[0].start :] if rest_toks else ""
            new_depth = depth + bal
            for _ in range(closers):
                scopes.pop()
            if owner is not None and rest_toks:
                owner.tail += " " + rest.strip()
                before = len(owner.attrs)
                _int_attrs(rest_toks, line_no, owner.attrs)
                planned = planned or len(owner.attrs) > before
                loc = _own_loc(raw, all_toks)
                if loc:
                    owner.loc_ref = loc
            while stack and new_depth <= stack[-1][1]:
                closed, _, deferred = stack.pop()
                if closed is not None:
                    closed.end = len(fn.ops) - 1
                    if deferred is not None:
                        closed.results = _define_results(scopes, deferred)
            opened = max(0, _balance(rest_toks))
            for _ in range(opened):
                scopes.push()
            if owner is not None and rest_toks:
                declared = [scopes.define(d) for d in _arg_decls(rest_toks)]
                owner.decls += declared
                if opened and stack and stack[-1][0] is owner:
                    owner.regions += 1  # ``} else {``, ``} do {``: the owner's next region
                    owner.region_args.append(declared)
            depth = new_depth
            if depth <= 0:
                if strict:
                    scopes.check_defined()
                fn = None
                stack = []
            continue
        entry = here not in seen  # the first statement of its region
        seen.add(here)
        if first.kind == "id" and (first.text == "default" or _PARTITION.match(first.text)):
            # ``default {`` / ``partitionN(args) num_warps(n) {`` open a region of the
            # warp_specialize op just before them; a partition is isolated from above.
            ws = next((o for o in reversed(fn.ops) if o.name in CONCURRENT_OPS
                       and o.parent == (owner.pos if owner else None)), None)  # fmt: skip
            if ws is None or bal <= 0:
                raise TtgirError(f"line {line_no}: a partition outside ttg.warp_specialize")
            if len(stack) >= MAX_DEPTH:
                raise TtgirError(f"line {line_no}: regions nested deeper than {MAX_DEPTH}")
            scopes.push(isolated=first.text != "default")
            declared = [scopes.define(d) for d in _arg_decls(toks)]
            ws.decls += declared
            ws.regions += 1
            ws.region_args.append(declared)
            stack.append((ws, depth, None))
            depth += bal
            continue
        if first.kind == "label":
            label = Op("^" + first.text[1:], len(fn.ops), line_no, first.start + 1, [], [], [],
                       stripped)  # fmt: skip
            decls = _arg_decls(toks)
            if len(decls) > MAX_RESULTS:
                raise TtgirError(f"line {line_no}: a block with more than {MAX_RESULTS} "
                                 "arguments")  # fmt: skip
            label.decls = [scopes.define(d) for d in decls]
            label.parent, label.region = here
            label.end = label.pos
            if owner is None:
                fn.labels[first.text[1:]] = label.pos
            else:
                owner.decls += label.decls
                if entry:
                    owner.region_args[-1] += label.decls  # the region's entry block
            fn.ops.append(label)
            continue
        found = _results_of(toks)
        results, at = found if found else ([], 0)
        name = _op_name(toks[at]) if at < len(toks) else None
        if name is None:
            if strict:
                raise TtgirError(f"line {line_no}: not an op ({stripped[:40]!r})")
            name, at = "?", at - 1  # read as an op without a name: its values are uses
        col = toks[at].start + 1 + (toks[at].kind == "str") if at >= 0 else first.start + 1
        body = toks[at + 1 :]
        op = Op(name, len(fn.ops), line_no, col, [], [], [], stripped)
        op.name_end = (toks[at].end if at >= 0 else first.start) - lead
        op.symbols = [str(t.value) for t in body if t.kind == "sym"]
        if name == "tt.call" or name.endswith(".call"):
            op.callee = op.symbols[0] if op.symbols else None
        _int_attrs(body, line_no, op.attrs)
        planned = planned or bool(op.attrs)
        op.loc_ref = _own_loc(raw, all_toks)
        op.parent, op.region = here
        op.end = op.pos
        # Values this statement declares for its regions (``%i = %lb``, ``iter_args(%a =
        # %b)``); a warp_specialize declares ``%x: type`` too.
        declared = set() if name in BRANCHES else {
            i for i, t in enumerate(body[:-1]) if t.kind == "ssa" and body[i + 1].text == "="
        }  # fmt: skip
        if name in CONCURRENT_OPS:
            declared |= {i for i, t in enumerate(body[:-1])
                         if t.kind == "ssa" and body[i + 1].text == ":"}  # fmt: skip
        decl_at = sorted(declared)
        decl_raw = [body[i].text for i in decl_at]
        use_at: dict[int, int] = {}
        for i, t in enumerate(body):
            if t.kind == "ssa" and i not in declared:
                use_at[i] = len(op.uses)
                scopes.use(t.text, op.uses)
        op.init_uses = [use_at.get(i + 2, -1) for i in decl_at]
        if name in BRANCHES:
            op.targets = [t.text[1:] for t in body if t.kind == "label"]
            op.succ_uses = _successor_operands(body, use_at)
        fn.ops.append(op)
        if bal > 0:
            if len(stack) >= MAX_DEPTH:
                raise TtgirError(f"line {line_no}: regions nested deeper than {MAX_DEPTH}")
            for _ in range(bal):
                scopes.push()
            op.decls = [scopes.define(d) for d in decl_raw]
            op.regions = 1
            op.region_args.append(list(op.decls))
            stack.append((op, depth, results))  # results are defined when its regions close
            depth += bal
        elif bal < 0:
            raise TtgirError(f"line {line_no}: unbalanced braces")
        else:
            op.decls = [scopes.define(d) for d in decl_raw]
            op.results = _define_results(scopes, results)
    if fn is not None:
        if strict:
            raise TtgirError(f"function @{fn.name} is not closed")
        for closed, _, deferred in reversed(stack):  # close what the text left open
            if closed is not None:
                closed.end = len(fn.ops) - 1
                if deferred is not None:
                    closed.results = _define_results(scopes, deferred)
    if not saw_module and (strict or not functions):
        raise TtgirError("no module found")
    return Module(functions, shared, warps, loc_aliases, planned, saw_module, target)


def _successor_operands(body: list[Tok], use_at: dict[int, int]) -> list[list[int]]:
    """For each ``^label`` of a branch, the uses passed to it: the values inside the
    parentheses right after it, before their ``:`` types."""
    out: list[list[int]] = []
    for i, t in enumerate(body):
        if t.kind != "label":
            continue
        got: list[int] = []
        if i + 1 < len(body) and body[i + 1].text == "(":
            depth = 0
            typed = False
            for j in range(i + 1, len(body)):
                b = body[j]
                if b.kind == "punct" and b.text in "([{<":
                    depth += 1
                elif b.kind == "punct" and b.text in ")]}>":
                    depth -= 1
                    if depth == 0:
                        break
                elif b.text == ":" and depth == 1:
                    typed = True
                elif b.kind == "ssa" and not typed and j in use_at:
                    got.append(use_at[j])
        out.append(got)
    return out


def _define_results(scopes: _Scopes, results: list[tuple[str, int]]) -> list[str]:
    out: list[str] = []
    for raw, n in results:
        uid = scopes.define(raw, n)
        out += [uid] if n == 1 else [f"{uid}#{i}" for i in range(n)]
    return out
