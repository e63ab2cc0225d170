"""Reading what lint and the plan validator need out of TTGIR text, without MLIR.

Only the structure that shared-memory liveness depends on is read: functions, their ops in
textual order (each op's results, the SSA names it uses and the block arguments it declares),
the regions an op owns (so that loops, branches and warp-specialize partitions are known),
``cf`` block labels and branches, the ``allocation.offset`` / ``allocation.size`` attributes
and the module's ``ttg.shared``, and each op's kernel source location.

Every op, block label and region terminator gets a position: its index in the function's
textual order. Liveness (``liveness.py``) works on those positions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Bounds no real dump comes near; past them the text is rejected (exit 2) so that reading
# stays linear and memory stays bounded.
MAX_DEPTH = 256
MAX_LINE = 1_000_000

_NAME = re.compile(r"%[\w.$-]+")
_FUNC = re.compile(r'^\s*(?:tt\.func|func\.func)\b[^@]*@("(?:[^"\\]|\\.)*"|[\w.$-]+)')
_RESULTS = re.compile(r'^\s*(%[\w.$-]+(?::\d+)?(?:\s*,\s*%[\w.$-]+(?::\d+)?)*)\s*=\s*"?([\w.]+)"?')
_BARE = re.compile(r'^\s*"?([a-z_][\w]*\.[\w.]+)"?')
_LABEL = re.compile(r"^\s*\^([\w.$-]+)")
_ALIAS = re.compile(r"^\s*(#[\w.$-]+)\s*=\s*(.*)$")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_LOC_TAIL = re.compile(r"\bloc\(")
_DECL = re.compile(r"(%[\w.$-]+)\s*:(?!:)")
_DEF_EQ = re.compile(r"(%[\w.$-]+)\s*=(?!=)")
_INT_ATTR = re.compile(r"\b(allocation\.offset|allocation\.size)\s*=\s*(-?\d+)\s*(?::\s*i\d+)?")
_SHARED = re.compile(r"\bttg\.shared\s*=\s*(-?\d+)\s*(?::\s*i\d+)?")
_WARPS = re.compile(r'"ttg\.num-warps"\s*=\s*(\d+)')
_FILE_LOC = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')
_LOC_REF = re.compile(r"#loc\d*[\w.$-]*")
_BRANCH_TARGET = re.compile(r"\^([\w.$-]+)")
_WS_REGION = re.compile(r"^\s*(?:default|partition\d+)\b")

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


class TtgirError(ValueError):
    """Text that is not a TTGIR module this reader understands (one line)."""


@dataclass
class Op:
    name: str
    pos: int
    line: int  # 1-based
    column: int  # 1-based column of the op name
    results: list[str]
    uses: list[str]
    decls: list[str]  # block arguments and region arguments this statement declares
    head: str  # the statement text up to its region (types and attributes included)
    tail: str = ""  # text after the op's regions close (generic ops: attributes, types)
    attrs: dict[str, int] = field(default_factory=dict)
    loc_ref: str | None = None
    parent: int | None = None  # position of the op owning the region this op is in
    end: int = -1  # position of the last statement inside this op's regions (pos if none)
    targets: list[str] = field(default_factory=list)  # branch targets (cf)

    @property
    def text(self) -> str:
        return self.head + (" " + self.tail if self.tail else "")

    def result_types(self) -> str:
        """The type part that holds the results (after the last ``->``, else after ``:``)."""
        text = _strip_loc(self.text)
        if "->" in text:
            return text.rsplit("->", 1)[1]
        return text.split(" : ", 1)[1] if " : " in text else ""


@dataclass
class Function:
    name: str
    line: int
    args: list[str]
    ops: list[Op] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)  # label -> position


@dataclass
class Module:
    functions: list[Function]
    shared: int | None
    num_warps: int | None
    loc_aliases: dict[str, str]

    def function(self, name: str) -> Function | None:
        return next((f for f in self.functions if f.name == name), None)

    def source(self, op: Op) -> str | None:
        """The op's kernel source location as ``file:line:col``, if the dump has one."""
        return resolve_loc(op.loc_ref, self.loc_aliases)


def _strip_loc(text: str) -> str:
    """The text without any ``loc(...)`` group (they may sit inside argument lists)."""
    out = []
    i = 0
    for m in _LOC_TAIL.finditer(text):
        if m.start() < i:
            continue
        out.append(text[i : m.start()])
        depth = 0
        j = m.end() - 1
        while j < len(text):
            if text[j] == "(":
                depth += 1
            elif text[j] == ")":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        i = j + 1
    out.append(text[i:])
    return "".join(out)


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


def _balance(text: str) -> int:
    return text.count("{") - text.count("}")


def _loc_of(text: str) -> str | None:
    """The op's own trailing location: the last top-level ``loc(...)`` of the statement."""
    idx = text.rfind(" loc(")
    if idx < 0:
        return None
    inner = text[idx + 5 :]
    depth = 1
    for i, ch in enumerate(inner):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return inner[:i].strip()
    return None


def _results(text: str) -> list[str]:
    out = []
    for part in text.split(","):
        name = part.strip().split(":")[0]
        out.append(name)
    return out


def _blank(m: re.Match[str]) -> str:
    """A string literal emptied, except a generic op name (``"tt.reduce"``)."""
    text = m.group(0)
    if re.fullmatch(r'"[a-z_]\w*\.[\w.]+"', text):
        return text
    return '"' + " " * (len(text) - 2) + '"'


def _clean(line: str) -> str:
    """Strings replaced by blanks of the same length (braces and ``%`` inside them are not
    structure), comments cut."""
    line = _STRING.sub(_blank, line)
    cut = line.find("//")
    return line[:cut] if cut >= 0 else line


def read_module(text: str) -> Module:
    """Read a TTGIR module; TtgirError (one line) when it is not one."""
    if not isinstance(text, str):
        raise TtgirError("input is not text")
    functions: list[Function] = []
    loc_aliases: dict[str, str] = {}
    shared: int | None = None
    warps: int | None = None
    saw_module = False
    fn: Function | None = None
    stack: list[tuple[Op | None, int]] = []  # (region owner, brace depth at which it closes)
    depth = 0  # brace depth inside the current function
    for line_no, raw in enumerate(text.splitlines(), start=1):
        if len(raw) > MAX_LINE:
            raise TtgirError(f"line {line_no} is longer than {MAX_LINE} characters")
        clean = _clean(raw)
        stripped = clean.strip()
        if not stripped:
            continue
        if fn is None:
            m = _ALIAS.match(raw)
            if m and stripped.startswith("#"):
                loc_aliases[m.group(1)] = m.group(2).strip()
                continue
            if stripped.startswith("module"):
                saw_module = True
                s = _SHARED.search(_strip_loc(clean))
                if s:
                    shared = int(s.group(1))
                w = _WARPS.search(raw)
                if w:
                    warps = int(w.group(1))
                continue
            fm = _FUNC.match(raw)
            if fm:
                if not saw_module:
                    raise TtgirError(f"line {line_no}: a function outside any module")
                name = fm.group(1).strip('"')
                fn = Function(name, line_no, _DECL.findall(_strip_loc(clean)))
                functions.append(fn)
                depth = _balance(_strip_loc(clean))
                stack = []
                if depth <= 0:  # a declaration without a body
                    fn = None
                continue
            if stripped.startswith("}") or stripped.startswith("{-#") or stripped.startswith("#-}"):
                continue
            if stripped.startswith(("llvm.", "tt.func", "func.func")):
                continue  # declarations and globals outside functions
            raise TtgirError(f"line {line_no}: not TTGIR ({stripped[:40]!r})")
        # Inside a function.
        bal = _balance(_strip_loc(clean) if not stripped.startswith("}") else clean)
        owner = stack[-1][0] if stack else None
        if stripped.startswith("}"):
            # Closing a region: the text after it belongs to the region's owner (else/do,
            # partitions with their arguments, generic attributes and types).
            new_depth = depth + _balance(clean)
            rest = stripped.lstrip("})").strip()
            if owner is not None and rest:
                owner.tail += " " + rest
                owner.decls += _DECL.findall(_strip_loc(rest))
                for k, v in _INT_ATTR.findall(_strip_loc(rest)):
                    owner.attrs[k] = int(v)
                loc = _loc_of(raw.strip())
                if loc:
                    owner.loc_ref = loc
            while stack and new_depth <= stack[-1][1]:
                closed = stack.pop()[0]
                if closed is not None:
                    closed.end = len(fn.ops) - 1
            depth = new_depth
            if depth <= 0:
                fn = None
                stack = []
            continue
        if _WS_REGION.match(clean):
            # ``default {`` / ``partitionN(args) num_warps(n) {`` open a region of the
            # warp_specialize op just before them.
            ws = next((o for o in reversed(fn.ops) if o.name in CONCURRENT_OPS
                       and o.parent == (owner.pos if owner else None)), None)  # fmt: skip
            if ws is None or bal <= 0:
                raise TtgirError(f"line {line_no}: a partition outside ttg.warp_specialize")
            ws.decls += _DECL.findall(_strip_loc(clean))
            if len(stack) >= MAX_DEPTH:
                raise TtgirError(f"line {line_no}: regions nested deeper than {MAX_DEPTH}")
            stack.append((ws, depth))
            depth += bal
            continue
        lm = _LABEL.match(clean)
        if lm:
            label = Op("^" + lm.group(1), len(fn.ops), line_no, clean.index("^") + 1, [], [],
                       _DECL.findall(_strip_loc(clean)), stripped)  # fmt: skip
            label.parent = owner.pos if owner else None
            label.end = label.pos
            if owner is None:
                fn.labels[lm.group(1)] = label.pos
            else:
                owner.decls += label.decls
            fn.ops.append(label)
            continue
        rm = _RESULTS.match(clean)
        if rm:
            results = _results(rm.group(1))
            name = rm.group(2)
            col = clean.index(name, rm.start(2)) + 1
            after = clean[rm.end(2) :]
        else:
            bm = _BARE.match(clean)
            if not bm:
                raise TtgirError(f"line {line_no}: not an op ({stripped[:40]!r})")
            results = []
            name = bm.group(1)
            col = bm.start(1) + 1
            after = clean[bm.end(1) :]
        body = _strip_loc(after)
        if name in BRANCHES:
            decls: list[str] = []
        else:
            decls = [n for n in _DEF_EQ.findall(body)] + (
                _DECL.findall(body) if name in CONCURRENT_OPS else []
            )
        uses = [n for n in _NAME.findall(body) if n not in decls]
        op = Op(name, len(fn.ops), line_no, col, results, uses, decls, stripped)
        op.attrs = {k: int(v) for k, v in _INT_ATTR.findall(body)}
        op.loc_ref = _loc_of(raw.strip())
        op.parent = owner.pos if owner else None
        op.end = op.pos
        if name in BRANCHES:
            op.targets = _BRANCH_TARGET.findall(body)
        fn.ops.append(op)
        if bal > 0:
            if len(stack) >= MAX_DEPTH:
                raise TtgirError(f"line {line_no}: regions nested deeper than {MAX_DEPTH}")
            stack.append((op, depth))
            depth += bal
        elif bal < 0:
            raise TtgirError(f"line {line_no}: unbalanced braces")
    if fn is not None:
        raise TtgirError(f"function @{fn.name} is not closed")
    if not saw_module:
        raise TtgirError("no module found")
    return Module(functions, shared, warps, loc_aliases)
