"""mbarrier phases, for the race check: which waits complete a TMA load (``races.py``).

A TMA load (``cp.async.bulk...mbarrier::complete_tx::bytes``) writes its box asynchronously
and, as its bytes land, takes them off the transaction count of its mbarrier. An mbarrier's
phase completes when its pending arrivals (``mbarrier.init``'s count, taken off by each
``mbarrier.arrive``) and its transaction count (raised by ``arrive.expect_tx``) are both zero;
the phase number then grows by one. ``mbarrier.try_wait.parity P`` returns once the phase of
parity P is complete, which is the current phase or the one just before it: P names the
current phase's parity to wait for it, the other parity to return at once.

What is followed, per mbarrier (its address a constant): one ``init`` outside loops, then its
arrivals, TMA loads and waits in a chain (each dominating the next) before a loop, and in one
outermost loop with one back edge, each in a block that dominates that back edge (run on
every iteration). Every arrive and every TMA load is run by at most one thread (proved over
two thread ids; ``elect.sync`` elects one lane of its warp), every wait by each thread that
gets there (no predicate; its retry loop in the asm). The operations are cut into *rounds*:
a round's arrivals add up to the init count, its ``expect_tx`` bytes to its TMA loads' boxes,
and a wait on the round's own phase closes it (the phase is then complete, and with it every
box of the round: the phase cannot complete before its last byte lands, nor take bytes of the
next round, whose loads are issued only after this wait). A wait on the other parity returns
at once while the round's loads are in flight: it orders nothing. In the loop, round r of
iteration n is phase K + n * R + r (K rounds before the loop, R in each iteration); a wait's
parity operand is proved equal to that phase's parity, or to the other one, for every n (the
loop counter ``start + n * step``). Anything else (an arrive or wait the chain does not
place, a count or a byte total that does not add up, an operation this reader does not parse,
a parity not proved either way) leaves the mbarrier not followed, with the reason: its TMA
loads stay not judged (a note), never clean.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import z3

from alias_spec.ir.llir import Function, Instruction
from alias_spec.plan.evaluator import Evaluator
from alias_spec.plan.guards import dominators
from alias_spec.plan.hopper import MBARRIER_BYTES
from alias_spec.plan.taint import back_edges
from alias_spec.plan.terms import WIDTH, Access, fit

PROOF_TIMEOUT_MS = 2_000  # one parity proof
# A TMA load, or a plain bulk copy, into shared memory that completes on an mbarrier.
_LOAD = re.compile(r"^cp\.async\.bulk\.(?:tensor\.\d+d\.)?shared::(?:cluster|cta)\.global\.")
_STATEMENT = re.compile(r"^(?:[{}]\s*|[\w$]+:\s*)+")
_BRACKET = re.compile(r"\[\s*\$(\d+)\s*(?:\+\s*(\d+)\s*)?\]")


@dataclass
class _Op:
    index: int  # the instruction
    what: str  # "init", "arrive", "wait", "inval", "load"
    barrier: int  # the mbarrier's byte offset from @global_smem
    count: int = 0  # init: arrivals a phase needs; arrive: arrivals it gives
    tx: int = 0  # arrive.expect_tx: bytes expected; load: bytes of its box
    parity: z3.BitVecRef | None = None  # wait


@dataclass
class Phases:
    """The mbarriers of one function. ``closing``: the waits that complete the TMA loads of the
    round they close, by mbarrier; ``loads``: TMA load instruction -> its followed mbarrier;
    ``roles``: what each followed mbarrier operation does to its mbarrier's 8 bytes ("write":
    init, inval; "atomic": arrive, wait, a load's completion), and which; ``not_followed``:
    mbarrier -> why (its loads are not judged); ``everything``: why none is followed, if so."""

    closing: dict[int, set[int]] = field(default_factory=dict)
    loads: dict[int, int] = field(default_factory=dict)
    roles: dict[int, tuple[str, int]] = field(default_factory=dict)
    not_followed: dict[int, str] = field(default_factory=dict)
    everything: str = ""


OneThread = Callable[[Access], bool]


def statements(text: str) -> list[str]:
    """The PTX statements of an inline asm text (decoded), labels and braces stripped, its
    directives (``.reg``) dropped; a predicate (``@p``) stays on its statement."""
    out = []
    for s in re.split(r"[;\n]", re.sub(r"//[^\n]*", "", text)):
        s = _STATEMENT.sub("", s.strip()).strip()
        if s and not s.startswith("."):
            out.append(s)
    return out


def _constant(e: z3.ExprRef) -> int | None:
    v = z3.simplify(e)
    return v.as_long() if z3.is_bv_value(v) else None  # type: ignore[attr-defined]


class _Reader:
    """The mbarrier operations of one instruction (inline PTX)."""

    def __init__(self, ins: Instruction, ev: Evaluator) -> None:
        assert ins.callee is not None
        self.ins, self.ev = ins, ev
        self.text = ins.callee.text
        self.outputs = sum(1 for c in ins.callee.constraints.split(",")
                           if c.strip().startswith("="))  # fmt: skip

    def arg(self, token: str) -> z3.ExprRef | None:
        """An operand's term: ``$k`` or a literal."""
        token = token.strip()
        if re.fullmatch(r"\d+|0x[0-9a-fA-F]+", token):
            return z3.BitVecVal(int(token, 0), WIDTH)
        m = re.fullmatch(r"\$(\d+)", token)
        i = int(m.group(1)) - self.outputs if m else -1
        if not 0 <= i < len(self.ins.operands):
            return None
        return self.ev.operand(self.ins.operands[i]).expr

    def address(self, bracket: re.Match[str]) -> int | None:
        e = self.arg("$" + bracket.group(1))
        if e is None or not isinstance(e, z3.BitVecRef):
            return None
        off = _constant(fit(e, WIDTH))
        return None if off is None else off + int(bracket.group(2) or 0)

    def ops(self) -> list[_Op] | str:
        """The instruction's mbarrier operations, or why they are not read."""
        out: list[_Op] = []
        for s in statements(self.text):
            predicated = s.startswith("@")  # ``@$k`` or ``@!$k``: some threads only
            body = s.split(None, 1)[1] if predicated and len(s.split(None, 1)) > 1 else s
            name = body.split()[0] if body.split() else ""
            load = bool(_LOAD.match(name)) and "mbarrier::complete_tx" in name
            if not (name.startswith("mbarrier.") or load):
                if "mbarrier" in name:
                    return f"{name} is not followed"
                continue
            brackets = list(_BRACKET.finditer(body))
            if not brackets:
                return f"{name} on an address not read here"
            bar = self.address(brackets[-1])
            if bar is None:
                return f"{name} on an mbarrier whose address is not a constant"
            rest = [t for t in body[brackets[-1].end() :].split(",") if t.strip()]
            op = self._op(name, bar, rest, predicated, s)
            if isinstance(op, str):
                return op
            out.append(op)
        return out

    def _op(self, name: str, bar: int, rest: list[str], predicated: bool,
            statement: str) -> _Op | str:  # fmt: skip
        idx = self.ins.index
        if "::cluster" in name and not _LOAD.match(name):
            return f"{name}: another CTA's mbarrier"
        if _LOAD.match(name):
            return _Op(idx, "load", bar)
        if name.startswith("mbarrier.init"):
            c = _constant(self.arg(rest[0])) if len(rest) == 1 else None  # type: ignore[arg-type]
            return _Op(idx, "init", bar, count=c) if c else f"{name} with a count not read here"
        if name.startswith("mbarrier.inval"):
            return _Op(idx, "inval", bar)
        if name.startswith("mbarrier.arrive") and ".noComplete" not in name:
            n = [self.arg(t) for t in rest]
            if any(v is None for v in n) or len(n) > 1:
                return f"{name} with operands not read here"
            value = _constant(n[0]) if n else 1  # type: ignore[arg-type]
            if value is None:
                return f"{name} with a count not a constant"
            if ".expect_tx" in name:
                return _Op(idx, "arrive", bar, count=1, tx=value)
            return _Op(idx, "arrive", bar, count=value)
        if name.startswith(("mbarrier.try_wait.parity", "mbarrier.test_wait.parity")):
            if predicated:
                return f"{name} run by some threads only (a predicate)"
            dst = statement.split()[1].rstrip(",") if len(statement.split()) > 1 else ""
            retry = re.search(rf"@!\s*{re.escape(dst)}\s+bra(?:\.uni)?\s+(\w+)", self.text)
            if not dst or retry is None or retry.group(1) + ":" not in self.text:
                # A single try returns its result to LLVM code: the loop is not followed there.
                return f"{name} without its retry loop (its result is not followed)"
            p = self.arg(rest[0]) if rest else None
            if not isinstance(p, z3.BitVecRef):
                return f"{name} with a parity not read here"
            return _Op(idx, "wait", bar, parity=p)
        return f"{name} is not followed"


def _loops(fn: Function) -> tuple[dict[int, set[int]], dict[int, list[int]]]:
    """Each loop header's blocks (its natural loop) and its back edges' sources."""
    preds: dict[int, list[int]] = {}
    for b in fn.blocks:
        if b.instructions:
            for n in fn.instructions[b.instructions[-1]].targets:
                preds.setdefault(n, []).append(b.index)
    bodies: dict[int, set[int]] = {}
    latches: dict[int, list[int]] = {}
    for latch, header in back_edges(fn):
        body = bodies.setdefault(header, {header})
        latches.setdefault(header, []).append(latch)
        todo = [latch]
        while todo:
            b = todo.pop()
            if b not in body:
                body.add(b)
                todo.extend(preds.get(b, []))
    return bodies, latches


class _Order:
    """Dominance between the instructions of one function."""

    def __init__(self, fn: Function) -> None:
        self.fn = fn
        self.idom = dominators(fn)
        self.depth: dict[int, int] = {}
        for b in self.idom:
            d, x = 0, b
            while x != self.idom[x]:
                d, x = d + 1, self.idom[x]
            self.depth[b] = d
        self.pos = {i: k for blk in fn.blocks for k, i in enumerate(blk.instructions)}

    def blocks(self, a: int, b: int) -> bool:
        """Block ``a`` dominates block ``b``."""
        while b in self.idom:
            if a == b:
                return True
            if self.idom[b] == b:
                return False
            b = self.idom[b]
        return False

    def dominates(self, i: int, j: int) -> bool:
        """Instruction ``i`` runs before ``j`` on every path to ``j``."""
        bi, bj = self.fn.instructions[i].block, self.fn.instructions[j].block
        return self.pos[i] < self.pos[j] if bi == bj else self.blocks(bi, bj)

    def key(self, i: int) -> tuple[int, int]:
        return self.depth.get(self.fn.instructions[i].block, -1), self.pos[i]


def _proved(claim: z3.BoolRef) -> bool:
    s = z3.Solver()
    s.set("timeout", PROOF_TIMEOUT_MS)
    s.add(z3.Not(claim))
    return s.check() == z3.unsat


@dataclass
class _Round:
    phase: z3.BitVecRef  # the phase number (mod 2 is what a wait names)
    arrivals: int = 0
    expected: int = 0
    landed: int = 0  # bytes of the round's TMA loads

    def closed(self) -> bool:
        return self.arrivals == self.expected == self.landed == 0


def _run(ops: list[_Op], count: int, rnd: _Round, phase_of: Callable[[int], z3.BitVecRef],
         subst: list[tuple[z3.ExprRef, z3.ExprRef]],
         closing: set[int]) -> tuple[int, _Round] | str:  # fmt: skip
    """Follow one chain of operations from the round ``rnd``; ``phase_of(r)``: the phase of
    the chain's r-th round. Returns the rounds closed and the open one, or why not followed."""
    r = 0
    for op in ops:
        if op.what == "arrive":
            rnd.arrivals += op.count
            rnd.expected += op.tx
            if rnd.arrivals > count:
                return "more arrivals than its count before a wait on the phase"
        elif op.what == "load":
            rnd.landed += op.tx
        elif op.what == "wait":
            assert op.parity is not None
            p = z3.substitute(fit(op.parity, WIDTH), *subst) if subst else fit(op.parity, WIDTH)
            own = phase_of(r) & 1
            if _proved(p == own):
                if rnd.arrivals != count or rnd.expected != rnd.landed:
                    return (
                        "a wait on a phase whose arrivals or expected bytes do not add up "
                        "to its count and its TMA loads' boxes"
                    )
                closing.add(op.index)
                r += 1
                rnd = _Round(phase_of(r))
            elif not _proved(p == own ^ 1):
                return "a wait whose parity is not proved to be one phase's or the other's"
    return r, rnd


def _induction(fn: Function, ev: Evaluator, header: int, latch: int,
               n: z3.BitVecRef) -> list[tuple[z3.ExprRef, z3.ExprRef]]:  # fmt: skip
    """Each counter of the loop (a header phi start + k * step, both constants) as its
    value in iteration ``n``."""
    out: list[tuple[z3.ExprRef, z3.ExprRef]] = []
    for i in fn.blocks[header].instructions:
        ins = fn.instructions[i]
        if ins.opcode != "phi" or len(ins.incoming) != 2 or latch not in ins.incoming:
            continue
        var = ev.value(i, WIDTH).expr
        if not isinstance(var, z3.BitVecRef):
            continue
        vals = [ev.operand(o, var.size()).expr for o in ins.operands]
        k = ins.incoming.index(latch)
        start, nxt = vals[1 - k], vals[k]
        if not isinstance(start, z3.BitVecRef) or not isinstance(nxt, z3.BitVecRef):
            continue
        c0 = _constant(start)
        step = _constant(fit(nxt, var.size()) - var)
        if c0 is not None and step is not None:
            out.append((var, fit(c0 + n * step, var.size())))
    return out


def _follow(bar: int, ops: list[_Op], fn: Function, ev: Evaluator, order: _Order,
            loops: tuple[dict[int, set[int]], dict[int, list[int]]],
            phases: Phases) -> str | None:  # fmt: skip
    """Classify one mbarrier's waits (into ``phases.closing``); why not, if not."""
    inits = [o for o in ops if o.what == "init"]
    if len(inits) != 1:
        return f"{len(inits)} mbarrier.init of it in the function"
    bodies, latches = loops
    outer = {h for h in bodies if not any(h in b and h != o for o, b in bodies.items())}

    def loop_of(op: _Op) -> int | None:
        b = fn.instructions[op.index].block
        found = [h for h, body in bodies.items() if b in body]
        return found[0] if len(found) == 1 else (-1 if found else None)

    chain = [o for o in ops if o.what != "inval"]
    before = sorted((o for o in chain if loop_of(o) is None), key=lambda o: order.key(o.index))
    inside = sorted((o for o in chain if loop_of(o) is not None),
                    key=lambda o: order.key(o.index))  # fmt: skip
    if not before or before[0].what != "init":
        return "its mbarrier.init does not come first"
    for a, b in zip(before, before[1:], strict=False):
        if not order.dominates(a.index, b.index):
            return "operations on it outside loops that do not all run in one order"
    closing: set[int] = set()
    init = before[0]
    done = _run(before[1:], init.count, _Round(z3.BitVecVal(0, WIDTH)),
                lambda r: z3.BitVecVal(r, WIDTH), [], closing)  # fmt: skip
    if isinstance(done, str):
        return done
    k, rnd = done
    if inside:
        header = loop_of(inside[0])
        if header is None or header < 0 or header not in outer:
            return "operations on it in a nested loop"
        if any(loop_of(o) != header for o in inside) or len(latches[header]) != 1:
            return "operations on it in more than one loop, or a loop with several back edges"
        latch = latches[header][0]
        last = fn.blocks[latch].instructions[-1]
        if not rnd.closed() or any(not order.dominates(o.index, last) and o.index != last
                                   for o in inside):  # fmt: skip
            return "operations on it in the loop that do not run on every iteration"
        if not all(order.dominates(o.index, fn.blocks[header].instructions[0])
                   or fn.instructions[o.index].block == header for o in before):  # fmt: skip
            return "operations on it after the loop"
        n = z3.BitVec("iteration", WIDTH)
        subst = _induction(fn, ev, header, latch, n)
        found = []
        for odd in (0, 1):
            got: set[int] = set()

            def phase(r: int, odd: int = odd) -> z3.BitVecRef:
                return z3.BitVecVal(k + r, WIDTH) + n * odd

            res = _run(inside, init.count, _Round(phase(0)), phase, subst, got)
            if not isinstance(res, str) and res[0] % 2 == odd and res[1].closed():
                found.append(got)
        if len(found) != 1:
            return "its phases in the loop are not followed (rounds not closed in an iteration)"
        closing |= found[0]
    phases.closing[bar] = closing
    return None


def follow(fn: Function, found: list[Access], ev: Evaluator, one_thread: OneThread,
           blocked: str = "") -> Phases:  # fmt: skip
    """The mbarriers of ``fn`` and the waits that complete its TMA loads. ``one_thread``: the
    access is made by at most one thread; ``blocked``: why none is followed (calls, accesses
    not read), if so."""
    phases = Phases()
    ops: list[_Op] = []
    for ins in fn.instructions:
        text = ins.callee.text if ins.callee is not None and ins.callee.kind == "asm" else ""
        name = ins.callee.name if ins.callee is not None else ""
        if "mbarrier" in name:
            phases.everything = f"@{name} at LLVM IR line {ins.line} is not followed"
        elif "mbarrier" in text:
            got = _Reader(ins, ev).ops()
            if isinstance(got, str):
                phases.everything = f"{got} (LLVM IR line {ins.line})"
            else:
                ops.extend(got)
        if phases.everything:
            break
    phases.everything = phases.everything or blocked
    by_bar: dict[int, list[_Op]] = {}
    for op in ops:
        by_bar.setdefault(op.barrier, []).append(op)
    if phases.everything:
        phases.not_followed = dict.fromkeys(by_bar, phases.everything)
        return phases
    line_of = {ins.line: ins.index for ins in reversed(fn.instructions)}
    by_ins: dict[int, list[Access]] = {}
    for a in found:
        if a.line in line_of:
            by_ins.setdefault(line_of[a.line], []).append(a)
    order, loops = _Order(fn), _loops(fn)
    bars = sorted(by_bar)
    for bar in bars:
        why = None
        if any(0 < abs(bar - o) < MBARRIER_BYTES for o in bars):
            why = "another mbarrier overlaps it"
        for op in by_bar[bar]:
            accs = by_ins.get(op.index, [])
            own = [a for a in accs if _constant(a.addr.expr) == bar]
            if op.what == "load":
                boxes = [a for a in accs if a.kind.endswith("-byte box)") and a.size]
                op.tx = boxes[0].size if len(boxes) == 1 and boxes[0].size else 0
                if not op.tx:
                    why = why or f"the box of its TMA load at LLVM IR line " \
                                 f"{fn.instructions[op.index].line} is not known"  # fmt: skip
            if len(own) != 1:
                why = why or f"its operation at LLVM IR line {fn.instructions[op.index].line} " \
                             "is not one access of it"  # fmt: skip
            elif op.what in ("arrive", "load") and not one_thread(own[0]):
                why = why or f"the {op.what} at LLVM IR line {fn.instructions[op.index].line} " \
                             "is not proved to be made by one thread"  # fmt: skip
        why = why or _follow(bar, by_bar[bar], fn, ev, order, loops, phases)
        if why:
            phases.not_followed[bar] = why
            continue
        for op in by_bar[bar]:
            phases.roles[op.index] = ("write" if op.what in ("init", "inval") else "atomic", bar)
            if op.what == "load":
                phases.loads[op.index] = bar
    return phases
