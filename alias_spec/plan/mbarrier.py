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
loads stay not judged (a note), never clean. A loop's phis enter these proofs as closed forms
of the iteration number where ``ring.py`` proves them (counters, and a ring's slot and phase).

Rings (``_follow_ring``): operations whose mbarrier address is computed (``bars.index(i % N)``,
or a slot carried in a phi) are followed when they lie in one outermost loop with one back
edge and each address is, through those closed forms, a function of the iteration number n
that lands on one of the initialised mbarriers (proved over n). Their mbarriers' other
operations are outside loops: init, then rounds before the loop, at most one left open on
each (one arrive, its count and bytes adding up). In the loop: one wait, run on every
iteration, and one round per iteration: one arrive and TMA loads on one mbarrier P(n) (a
load split over warps counts each warp's box). Proved, each over a symbolic n: every load
comes with its iteration's arrive (some thread meets the arrive's condition whenever a load's
holds), and an arrive in iteration n + 1 means one in n (the rounds run on a prefix of the
iterations, after those before the loop); P takes its mbarriers in turn with a period S; so
the round of iteration i is round ``K(P(i)) + i / S`` of its mbarrier (K: the rounds before
the loop on it). The wait in iteration n + d, for the one d below S with Q(n + d) = P(n), is
on that mbarrier, and its parity is proved equal to that round's phase parity: it retires
the loads of iteration n (the next round on that mbarrier is issued S > d iterations on, by
a thread that made this wait first). A round left open before the loop is retired by the
wait of the first d iterations on its mbarrier with its parity. Where an iteration must run
for a claim (a slot narrowed to the trip count), the loop's exit conditions say which do.
Anything else (a wait on another mbarrier, a parity proved the other one or not proved, an
address that may leave the ring, a load with no arrive) leaves every mbarrier of the ring not
followed, with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import z3

from alias_spec.ir.llir import Function, Instruction
from alias_spec.plan.evaluator import Evaluator, free_vars
from alias_spec.plan.guards import dominators
from alias_spec.plan.hopper import MBARRIER_BYTES
from alias_spec.plan.ring import (
    MAX_SLOTS,
    Subst,
    at,
    closed_forms,
    constant,
    elected,
    iteration,
    last_iteration,
    proved,
    some_thread,
    within,
)
from alias_spec.plan.ring import runs as iteration_runs
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
    addr: z3.BitVecRef | None = None  # a computed address (a ring's slot): ``barrier`` is -1
    cond: z3.BoolRef | None = None  # the access happens only when this holds (its predicate)


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
    ring: Ring | None = None  # the ring of mbarriers followed, if any
    # Each computed (ring) operation's access of its mbarrier (the one its role is of).
    ring_ops: dict[int, Access] = field(default_factory=dict)


@dataclass(frozen=True)
class RingLoad:
    """A TMA load on a ring, retired by the ring's ``wait`` in the iteration ``shift`` after
    the load's own (``inside``), or, for a load before the loop, in iteration ``shift``."""

    wait: int
    shift: int
    inside: bool


@dataclass
class Ring:
    """A ring of mbarriers followed in the loop of ``header`` (its blocks: ``body``): its loads,
    the closed forms of the loop's phis in the iteration number (``ring.py``), and when an
    iteration runs to its back edge."""

    header: int
    body: set[int]
    forms: Subst
    alive: z3.BoolRef  # iteration n reached its back edge (no exit taken)
    last: int | None  # the last iteration the loop may run, where a constant
    loads: dict[int, RingLoad] = field(default_factory=dict)


# How many threads at most make an access each time its instruction runs (0: not bounded).
Issuers = Callable[[Access], int]


def statements(text: str) -> list[str]:
    """The PTX statements of an inline asm text (decoded), labels and braces stripped, its
    directives (``.reg``) dropped; a predicate (``@p``) stays on its statement."""
    out = []
    for s in re.split(r"[;\n]", re.sub(r"//[^\n]*", "", text)):
        s = _STATEMENT.sub("", s.strip()).strip()
        if s and not s.startswith("."):
            out.append(s)
    return out


def retries(text: str, wait: str, dst: str) -> bool:
    """Whether the wait statement ``wait`` of an inline asm ``text`` is retried until it
    succeeds: a label, then the wait, then ``@!dst bra LABEL`` back to that label, with nothing
    between the label and the branch that leaves the loop (another branch, ``ret``, ``exit``)
    or writes ``dst`` again. A label moved past its branch makes the branch jump forward: one
    try, whose failure falls through as if the phase had completed."""
    items: list[tuple[str, str]] = []  # ("label", name) or ("stmt", text), in order
    for raw in re.split(r"[;\n]", re.sub(r"//[^\n]*", "", text)):
        rest = raw.strip()
        while m := re.match(r"^(?:[{}]\s*|([\w$]+):\s*)", rest):
            if m.group(1):
                items.append(("label", m.group(1)))
            rest = rest[m.end() :].strip()
        if rest and not rest.startswith("."):
            items.append(("stmt", rest))
    waits = [i for i, (k, t) in enumerate(items) if k == "stmt" and t == wait]
    if len(waits) != 1:
        return False
    at = waits[0]
    branch = re.compile(rf"^@!\s*{re.escape(dst)}\s+bra(?:\.uni)?\s+([\w$]+)$")
    for j in range(at + 1, len(items)):
        kind, t = items[j]
        if kind != "stmt":
            continue
        m = branch.match(t)
        if m is None:
            op = t.lstrip("@!").split()
            writes = len(op) > 1 and op[1].rstrip(",") == dst
            if writes or re.search(r"\b(?:bra|ret|exit|trap)\b", t):
                return False
            continue
        labels = [i for i, (k, name) in enumerate(items) if k == "label" and name == m.group(1)]
        if len(labels) != 1 or labels[0] > at:
            return False
        # Nothing between the label and the wait may leave the loop either.
        return not any(k == "stmt" and re.search(r"\b(?:bra|ret|exit|trap)\b", t)
                       for k, t in items[labels[0] + 1 : at])  # fmt: skip
    return False


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

    def address(self, bracket: re.Match[str]) -> int | z3.BitVecRef | None:
        """The mbarrier's byte offset: a number, or a term (computed: a ring's slot)."""
        e = self.arg("$" + bracket.group(1))
        if e is None or not isinstance(e, z3.BitVecRef):
            return None
        e = fit(e, WIDTH) + int(bracket.group(2) or 0)
        off = constant(e)
        return e if off is None else off

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
                return f"{name} on an mbarrier whose address is not read here"
            rest = [t for t in body[brackets[-1].end() :].split(",") if t.strip()]
            op = self._op(name, bar if isinstance(bar, int) else -1, rest, predicated, s)
            if isinstance(op, str):
                return op
            if not isinstance(bar, int):
                op.addr = bar
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
            c = constant(self.arg(rest[0])) if len(rest) == 1 else None  # type: ignore[arg-type]
            return _Op(idx, "init", bar, count=c) if c else f"{name} with a count not read here"
        if name.startswith("mbarrier.inval"):
            return _Op(idx, "inval", bar)
        if name.startswith("mbarrier.arrive") and ".noComplete" not in name:
            n = [self.arg(t) for t in rest]
            if any(v is None for v in n) or len(n) > 1:
                return f"{name} with operands not read here"
            value = constant(n[0]) if n else 1  # type: ignore[arg-type]
            if value is None:
                return f"{name} with a count not a constant"
            if ".expect_tx" in name:
                return _Op(idx, "arrive", bar, count=1, tx=value)
            return _Op(idx, "arrive", bar, count=value)
        if name.startswith(("mbarrier.try_wait.parity", "mbarrier.test_wait.parity")):
            if predicated:
                return f"{name} run by some threads only (a predicate)"
            dst = statement.split()[1].rstrip(",") if len(statement.split()) > 1 else ""
            if not dst or not retries(self.text, statement, dst):
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


def _loop_of(fn: Function, bodies: dict[int, set[int]], index: int) -> int | None:
    """The header of the one loop holding the instruction; -1 in nested loops, None in none."""
    b = fn.instructions[index].block
    found = [h for h, body in bodies.items() if b in body]
    return found[0] if len(found) == 1 else (-1 if found else None)


@dataclass
class _Prologue:
    """An mbarrier's operations before its loop, followed: its init, the rounds closed there
    (``rounds``), the round left open (to be closed in the loop) and the waits that closed."""

    init: _Op
    rounds: int
    open: _Round
    opened: list[_Op]  # the open round's operations
    closing: set[int]
    before: list[_Op]
    inside: list[_Op]


def _prologue(ops: list[_Op], order: _Order, bodies: dict[int, set[int]]) -> _Prologue | str:
    """Follow one mbarrier's operations outside loops: one chain from its init."""
    inits = [o for o in ops if o.what == "init"]
    if len(inits) != 1:
        return f"{len(inits)} mbarrier.init of it in the function"
    chain = [o for o in ops if o.what != "inval"]
    outside = [o for o in chain if _loop_of(order.fn, bodies, o.index) is None]
    before = sorted(outside, key=lambda o: order.key(o.index))
    inside = sorted((o for o in chain if o not in outside), key=lambda o: order.key(o.index))
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
    last = max((k for k, o in enumerate(before) if o.index in closing), default=0)
    return _Prologue(init, done[0], done[1], before[last + 1 :], closing, before, inside)


def _follow(bar: int, ops: list[_Op], fn: Function, ev: Evaluator, order: _Order,
            loops: tuple[dict[int, set[int]], dict[int, list[int]]],
            phases: Phases) -> str | None:  # fmt: skip
    """Classify one mbarrier's waits (into ``phases.closing``); why not, if not."""
    bodies, latches = loops
    outer = {h for h in bodies if not any(h in b and h != o for o, b in bodies.items())}

    def loop_of(op: _Op) -> int | None:
        return _loop_of(fn, bodies, op.index)

    got = _prologue(ops, order, bodies)
    if isinstance(got, str):
        return got
    init, k, rnd, closing = got.init, got.rounds, got.open, got.closing
    before, inside = got.before, got.inside
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
        n = iteration()
        subst = closed_forms(fn, ev, header, latch)
        found = []
        for odd in (0, 1):
            closed: set[int] = set()

            def phase(r: int, odd: int = odd) -> z3.BitVecRef:
                return z3.BitVecVal(k + r, WIDTH) + n * odd

            res = _run(inside, init.count, _Round(phase(0)), phase, subst, closed)
            if not isinstance(res, str) and res[0] % 2 == odd and res[1].closed():
                found.append(closed)
        if len(found) != 1:
            return "its phases in the loop are not followed (rounds not closed in an iteration)"
        closing |= found[0]
    phases.closing[bar] = closing
    return None


def follow(fn: Function, found: list[Access], ev: Evaluator, issuers: Issuers,
           blocked: str = "") -> Phases:  # fmt: skip
    """The mbarriers of ``fn`` and the waits that complete its TMA loads (a ring's: ``ring``).
    ``issuers``: how many threads at most make an access (an arrive must be made by one);
    ``blocked``: why none is followed (calls, accesses not read), if so."""
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
        # By mbarrier: the constant ones (-1 stands for computed addresses alone).
        keys = [b for b in by_bar if b != -1] or list(by_bar)
        phases.not_followed = dict.fromkeys(keys, phases.everything)
        return phases
    line_of = {ins.line: ins.index for ins in reversed(fn.instructions)}
    by_ins: dict[int, list[Access]] = {}
    for a in found:
        if a.line in line_of:
            by_ins.setdefault(line_of[a.line], []).append(a)
    order, loops = _Order(fn), _loops(fn)
    ringed = by_bar.pop(-1, [])
    bars = sorted(by_bar)
    why_of: dict[int, str | None] = {}
    for bar in bars:
        why = "another mbarrier overlaps it" if any(0 < abs(bar - o) < MBARRIER_BYTES
                                                    for o in bars) else None  # fmt: skip
        for op in by_bar[bar]:
            why = why or _check(op, by_ins.get(op.index, []), bar, fn, issuers, phases)
        why_of[bar] = why
    members: set[int] = set()
    if ringed:
        why = next(filter(None, (_check(op, by_ins.get(op.index, []), None, fn, issuers,
                                        phases)
                                 for op in ringed)), None)  # fmt: skip
        members, why = (
            (set(by_bar), why)
            if why
            else _follow_ring(
                ringed, {b: by_bar[b] for b in bars if not why_of[b]}, fn, ev, order, loops, phases
            )
        )
        if why:
            # The computed operations may touch any of them: none is followed.
            phases.not_followed = dict.fromkeys(bars, why)
            return phases
    for bar in bars:
        why = why_of[bar] or (None if bar in members else
                              _follow(bar, by_bar[bar], fn, ev, order, loops, phases))  # fmt: skip
        if why:
            phases.not_followed[bar] = why
            continue
        for op in by_bar[bar]:
            phases.roles[op.index] = ("write" if op.what in ("init", "inval") else "atomic", bar)
            if op.what == "load":
                phases.loads[op.index] = bar
    for op in ringed:
        phases.roles[op.index] = ("atomic", -1)
        if op.what == "load":
            phases.loads[op.index] = -1
    return phases


def _check(op: _Op, accs: list[Access], bar: int | None, fn: Function, issuers: Issuers,
           phases: Phases) -> str | None:  # fmt: skip
    """Why one operation (on the mbarrier ``bar``, or on its computed address) is not followed:
    its box not known, not one access of the mbarrier, an arrive or load of several threads;
    None if followed (its box's bytes and its condition then set on it)."""
    line = fn.instructions[op.index].line
    if bar is not None:
        own = [a for a in accs if constant(a.addr.expr) == bar]
    else:
        assert op.addr is not None
        own = [a for a in accs if not a.kind.endswith("-byte box)")
               and isinstance(a.addr.expr, z3.BitVecRef)
               and proved(fit(a.addr.expr, WIDTH) == op.addr)]  # fmt: skip
    if len(own) != 1:
        return f"its operation at LLVM IR line {line} is not one access of it"
    many = issuers(own[0]) if op.what in ("arrive", "load") else 1
    if op.what == "load":
        # A load split over warps: each issuing thread's box lands on the one mbarrier.
        boxes = [a for a in accs if a.kind.endswith("-byte box)") and a.size]
        op.tx = boxes[0].size * many if len(boxes) == 1 and boxes[0].size else 0
        if not op.tx and many:
            return f"the box of its TMA load at LLVM IR line {line} is not known"
    if many != 1 and not (op.what == "load" and many):
        return f"the {op.what} at LLVM IR line {line} is not proved to be made by one thread"
    op.cond = own[0].cond
    if bar is None:
        phases.ring_ops[op.index] = own[0]
    return None


def _follow_ring(ringed: list[_Op], by_bar: dict[int, list[_Op]], fn: Function, ev: Evaluator,
                 order: _Order, loops: tuple[dict[int, set[int]], dict[int, list[int]]],
                 phases: Phases) -> tuple[set[int], str | None]:  # fmt: skip
    """Follow the ring the computed operations ``ringed`` name (the mbarriers of ``by_bar`` they
    may address): the ring's mbarriers, and why it is not followed, if so (module docstring:
    each claim proved over a symbolic iteration number)."""
    bodies, latches = loops
    headers = {_loop_of(fn, bodies, o.index) for o in ringed}
    header = next(iter(headers))
    outer = not any(header in b and header != h for h, b in bodies.items())
    if len(headers) != 1 or header is None or header < 0 or not outer:
        return set(by_bar), "its computed operations are not all in one loop, not nested"
    if len(latches[header]) != 1:
        return set(by_bar), "its computed operations are in a loop with several back edges"
    latch = latches[header][0]
    forms = closed_forms(fn, ev, header, latch)
    n = iteration()

    def now(e: z3.ExprRef, k: int = 0) -> z3.ExprRef:
        """``e`` in iteration n + k (its loop's phis as their closed forms)."""
        return z3.simplify(z3.substitute(e, *at(forms, k))) if forms else e

    def line(op: _Op) -> int:
        return fn.instructions[op.index].line

    addr: dict[int, z3.BitVecRef] = {}
    for op in ringed:
        assert op.addr is not None
        a = now(op.addr)
        assert isinstance(a, z3.BitVecRef)
        if any(v.decl().name() != "iteration" for v in free_vars(a)):
            return set(by_bar), (f"the address of its operation at LLVM IR line {line(op)} is "
                                 "not a function of the iteration number")  # fmt: skip
        addr[op.index] = a
    inits = [b for b, ops in by_bar.items() if any(o.what == "init" for o in ops)]
    members = {b for b in inits if not all(proved(addr[o.index] != b, within(n))
                                           for o in ringed)}  # fmt: skip
    for op in ringed:
        if not proved(z3.Or([addr[op.index] == b for b in members]), within(n)):
            return set(by_bar), (f"its operation at LLVM IR line {line(op)} may address bytes "
                                 "that are not one of its initialised mbarriers")  # fmt: skip
    pro: dict[int, _Prologue] = {}
    first = fn.blocks[header].instructions[0]
    for b in sorted(members):
        got = _prologue(by_bar[b], order, bodies)
        if isinstance(got, str):
            return members, f"the ring's mbarrier at shared byte {b}: {got}"
        if got.inside or not all(order.dominates(o.index, first) for o in got.before):
            return members, (f"the ring's mbarrier at shared byte {b} is named by a constant "
                             "address in or after its loop")  # fmt: skip
        rnd = got.open
        if got.opened and (rnd.arrivals != got.init.count or rnd.expected != rnd.landed
                           or [o.what for o in got.opened].count("arrive") != 1):  # fmt: skip
            return members, (
                f"the round left open before the loop on its mbarrier at shared "
                f"byte {b} has not one arrive, or its count or bytes do not add up"
            )
        pro[b] = got
    counts = {p.init.count for p in pro.values()}
    waits = [o for o in ringed if o.what == "wait"]
    arrives = [o for o in ringed if o.what == "arrive"]
    loads = [o for o in ringed if o.what == "load"]
    if len(waits) != 1 or len(arrives) != 1 or not loads or len(counts) != 1:
        return members, ("its loop has not one wait, one arrive and TMA loads on the ring, or "
                         "the ring's mbarriers have different counts")  # fmt: skip
    wait, arrive = waits[0], arrives[0]
    last = fn.blocks[latch].instructions[-1]
    if not order.dominates(wait.index, last):
        return members, f"its wait at LLVM IR line {line(wait)} does not run on every iteration"
    if arrive.count != counts.pop() or arrive.tx != sum(o.tx for o in loads):
        return members, "the arrive and the TMA loads of an iteration do not add up to a phase"
    slot = addr[arrive.index]
    if not all(proved(addr[o.index] == slot, within(n)) for o in loads):
        return members, "a TMA load of an iteration completes on another mbarrier than its arrive"
    # Iteration n reached its back edge: no exit from the blocks every iteration runs taken.
    exits = []
    for b in bodies[header]:
        if order.blocks(b, latch):
            for t in fn.instructions[fn.blocks[b].instructions[-1]].targets:
                c = ev.edge_condition(b, t) if t not in bodies[header] else None
                if c is not None:
                    exits.append(z3.Not(now(c)))
    alive = z3.And(*exits)
    final = last_iteration(alive)

    def runs(k: z3.BitVecRef | int) -> z3.BoolRef:
        """Iteration n + k runs (a counter may be narrowed to the loop's trip count)."""
        return z3.And(within(n, MAX_SLOTS), iteration_runs(final, n + k))

    why = _rounds(ev, fn, arrive, loads, pro, now, alive)
    if why:
        return members, why
    # The period of the producer's slot: each mbarrier is used once in ``size`` iterations
    # (of those the loop runs: a counter may be narrowed to the loop's trip count).
    m = z3.BitVec("later", WIDTH)
    size = next((k for k in range(1, MAX_SLOTS + 1)
                 if proved(z3.substitute(slot, (n, n + k)) == slot, runs(k))
                 and proved(z3.Implies(z3.And(z3.ULT(0, m), z3.ULT(m, k), runs(m)),
                                       z3.substitute(slot, (n, n + m)) != slot),
                            within(n, k))), 0)  # fmt: skip
    if not size:
        return members, "its mbarriers are not taken in turn (no period proved)"
    # The phase of iteration i's round: the rounds before the loop on its mbarrier, then one
    # each ``size`` iterations.
    before = z3.BitVecVal(0, WIDTH)
    for b, p in pro.items():
        before = z3.If(slot == b, z3.BitVecVal(p.rounds + bool(p.opened), WIDTH), before)
    phase = (before + z3.UDiv(n, size)) & 1
    q = addr[wait.index]
    assert wait.parity is not None
    parity = now(fit(wait.parity, WIDTH))
    lag = next((d for d in range(size)
                if proved(z3.substitute(q, (n, n + d)) == slot, runs(d))), None)  # fmt: skip
    if lag is None:
        return members, (f"its wait at LLVM IR line {line(wait)} is not proved to be on the "
                         "mbarrier of a load a fixed number of iterations before it")  # fmt: skip
    later = z3.substitute(parity, (n, n + lag))
    if not proved(later == phase, runs(lag)):
        other = proved(later == phase ^ 1, runs(lag))
        return members, (f"its wait at LLVM IR line {line(wait)} "
                         + ("names the other phase than that of the load it follows (proved)"
                            if other else "has a parity not proved to be the phase of the "
                            "load it follows"))  # fmt: skip
    ring = Ring(header, bodies[header], forms, alive, final)
    for o in loads:
        ring.loads[o.index] = RingLoad(wait.index, lag, True)
    # The rounds left open before the loop: retired by the waits of the first ``lag``
    # iterations, each on its mbarrier and phase, before the loop reuses that mbarrier.
    waited = set()
    for j in range(lag):
        bj = constant(z3.substitute(q, (n, z3.BitVecVal(j, WIDTH))))
        pj = constant(z3.substitute(parity, (n, z3.BitVecVal(j, WIDTH))))
        p = pro.get(bj) if bj is not None else None
        if p is None or not p.opened or pj != p.rounds % 2:
            continue
        # No round of the loop on that mbarrier up to iteration j (it would join the open one).
        earlier = [constant(z3.substitute(slot, (n, z3.BitVecVal(i, WIDTH)))) for i in range(j + 1)]
        if bj in earlier or None in earlier:
            continue
        waited.add(bj)
        for o in p.opened:
            if o.what == "load":
                ring.loads[o.index] = RingLoad(wait.index, j, False)
    if any(p.opened and b not in waited for b, p in pro.items()):
        return members, ("a round left open before its loop is not retired by the waits of "
                         "its first iterations")  # fmt: skip
    for b, p in pro.items():
        phases.closing[b] = p.closing
    phases.ring = ring
    return members, None


def _rounds(
    ev: Evaluator,
    fn: Function,
    arrive: _Op,
    loads: list[_Op],
    pro: dict[int, _Prologue],
    now: Callable[..., z3.ExprRef],
    alive: z3.BoolRef,
) -> str | None:
    """Why an iteration's round is not proved to happen whenever its loads do, and after every
    earlier one (its arrive's condition holds in an earlier iteration, and before the loop
    on the rounds left open), if not: the phase of a round is then the number of rounds
    before it on its mbarrier. ``alive``: iteration n reached its back edge."""
    lanes = elected(fn, ev)
    n = iteration()
    true = z3.BoolVal(True)

    def cond(op: _Op, k: int = 0) -> z3.BoolRef:
        c = now(op.cond, k) if op.cond is not None else true
        assert isinstance(c, z3.BoolRef)
        return c

    for o in loads:
        if not some_thread(ev, [cond(o), within(n)], cond(arrive), lanes):
            return (f"its TMA load at LLVM IR line {fn.instructions[o.index].line} is not "
                    "proved to come with its iteration's arrive")  # fmt: skip
    if not some_thread(ev, [cond(arrive, 1), alive, within(n, 1)], cond(arrive), lanes):
        return "its iteration's arrive is not proved to run in every earlier iteration"
    for p in pro.values():
        opened = [o for o in p.opened if o.what == "arrive"]
        for o in p.opened:
            if o.what == "load" and not some_thread(ev, [cond(o)], cond(opened[0]), lanes):
                return (f"its TMA load at LLVM IR line {fn.instructions[o.index].line} is not "
                        "proved to come with its arrive")  # fmt: skip
        if opened and not some_thread(ev, [cond(arrive), within(n)], cond(opened[0]), lanes):
            return "a round before the loop is not proved to run whenever the loop's rounds do"
    return None
