"""Shared-memory races between the threads of one CTA (``alias-spec plan --races``).

Two accesses race when two different threads may make them to a common byte, at least one
writes (two atomics do not race), and nothing orders them. Between CTA barriers
(``barrier.sync`` of every thread, any id, in any of its LLVM forms) every thread runs its own
way, so two accesses are unordered when a path of the function's control flow leads from one to
the other without passing a barrier (a path around a loop's back edge puts them in different
iterations), or when no path joins them but one barrier (or the entry) reaches both with none
on the way: two sides of a branch, taken by two threads at once (``_siblings``).
Asynchronous accesses (cp.async, TMA stores, wgmma operands) are in flight from their issue to
the wait that retires their group (``wait_group N``): barriers passed meanwhile do not order
them. A TMA load (a write of its box, and an atomic on its mbarrier) is in flight until a wait
that closes its round on a followed mbarrier (``mbarrier.py``: the phases of one mbarrier at a
constant address, its arrivals, loads and waits in program order, the wait's parity proved to
be the load's phase); every thread makes that wait, so the accesses it dominates in that
iteration are ordered after the load, and those reached past it otherwise are not decided. A
wait proved to name the other phase orders nothing: a read after it is a finding. A TMA load
on a followed ring of mbarriers is retired by the ring's wait d iterations on (``mbarrier.py``):
the walk from the load counts the back edges it crosses, so each access it reaches is in a
known iteration n + k (k <= d) and the pair's question is asked over the one iteration number
n, the loop's phis as their closed forms in n and n + k (``ring.py``): no common byte is a
proof, one is not a finding (undecided). The walk stops at an edge whose condition, the same
for every thread, contradicts the load's k iterations on (the loop exits before the wait only
where the load was not issued), and around the back edge once the load is retired (the wait
runs on every iteration: every thread made it). Where a ring is followed, a pair over its
loop's phis is asked over their closed forms too (each party's own iteration number unless
they share their counters). The
mbarrier operations of a followed mbarrier are accesses of its 8 bytes (init and inval write,
arrivals and waits are atomics); a tensor map built in shared memory is written by
``tensormap.replace`` and read by ``tensormap.cp_fenceproxy``.

Each unordered pair is a z3 question over two thread ids (``tid.x`` and ``tid.x'``, of
different warps, each below the block size) and the values the addresses depend on: the
kernel's arguments and constants are the same for both threads, and so is a loop counter (a
phi of a loop header whose incoming values are themselves the same for all threads:
``_uniform_counters``) when the two accesses are in one iteration and depend on that one
alone; every other value (loaded data, merges, counters of another iteration) is taken afresh
for the second thread, with the constraints the evaluator knows of it. A satisfiable question
over exactly known addresses is a finding with the byte and the two thread ids z3 found.

Across the proxies (``proxy.py``): a generic write then an asynchronous read or write (a TMA
store's source, a wgmma operand, a TMA load's box) of the same bytes, or a generic read then an
asynchronous write, is ordered only by a proxy fence (``fence.proxy.async``) on the path
between them, as the PTX memory model requires. Each such pair a path joins with no fence on it
is a z3 question over any two threads (the same one included: program order does not cross
proxies), with the loop counters shared when both are in one iteration; a common byte is a
``plan.race.proxy`` finding, unless the path may not run so for the writer (a predicated fence,
a branch on the thread), the bytes are over two loop-carried values or, around a back edge, a
loop counter, or a cp.async may write the bytes read (then a note). The other way needs no
fence: an asynchronous write is read through the generic proxy after the wait that completes
it, an asynchronous read is retired by its ``wait_group`` before a generic write.

Warp-specialized partitions (``partitions.py``: which warps may run each block, from the
branches on the warp id and the state table Triton's workers switch on; the warps that run the
same blocks are a partition): inside one partition the pairs are those of a walk over its own
blocks, stopped by the barriers that order two of its threads (a whole-CTA one, or a counted
one proved to take every warp that may reach its id), the two thread ids held to its warps.
Two threads of different partitions are ordered where, on every way to each access, they
passed different numbers of some whole-CTA barrier's instances (neither access in flight);
otherwise only an mbarrier protocol could order them, not followed across partitions, so a
possible common byte is undecided, never a finding. A partitioned function's mbarriers are
not followed (its operations run in several partitions).

What is not judged is a note (the verdict is partial), never clean: TMA loads and mbarrier
operations on an mbarrier not followed (with the reason: a computed address outside a
followed ring, a parity not proved, counts or bytes that do not add up, calls or accesses not
read in the function), a ring load's pair with a common byte or in no known iteration, a
pair across the proxies not decided (above), the pairs a named or counted barrier not proved
to order would order (a common byte there is undecided: a count or id not constant, a count
that fits no warps, one id with two counts, an arrive), a pair of two partitions not told
apart by a whole-CTA barrier with a possible common byte, calls to functions that touch shared
memory, an access whose
address is not bounded, a pair over two loop-carried values (a pipeline's read and write slots:
their relation is not followed), an asynchronous access in flight into a later iteration or
over a loop-carried slot that may meet the other (asked with no value shared but the kernel's
own: no common byte is a proof, one is not a finding), a common byte found only over values
known by their bounds, a question the solver cannot decide within ``PAIR_TIMEOUT_MS``, pairs
past a function's ``BUDGET_S``, and a function with more unordered pairs than ``MAX_PAIRS``.
Assumed, and said in the guide: barriers are reached by every thread of the CTA (Triton places
them so); a warp runs converged, its lanes in program order (Triton converts layouts inside one
warp through shared memory with no barrier), so the two threads are of different warps, unless
the first access is asynchronous and still in flight (then any two threads, its own included);
the threads of one instruction in one iteration that write one byte write the same value (a
layout's replicated elements), so such a self-pair is not reported; and a cp.async's copy may
be read by a wgmma or a TMA store with no proxy fence (Triton's fence passes put none there),
so it is paired with neither across the proxies.
"""

from __future__ import annotations

import bisect
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import z3

from alias_spec.ir.llir import Function, Instruction
from alias_spec.plan.apart import bounds, disjoint, names_of, threads, witnesses
from alias_spec.plan.evaluator import Evaluator, free_vars
from alias_spec.plan.guards import dominators
from alias_spec.plan.mbarrier import Phases, Ring, RingLoad, follow
from alias_spec.plan.partitions import Partitions, apart, counts, partitions, span
from alias_spec.plan.plan import Finding, Note, Report
from alias_spec.plan.proxy import unfenced
from alias_spec.plan.ring import (
    NAME,
    UNIFORM,
    Subst,
    at,
    constant,
    elected,
    iteration,
    runs,
    within,
)
from alias_spec.plan.taint import back_edges
from alias_spec.plan.terms import Access, one_shot_solver

PROXY_RULE = "plan.race.proxy"  # a generic access and an asynchronous one, no proxy fence
MAX_PAIRS = 4_000  # unordered pairs judged per function; past it: a note
PAIR_TIMEOUT_MS = 2_000  # one pair's question
BUDGET_S = 30.0  # a function's pairs together; those left past it: a note
# Whether the pairs that can only be proved apart are asked once a function is partial (they
# no longer change its verdict; tools that sort every pair by outcome set it).
ASK_ALL = False
# Told each unordered conflicting pair of a function and what became of it ("apart", "race",
# "undecided: <why>", "not asked", "past the time budget", "past the pair limit"; none after
# the function's race), when set: for tools that sort a kernel's pairs by outcome. The check
# reads nothing back.
OUTCOME: Callable[[_Pair, str], None] | None = None
# Generic-proxy accesses the check orders, by the start of ``Access.kind``: reads, writes,
# atomics. A tensor map built in shared memory: ``tensormap.replace`` writes the whole 128-byte
# object (a weak generic-proxy write), ``tensormap.cp_fenceproxy`` copies it out to global
# memory before its fence returns (a read, not asynchronous).
_READS = ("load", "call @llvm.nvvm.ldmatrix", "asm ld.shared", "asm ldmatrix",
          "asm tensormap.cp_fenceproxy.global.shared")  # fmt: skip
_WRITES = ("store", "call @llvm.nvvm.stmatrix", "asm st.shared", "asm stmatrix",
           "asm tensormap.replace.")  # fmt: skip
_ATOMICS = ("atomic", "asm atom", "asm red")  # prefixes: .shared forms included


@dataclass(frozen=True)
class _Group:
    """An asynchronous access ordered by a commit / wait protocol: it is in flight from its
    issue until a wait that leaves fewer groups pending than were committed since (its own
    group's commit counted); barriers passed meanwhile do not order it."""

    role: str  # what it does to shared memory: "write" (cp.async) or "read"
    commit: tuple[str, ...]  # intrinsics (prefixes) and PTX that close a group
    wait: tuple[str, ...]  # intrinsics (prefixes) and PTX that wait; their N follows


_CP_ASYNC = _Group("write", ("llvm.nvvm.cp.async.commit.group", "cp.async.commit_group"),
                   ("llvm.nvvm.cp.async.wait.group", "llvm.nvvm.cp.async.wait.all",
                    "cp.async.wait_group", "cp.async.wait_all"))  # fmt: skip
_BULK_STORE = _Group(
    "read",
    ("llvm.nvvm.cp.async.bulk.commit.group", "cp.async.bulk.commit_group"),
    ("llvm.nvvm.cp.async.bulk.wait.group", "cp.async.bulk.wait_group"),
)
_WGMMA = _Group("read", ("llvm.nvvm.wgmma.commit_group", "wgmma.commit_group"),
                ("llvm.nvvm.wgmma.wait_group", "wgmma.wait_group"))  # fmt: skip
# A TMA load completing on a followed mbarrier (``mbarrier.py``): in flight from its issue to a
# wait that closes its round; no commit, no count.
_TMA_LOAD = _Group("write", (), ())
_ASYNC_GROUPS = (_CP_ASYNC, _BULK_STORE, _WGMMA)  # those with commits and waits
_WAIT_N = re.compile(r"(?:wait_group|wait\.group)(?:\.read)?(?:\.sync\.aligned)?\s+(\d+)")


def _group(kind: str) -> _Group | None:
    """The protocol an asynchronous access follows, or None (not asynchronous, or one whose
    completion is not followed here: a TMA load waits on an mbarrier)."""
    if kind.startswith("wgmma operand"):
        return _WGMMA
    if kind.startswith("asm cp.async.bulk") and ".global.shared" in kind:
        return _BULK_STORE
    if kind.startswith("asm cp.async.") and not kind.startswith("asm cp.async.bulk"):
        return _CP_ASYNC
    return None


def _role(kind: str) -> str | None:
    """ "read", "write", "atomic", or None: an access not judged."""
    group = _group(kind)
    if group is not None:
        return group.role
    for role, starts in (("atomic", _ATOMICS), ("write", _WRITES), ("read", _READS)):
        if kind.startswith(starts):
            return role
    return None


def _asm(ins: Instruction) -> str:
    if "asm" not in ins.text or ins.text.count('"') < 2:
        return ""
    return ins.text.split('"')[1].replace("\\0A", "\n").replace("\\09", " ")


def _step(ins: Instruction, group: _Group) -> int | None:
    """-1 for a commit of the group's kind, N for a wait leaving N groups pending, None for
    neither."""
    callee = ins.callee.name if ins.callee is not None else ""
    asm = _asm(ins)
    if callee.startswith(group.commit) or any(c in asm for c in group.commit if "." in c
                                              and not c.startswith("llvm")):  # fmt: skip
        return -1
    if callee.startswith(group.wait):
        if callee.endswith(".all"):
            return 0
        args = [a.value for a in ins.operands if a.value is not None]
        return int(args[0]) if args else None
    for w in group.wait:
        if not w.startswith("llvm") and w in asm:
            if w.endswith("wait_all"):
                return 0
            m = _WAIT_N.search(asm[asm.index(w) :])
            return int(m.group(1)) if m else None
    return None


@dataclass(frozen=True)
class _Party:
    """One side of a pair: an access (what is reported) and the bytes it touches, [lo, hi)
    (a wgmma operand: from its first byte to past its last)."""

    access: Access
    lo: z3.BitVecRef
    hi: z3.BitVecRef
    role: str
    group: _Group | None = None  # asynchronous: the protocol that retires it
    # Its proxy, for the proxy fences (``proxy.py``): "generic", "async" (a TMA load's box, a
    # TMA store's source, a wgmma operand) or "" (mbarrier operations, cp.async: not paired).
    proxy: str = ""


@dataclass(frozen=True)
class _Pair:
    first: _Party
    second: _Party
    crossed: bool  # the path goes around a back edge: different iterations
    # The first a TMA load, the second reached after a wait that completes it but on a path
    # where that wait does not dominate the second (another thread may not have waited).
    late: bool = False
    # The first a TMA load on a ring (``mbarrier.py``): the second is in the iteration this
    # many after the load's (a load before the loop: in this iteration), known to the pair's
    # question through the closed forms of the loop's phis; None otherwise.
    shift: int | None = None
    inside: bool = False  # that load is in the loop
    # Warp-specialized partitions: the warps each thread may be of (None: any).
    warps: tuple[frozenset[int], frozenset[int]] | None = None


MAX_SHIFT = 64  # iterations a ring load's pairs may lie after it (its wait's lag, below the ring)
_CAP = 8  # groups counted past an access's own (a wait leaves at most a few pending)


def unordered(fn: Function, at: dict[int, list[_Party]], barriers: set[int],
              loops: set[tuple[int, int]], phases: Phases | None = None,
              ev: Evaluator | None = None,
              blocks: set[int] | None = None) -> list[_Pair]:  # fmt: skip
    """Every pair of parties with a path from the first to the second that no barrier orders:
    none between them, or, from an asynchronous access, none after the wait that retires it
    (while it is in flight, barriers do not order it). A TMA load is retired by a wait that
    closes its round (``phases``); the accesses that wait dominates, in the same iteration,
    are then ordered for every thread that makes them (each waited itself). ``blocks``: the
    walk keeps to these (a partition's)."""
    where = {i: (b.index, k) for b in fn.blocks for k, i in enumerate(b.instructions)}
    headers = {n for _, n in loops}
    idom = dominators(fn) if phases is not None and phases.loads else {}
    steps: dict[tuple[int, int], int | None] = {}  # (instruction, id of its group)
    out: list[_Pair] = []
    seen: set[tuple[int, int, bool, bool]] = set()

    def dominates(w: int, i: int) -> bool:
        (bw, kw), (b, k) = where[w], where[i]
        if bw == b:
            return kw < k
        while b in idom and idom[b] != b:
            b = idom[b]
            if b == bw:
                return True
        return False

    ring = phases.ring if phases is not None and ev is not None else None
    # The walk looks only at barriers, accesses, commits and waits: per block, those of its
    # instructions (in order), so that the rest are passed over without a look.
    marked = set(barriers) | set(at)
    for ins in fn.instructions:
        if ins.opcode == "call" and any(_step(ins, g) is not None for g in _ASYNC_GROUPS):
            marked.add(ins.index)
    if phases is not None:
        marked.update(i for waits in phases.closing.values() for i in waits)
    if ring is not None:
        marked.update(load.wait for load in ring.loads.values())
    marks = {b.index: [i for i in b.instructions if i in marked] for b in fn.blocks}
    Item = tuple[int, int, bool, int, bool, int, int]
    Reach = dict[int, set[tuple[bool, bool, int]]]
    # The accesses reached from a set of block entries, per walk context (the start's group,
    # and for a TMA load its own ring load or closing waits): starts whose walks leave their
    # block alike share the rest of it.
    beyond: dict[tuple[tuple[int, int, frozenset[int]], frozenset[Item]], Reach] = {}
    for start in sorted(at):
        if start not in where:
            continue
        groups = {p.group for p in at[start]} - {None}
        group = next(iter(groups)) if len(groups) == 1 else None
        closing: set[int] = set()
        mine = ring.loads.get(start) if ring is not None and group is _TMA_LOAD else None
        if group is _TMA_LOAD and phases is not None and mine is None:
            closing = phases.closing[phases.loads[start]]

        def visit(item: Item, reached: Reach, group: _Group | None = group,
                  mine: RingLoad | None = mine, closing: set[int] = closing,
                  start: int = start) -> list[Item]:  # fmt: skip
            """Walk one block from the item's place, adding the accesses reached; the entries
            of the blocks it goes on to (none past a barrier that orders). This start's
            context is bound where it is made."""
            b, k, done, commits, crossed, wait, shift = item
            ins_list = fn.blocks[b].instructions
            for i in marks[b][k:]:
                if done and i in barriers:
                    return []
                if not done and mine is not None:
                    if i == mine.wait and shift == mine.shift:
                        done, wait = True, i
                elif not done and group is _TMA_LOAD:
                    if i in closing:
                        done, wait = True, -2 if crossed else i
                elif not done and group is not None:
                    key = (i, id(group))
                    if key not in steps:
                        steps[key] = _step(fn.instructions[i], group)
                    step = steps[key]
                    if step == -1:
                        commits = min(commits + 1, _CAP)
                    elif step is not None and commits >= step + 1:
                        done = True
                if i in at and not (wait >= 0 and dominates(wait, i)):
                    reached.setdefault(i, set()).add((crossed, wait != -1, shift))
            if not ins_list:
                return []
            nexts: list[Item] = []
            for n in fn.instructions[ins_list[-1]].targets:
                # An access in flight that enters a loop meets the loop's counters at some
                # iteration (the first from outside): taken as crossing into another one.
                c = crossed or (b, n) in loops or (group is not None and n in headers)
                w = -2 if c and wait >= 0 else wait
                s = -1
                if mine is not None and ring is not None and ev is not None:
                    step = _ring_step(fn, ev, ring, mine, at[start], b, n, shift, done, crossed)
                    if step is None:
                        continue
                    # Retired, and out of the loop: the accesses the wait dominates are ordered.
                    s, w = step, wait if step >= 0 or done else w
                if n >= 0 and (blocks is None or n in blocks):
                    nexts.append((n, 0, done, commits, c, w, s))
            return nexts

        reached: Reach = {}
        block = where[start][0]
        # (block, first position, done: retired, commits since, crossed a back edge, the TMA
        # load's closing wait passed: its index, -2 once crossed past it, -1 none; a ring's
        # load: the iteration after its own, -1 not known)
        first = bisect.bisect_right(marks[block], start)  # in ``marks``: past the start
        entries = visit((block, first, group is None, 0, False, -1,
                         0 if mine and mine.inside else -1), reached)  # fmt: skip
        context = (id(group), start if mine is not None else -1, frozenset(closing))
        key = (context, frozenset(entries))
        if key not in beyond:
            rest: Reach = {}
            visited = set(entries)
            todo = list(entries)
            while todo:
                for item in visit(todo.pop(), rest):
                    if item not in visited:
                        visited.add(item)
                        todo.append(item)
            beyond[key] = rest
        for i, flags in beyond[key].items():
            reached.setdefault(i, set()).update(flags)
        for other, flags in reached.items():
            for crossed, late, shift in flags:
                for a in at[start]:
                    for c in at[other]:
                        key = (id(a), id(c), crossed, late, shift)
                        if key in seen or (id(c), id(a), crossed, late, shift) in seen:
                            continue
                        seen.add(key)
                        known = shift if mine is not None and shift >= 0 else None
                        # A ring load's pair in no known iteration (before or past the loop):
                        # a common byte is not a finding (the loop may run where it does not).
                        late = late or (mine is not None and known is None)
                        out.append(_Pair(a, c, crossed, late, known,
                                         mine is not None and mine.inside))  # fmt: skip
    out += _siblings(fn, at, barriers, loops, blocks, {(id(p.first), id(p.second)) for p in out})
    return out


def _siblings(fn: Function, at: dict[int, list[_Party]], barriers: set[int],
              loops: set[tuple[int, int]], blocks: set[int] | None,
              paired: set[tuple[int, int]]) -> list[_Pair]:  # fmt: skip
    """The pairs no path joins (each thread takes one side of a branch) that one interval
    between barriers holds: both reached from one barrier (or the function's entry) with no
    barrier on the way. Two threads that take the two sides run them unordered, whatever the
    branch tests (the two threads' guards are in the pair's question). ``crossed`` where either
    way from that barrier crosses a back edge (their loop counters are then not shared)."""
    # Where each block's way back ends: the last barrier of a block before it, or -1 (the
    # entry), with whether a back edge was crossed; a fixed point over the control flow.
    preds: dict[int, list[int]] = {}
    for b in fn.blocks:
        if blocks is not None and b.index not in blocks:
            continue
        for n in fn.instructions[b.instructions[-1]].targets if b.instructions else ():
            preds.setdefault(n, []).append(b.index)
    last = {b.index: max((i for i in b.instructions if i in barriers), default=None)
            for b in fn.blocks}  # fmt: skip
    entry = fn.blocks[0].index if fn.blocks else -1
    starts: dict[int, set[tuple[int, bool]]] = {}
    todo = [b.index for b in fn.blocks if blocks is None or b.index in blocks]
    while todo:
        b = todo.pop()
        got = {(-1, False)} if b == entry else set()
        for pb in preds.get(b, ()):
            back = (pb, b) in loops
            ends = {(last[pb], False)} if last[pb] is not None else starts.get(pb, set())
            got |= {(e, c or back) for e, c in ends}
        if got != starts.get(b, set()):
            starts[b] = got
            tail = fn.blocks[b].instructions
            nexts = fn.instructions[tail[-1]].targets if tail else []
            todo += [n for n in nexts if n >= 0 and (blocks is None or n in blocks)]
    where: dict[int, set[tuple[int, bool]]] = {}
    for i in at:
        ins = fn.instructions[i]
        before = [k for k in fn.blocks[ins.block].instructions if k < i and k in barriers]
        where[i] = {(max(before), False)} if before else starts.get(ins.block, set())
    out: list[_Pair] = []
    order = sorted(where)
    for x, i in enumerate(order):
        for j in order[x + 1 :]:
            common = {e for e, _ in where[i]} & {e for e, _ in where[j]}
            if not common:
                continue
            crossed = not any((e, False) in where[i] and (e, False) in where[j] for e in common)
            for a in at[i]:
                for c in at[j]:
                    if (id(a), id(c)) in paired or (id(c), id(a)) in paired:
                        continue
                    paired.add((id(a), id(c)))
                    out.append(_Pair(a, c, crossed, False, None, False))
    return out


def _ring_step(fn: Function, ev: Evaluator, ring: Ring, mine: RingLoad, load: list[_Party],
               frm: int, to: int, shift: int, done: bool, crossed: bool) -> int | None:  # fmt: skip
    """A ring load's walk along the edge ``frm`` -> ``to``: the iteration after the load's it
    enters (-1 not known), or None where the walk stops there: around the back edge once the
    load is retired (every thread made the wait that retires it: the wait runs on every
    iteration), or where the load's condition and the edge's, a condition every thread sees
    alike, cannot both hold ``shift`` iterations apart (out of the loop before the wait, or
    past the loop where it does not run)."""
    into = to == ring.header
    if frm in ring.body and into:
        if done:
            return None
        return shift + 1 if 0 <= shift < mine.shift else -1
    known = shift >= 0 or (not crossed and frm not in ring.body)
    if not done and known and _infeasible(ev, ring, mine, load, frm, to, max(shift, 0)):
        return None
    if frm not in ring.body and into:
        return 0 if not mine.inside else -1
    if frm in ring.body and to not in ring.body:
        return -1  # past the loop the phis hold the last iteration's values
    return shift


def _infeasible(ev: Evaluator, ring: Ring, mine: RingLoad, load: list[_Party], frm: int,
                to: int, shift: int) -> bool:  # fmt: skip
    """The edge's condition, the same for every thread (over the kernel's own values and the
    loop's phis), contradicts the load's ``shift`` iterations after it."""
    edge = ev.edge_condition(frm, to)
    conds = [p.access.cond for p in load if p.access.cond is not None]
    if edge is None or not conds:
        return False
    edge = _renamed(edge, _ring_at(ring, mine, shift))
    if not all(UNIFORM.match(v.decl().name()) or v.decl().name() == NAME
               for v in free_vars(edge)):  # fmt: skip
        return False
    s = z3.Solver()
    s.set("timeout", PAIR_TIMEOUT_MS)
    s.add(within(iteration(), MAX_SHIFT), *(_renamed(c, _ring_at(ring, mine, 0)) for c in conds))
    s.add(edge)
    return s.check() == z3.unsat


def _ring_at(ring: Ring, mine: RingLoad, shift: int) -> Subst:
    """The loop's phis as closed forms in the iteration ``shift`` after a ring load's (a load
    before the loop: in iteration ``shift``)."""
    if mine.inside:
        return at(ring.forms, shift)
    n = iteration()
    return [(v, z3.substitute(f, (n, z3.BitVecVal(shift, n.size())))) for v, f in ring.forms]


# Why a pair the solver answered is undecided: "unknown", or "sat" where a common byte is no
# finding (an opaque address, in flight into another iteration, a late pair, a ring's load).
_WHY = {"unknown": "solver undecided", "sat": "common byte, not a finding"}


def _conflict(p: _Pair) -> bool:
    """At least one of the two writes, and they are not both atomic."""
    a, b = p.first.role, p.second.role
    return not (a == b and a in ("read", "atomic"))


def _renamed(e: z3.ExprRef, subst: Subst) -> z3.ExprRef:
    return z3.substitute(e, *subst) if subst else e


def _second_thread(exprs: list[z3.ExprRef], tid: z3.ExprRef,
                   same: frozenset[str] = frozenset()) -> Subst:  # fmt: skip
    """The substitution that makes the second thread's copy: its own thread id and its own
    copy of every value that is not the same for all threads (``same``: also the values of
    these LLVM phis, loop counters in the same iteration)."""
    out = []
    for v in {x.get_id(): x for e in [*exprs, tid] for x in free_vars(e)}.values():
        name = v.decl().name()
        if UNIFORM.match(name) or name.rsplit(".", 1)[0] in same:
            continue
        out.append((v, z3.BitVec(name + "'", v.size())))  # type: ignore[attr-defined]
    return out


def _overlap(pa: _Party, pb: _Party, ev: Evaluator, same: frozenset[str] = frozenset(),
             any_thread: bool = False,
             forms: tuple[Subst, Subst] | None = None,
             ring: list[z3.BoolRef] | None = None,
             warps: tuple[frozenset[int], frozenset[int]] | None = None,
             ) -> tuple[str, dict[str, int]]:  # fmt: skip
    """("sat", witness), ("unsat", {}) or ("unknown", {}) for two threads making ``pa`` and
    ``pb`` to a common byte (``same``: phis both threads see with one value); two of
    different warps unless ``any_thread`` (``pa`` still in flight: program order does not
    order it, even in its own thread). ``forms``: the loop's phis as closed forms of the
    iteration number, in ``pa``'s iteration and in ``pb``'s, and ``ring`` what is known of
    that number (a ring load's pairs); ``warps``: the warps each thread may be of."""
    a, b = pa.access, pb.access
    # Most pairs are of bytes apart for any values (other buffers, other parts of one): their
    # bounds say so without the solver (``apart.py``); over closed forms they are not known.
    # Where the bounds meet, the two are compared thread by thread (which warps touch each byte).
    if forms is None:
        spans = (pa.lo, pa.hi, a.cond), (pb.lo, pb.hi, b.cond)
        if disjoint(bounds(ev), *spans) or threads(ev).apart(*spans, any_thread):
            return "unsat", {}
    fa, fb = forms if forms is not None else ([], [])
    first = [pa.lo, pa.hi] + ([a.cond] if a.cond is not None else [])
    second = [pb.lo, pb.hi] + ([b.cond] if b.cond is not None else [])
    tid = ev.thread_id()  # made, with its bound, where no address needed it
    facts_a = [_renamed(f, fa) for f in ev.relevant([*first, tid])]
    facts_b = [_renamed(f, fb) for f in ev.relevant([*second, tid])]
    first, second = [_renamed(e, fa) for e in first], [_renamed(e, fb) for e in second]
    if ring is not None:
        facts_a += ring
    subst = _second_thread(second + facts_b, tid, same)
    tid2 = next(n for o, n in subst if o.eq(tid))

    def wide(e: z3.ExprRef) -> z3.BitVecRef:
        assert isinstance(e, z3.BitVecRef)
        return z3.ZeroExt(64 - e.size(), e)

    if forms is None:
        # A model found by evaluating each party over its own points, where they share no
        # variable (every shared one has its copy for the second): the solver's answer.
        renamed = {o.get_id() for o, _ in subst}
        of_a = {v.get_id() for e in [*first, *facts_a] for v in free_vars(e)}
        of_b = {v.get_id() for e in [*second, *facts_b] for v in free_vars(e)}
        if not (of_a & of_b) - renamed:
            w = witnesses(ev).find((first[0], first[1], facts_a + first[2:]),
                                   (second[0], second[1], facts_b + second[2:]), any_thread,
                                   warps)  # fmt: skip
            if w is not None:
                return "sat", w
    lo_a, hi_a = wide(first[0]), wide(first[1])
    lo_b, hi_b = wide(_renamed(second[0], subst)), wide(_renamed(second[1], subst))
    s = one_shot_solver(PAIR_TIMEOUT_MS)
    s.add(*facts_a, *(_renamed(f, subst) for f in facts_b))
    if a.cond is not None:
        s.add(first[2])
    if b.cond is not None:
        s.add(_renamed(second[2], subst))
    # Two threads of different warps: a warp runs converged, its lanes in program order
    # (Triton's layout conversions inside one warp rely on it and put no barrier there).
    warp = z3.BitVecVal(5, tid.size())
    if not any_thread:
        s.add(z3.LShR(tid, warp) != z3.LShR(tid2, warp))
    if warps is not None:
        for t, ws in zip((tid, tid2), warps, strict=True):
            s.add(z3.Or([z3.LShR(t, warp) == w for w in sorted(ws)]))
    s.add(z3.ULT(lo_a, hi_b), z3.ULT(lo_b, hi_a))
    r = s.check()
    if r != z3.sat:
        return ("unsat" if r == z3.unsat else "unknown"), {}
    m = s.model()
    xa, yb = (m.eval(v, model_completion=True).as_long() for v in (lo_a, lo_b))  # type: ignore[attr-defined]
    return "sat", {"byte": max(xa, yb), "tid.x": m.eval(tid, model_completion=True).as_long(),
                   "tid.x'": m.eval(tid2, model_completion=True).as_long()}  # type: ignore[attr-defined]  # fmt: skip


def _mbarrier_role(a: Access, idx: int | None,
                   phases: Phases) -> tuple[str | None, _Group | None, bool]:  # fmt: skip
    """The role and protocol of an access of a followed mbarrier operation or TMA load, and
    whether it is one (a TMA load's destination operand is dropped: its box stands for it)."""
    # A ring's operation names its mbarrier by a computed address: its access is the one read.
    # The address as a number is asked only where a role is at stake (most accesses are of no
    # mbarrier operation, and simplifying each cost the check a share of its time).
    own = idx is not None and phases.ring_ops.get(idx) is a
    if idx in phases.loads:
        if a.kind.endswith("-byte box)"):
            return "write", _TMA_LOAD, True
        mine = own or constant(a.addr.expr) == phases.loads[idx]
        return ("atomic", _TMA_LOAD, True) if mine else (None, None, True)
    if idx in phases.roles and (own or constant(a.addr.expr) == phases.roles[idx][1]):
        return phases.roles[idx][0], None, True
    return None, None, False


def _parties(found: list[Access], by_line: dict[int, int],
             phases: Phases) -> tuple[dict[int, list[_Party]], list[Access]]:  # fmt: skip
    """The judged accesses as parties by instruction (a wgmma operand's first and last byte
    made one span; followed mbarriers' operations and TMA loads by ``phases``), and those not
    judged (of no judged kind, unbounded, unlocated)."""
    at: dict[int, list[_Party]] = {}
    left: list[Access] = []
    spans: dict[tuple[int, str], dict[str, Access]] = {}
    for a in found:
        role, group = _role(a.kind), _group(a.kind)
        e = a.addr.expr
        mrole, mgroup, known = _mbarrier_role(a, by_line.get(a.line), phases)
        if known:
            if mrole is not None and a.size is not None and isinstance(e, z3.BitVecRef):
                box = "async" if mgroup is _TMA_LOAD and mrole == "write" else ""
                at.setdefault(by_line[a.line], []).append(_Party(a, e, e + a.size, mrole,
                                                                 mgroup, box))  # fmt: skip
            elif mrole is not None:
                left.append(a)
            continue
        if role is None or a.line not in by_line or not isinstance(e, z3.BitVecRef):
            left.append(a)
        elif a.kind.startswith("wgmma operand") and a.kind.endswith(" byte)"):
            end = "first" if a.kind.endswith("(first byte)") else "last"
            spans.setdefault((a.line, a.kind.split(" (")[0]), {})[end] = a
        elif a.size is None:
            left.append(a)
        else:
            # cp.async is left out of the proxy pairs: Triton puts no proxy fence between it
            # and the wgmma that reads its tile (its fence pass takes it for no generic store).
            proxy = "generic" if group is None else "" if group is _CP_ASYNC else "async"
            at.setdefault(by_line[a.line], []).append(_Party(a, e, e + a.size, role, group,
                                                             proxy))  # fmt: skip
    for (line, _), ends in spans.items():
        lo, hi = ends.get("first"), ends.get("last")
        if lo is None or hi is None:
            left.extend(ends.values())
            continue
        first, last = lo.addr.expr, hi.addr.expr
        assert isinstance(first, z3.BitVecRef) and isinstance(last, z3.BitVecRef)
        at.setdefault(by_line[line], []).append(_Party(lo, first, last + 1, "read", _WGMMA,
                                                       "async"))  # fmt: skip
    return at, left


def check_races(fn: Function, found: list[Access], ev: Evaluator, report: Report,
                defined: set[str]) -> int:  # fmt: skip
    """Judge one function's shared accesses for races (generic ones, and cp.async, TMA stores
    and wgmma operands through their commit / wait groups); findings and notes go to the
    report. Returns how many unordered pairs were judged."""
    by_line: dict[int, int] = {}
    for ins in fn.instructions:
        by_line.setdefault(ins.line, ins.index)
    # Which warps run which blocks (warp-specialized partitions) and what each barrier orders.
    parts = partitions(fn)
    calls = [ins for ins in fn.instructions if ins.callee is not None
             and ins.callee.name in defined]  # fmt: skip
    where = f"@{fn.name}"
    loops = back_edges(fn)
    # Loop counters: the phis of loop headers. Triton's loops are uniform (their bounds are
    # scalars), so in one iteration every thread sees one value of each: those whose values
    # are (``_uniform_counters``).
    headers = {n for _, n in loops}
    counters = _uniform_counters(fn, ev, headers)
    # An mbarrier a callee or an access not read may also touch is not followed.
    unread = any(n.kind == "lowering.unread" and n.message.startswith(where + ":")
                 for n in report.notes)  # fmt: skip
    blocked = ("it calls functions that may touch them" if calls else
               "the function has shared accesses not read" if unread else
               "its warp-specialized partitions share its mbarriers (their order across "
               "partitions is not followed)" if parts.split else "")  # fmt: skip
    phases = follow(fn, found, ev, lambda a: _issuers(a, fn, ev, counters), blocked)
    at, unjudged = _parties(found, by_line, phases)
    if parts.unproved:
        i = parts.culprit()
        why, ins = parts.unproved[i], fn.instructions[i]
        more = f" (and {len(parts.unproved) - 1} more)" if len(parts.unproved) > 1 else ""
        report.notes.append(Note("race.unjudged", f"{where}: the pairs its named or counted "
                                 f"barriers would order are not judged: the barrier at LLVM IR "
                                 f"line {ins.line}{more} is not proved to order them: {why}",
                                 ins.line, ins.column, fn.name))  # fmt: skip
    if calls:
        report.notes.append(Note("race.unjudged", f"{where}: races not judged across its calls "
                                 f"(@{calls[0].callee.name} at LLVM IR line {calls[0].line})",
                                 calls[0].line, calls[0].column, fn.name))  # fmt: skip
    if phases.not_followed and unjudged:
        bar, why = next(iter(sorted(phases.not_followed.items())))
        more = f" (and {len(phases.not_followed) - 1} more)" if len(phases.not_followed) > 1 else ""
        site = f"shared byte {bar}" if bar >= 0 else "a computed address"
        report.notes.append(Note("race.unjudged", f"{where}: the mbarrier at {site}"
                                 f"{more} is not followed: {why}; its operations and the TMA "
                                 "loads it completes are not judged", unjudged[0].line,
                                 unjudged[0].column, fn.name))  # fmt: skip
    if unjudged:
        kinds = sorted({a.kind.split(" (")[0] for a in unjudged})
        report.notes.append(Note("race.unjudged", f"{where}: the ordering of {len(unjudged)} "
                                 "shared accesses is not judged (TMA loads, mbarrier and tensor "
                                 f"map operations, unbounded ones: {', '.join(kinds[:4])}"
                                 f"{', ...' if len(kinds) > 4 else ''})", unjudged[0].line,
                                 unjudged[0].column, fn.name))  # fmt: skip
    pairs = [p for p in _unordered(fn, at, parts, loops, phases, ev) if _conflict(p)]
    told = OUTCOME or (lambda p, outcome: None)
    if len(pairs) > MAX_PAIRS:
        report.notes.append(Note("race.unjudged", f"{where}: {len(pairs)} unordered pairs of "
                                 f"shared accesses; the first {MAX_PAIRS} judged", fn.line, 1,
                                 fn.name))  # fmt: skip
        for p in pairs[MAX_PAIRS:]:
            told(p, "past the pair limit")
        pairs = pairs[:MAX_PAIRS]
    undecided: list[_Pair] = []
    deadline = time.monotonic() + BUDGET_S
    formed = {str(v) for v, _ in phases.ring.forms} if phases.ring is not None else set()
    apart: dict[tuple[int, int], bool] = {}  # a ring pair apart for any two iterations
    bounded = [within(iteration(), MAX_SHIFT)]  # the iteration number, as every pair knows it
    names: dict[int, frozenset[str]] = {}

    def carried_of(p: _Pair) -> set[str]:
        """The loop-carried values either party's bytes depend on (remembered per party)."""
        for q in (p.first, p.second):
            if id(q) not in names:
                names[id(q)] = frozenset(n for n in names_of(q.lo) | names_of(q.hi)
                                         if n.rsplit(".", 1)[0] in counters)  # fmt: skip
        return set(names[id(p.first)] | names[id(p.second)])

    def may_find(p: _Pair) -> bool:
        """Whether a common byte of the pair would be a finding: otherwise its question can
        only prove it apart (a ring's load, a pair in flight into another iteration or over
        loop-carried slots, a late one, an opaque address)."""
        if p.shift is not None and phases.ring is not None:
            return False
        every = carried_of(p)
        carried = every - formed
        in_flight = bool(p.first.group or p.second.group)
        loose = in_flight and (p.crossed or bool(carried))
        opaque = p.first.access.addr.opaque or p.second.access.addr.opaque
        return not (len(carried) > 1 or loose or p.late or opaque or every & formed)

    spans: dict[int, tuple[int, int] | None] = {}
    ranges = bounds(ev)

    def extent(q: _Party) -> tuple[int, int] | None:
        """Sound bounds of the bytes ``q`` may touch, [least start, greatest end)."""
        if id(q) not in spans:
            lo, hi = ranges.of(q.lo, q.access.cond), ranges.of(q.hi, q.access.cond)
            spans[id(q)] = (lo[0], hi[1]) if lo is not None and hi is not None else None
        return spans[id(q)]

    def judge(p: _Pair) -> tuple[str, dict[str, int]]:
        """("apart", {}), ("undecided: <why>", {}) or ("race", witness)."""
        a, b = extent(p.first), extent(p.second)
        if a is not None and b is not None and (b[1] <= a[0] or a[1] <= b[0]):
            # Apart for any values of their variables (``apart.disjoint``, once a party):
            # the closed forms of a ring's phis take values of those ranges too.
            return "apart", {}
        if p.shift is not None and phases.ring is not None:
            # A ring load and an access ``shift`` iterations on: both over the one iteration
            # number. No common byte is a proof; one is not a finding (the loop may not run
            # that far), so it is undecided.
            load = RingLoad(-1, 0, p.inside)
            forms = (_ring_at(phases.ring, load, 0), _ring_at(phases.ring, load, p.shift))
            n = iteration()
            upto = n + p.shift if p.inside else z3.BitVecVal(p.shift, n.size())
            known = [within(n, MAX_SHIFT), runs(phases.ring.last, upto)]
            # First as any two iterations (quick: distinct buffers; the same for every shift),
            # then over the one number.
            key = (id(p.first), id(p.second))
            if key not in apart:
                apart[key] = _overlap(p.first, p.second, ev, any_thread=True)[0] == "unsat"
            if apart[key]:
                return "apart", {}
            verdict, _ = _overlap(p.first, p.second, ev, frozenset({NAME}), any_thread=True,
                                  forms=forms, ring=known)  # fmt: skip
            return ("apart" if verdict == "unsat" else
                    f"undecided: {_WHY[verdict]}, a ring's load"), {}  # fmt: skip
        carried = carried_of(p)
        # The phis of a followed ring's loop are closed forms of the iteration number: each
        # party's over its own iteration's (one number where the counters are shared).
        closed = carried & formed
        carried -= closed
        in_flight = bool(p.first.group or p.second.group)
        if len(carried) > 1:
            # Over two loop-carried values (a pipeline's read and write slots): whether the
            # addresses meet is a relation between loop-carried values, not followed here.
            return "undecided: over two loop-carried values", {}
        # In flight into a later iteration or over a loop-carried slot: judged with no value
        # the same for both (apart from the kernel's own), so a common byte is not a finding
        # (the relation between the iterations is not followed) but none is a proof.
        loose = in_flight and (p.crossed or bool(carried))
        # An asynchronous first party still in flight is ordered with nothing, its own thread's
        # later accesses included (a cp.async, a TMA store or a wgmma issued, not waited on).
        pending = p.first.group is not None
        same = frozenset() if p.crossed or loose else counters
        both = (phases.ring.forms, phases.ring.forms) if closed and phases.ring else None
        if both is not None and _overlap(p.first, p.second, ev, any_thread=True)[0] == "unsat":
            return "apart", {}  # apart as any two values of the phis: no need of their forms
        verdict, w = _overlap(p.first, p.second, ev, same | {NAME} if same else same,
                              any_thread=pending, forms=both,
                              ring=bounded, warps=p.warps)  # fmt: skip
        opaque = p.first.access.addr.opaque or p.second.access.addr.opaque or bool(closed)
        if verdict == "unknown" or (verdict == "sat" and (opaque or loose or p.late)):
            return f"undecided: {_WHY[verdict]}", {}
        return ("race", w) if verdict == "sat" else ("apart", {})

    # The pairs a common byte would make a finding of are asked first; the others can only be
    # proved apart, which no longer matters once the function is partial: past the first one
    # undecided, they are counted, not asked.
    partial = any(n.kind == "race.unjudged" and n.message.startswith(where + ":")
                  for n in report.notes)  # fmt: skip
    finding = [may_find(p) for p in pairs]
    ordered = [(p, True) for p, f in zip(pairs, finding, strict=True) if f]
    ordered += [(p, False) for p, f in zip(pairs, finding, strict=True) if not f]
    unasked = 0
    for p, could in ordered:
        if time.monotonic() > deadline:
            undecided.append(p)  # out of time: said with the undecided
            told(p, "past the time budget")
            continue
        if (partial or undecided) and not could and not ASK_ALL:
            unasked += 1
            told(p, "not asked")
            continue
        verdict, w = judge(p)
        told(p, verdict)
        if verdict.startswith("undecided"):
            undecided.append(p)
        elif verdict == "race":
            _finding(fn, p, w, report)
            return len(pairs)  # one race a function: the first, with its witness
    across, crossing = _across(fn, at, parts, ev, deadline) if parts.split else (0, [])
    judged, unsure, found = _judge_proxies(fn, at, loops, ev, counters, report, deadline)
    judged += across
    if found:
        return len(pairs) + judged
    if crossing:
        a, b = crossing[0].first.access, crossing[0].second.access
        g1, g2 = crossing[0].warps or (frozenset(), frozenset())
        report.notes.append(Note("race.unjudged", f"{where}: {len(crossing)} pairs of accesses by "
                                 "two warp-specialized partitions not ordered by a barrier of "
                                 "the whole CTA (mbarriers may order them: not followed across "
                                 f"partitions), the first the {a.kind} at LLVM IR line {a.line} "
                                 f"({span(g1)}) and the {b.kind} at line {b.line} ({span(g2)})",
                                 a.line, a.column, fn.name))  # fmt: skip
    if unsure:
        a, b = unsure[0].first.access, unsure[0].second.access
        report.notes.append(Note("race.unjudged", f"{where}: {len(unsure)} pairs of a generic "
                                 "access and an asynchronous one not decided for their proxy "
                                 f"fence, the first the {a.kind} at LLVM IR line {a.line} and "
                                 f"the {b.kind} at line {b.line}", a.line, a.column,
                                 fn.name))  # fmt: skip
    if undecided:
        a, b = undecided[0].first.access, undecided[0].second.access
        skipped = (f"; {unasked} more not asked (they could only be proved apart, and the "
                   "function is partial already)") if unasked else ""  # fmt: skip
        report.notes.append(Note("race.unjudged", f"{where}: {len(undecided)} unordered pairs "
                                 f"not decided, the first the {a.kind} at LLVM IR line {a.line} "
                                 f"and the {b.kind} at line {b.line}{skipped}", a.line, a.column,
                                 fn.name))  # fmt: skip
    elif unasked:
        report.notes.append(Note("race.unjudged", f"{where}: {unasked} unordered pairs not asked "
                                 "(they could only be proved apart, and the function is partial "
                                 "already)", fn.line, 1, fn.name))  # fmt: skip
    return len(pairs) + judged


def _uniform_counters(fn: Function, ev: Evaluator, headers: set[int]) -> frozenset[str]:
    """The phis of loop headers whose incoming values every thread sees alike: the kernel's
    arguments, constants, values uniform over the CTA and such phis. One started at the thread
    id, or carrying loaded data, is each thread's own, even when the loop never changes it: it
    is taken afresh for the second thread."""
    phis = {ins.name or f"%{ins.index}": ins for ins in fn.instructions
            if ins.opcode == "phi" and ins.block in headers}  # fmt: skip
    ok = set(phis)
    changed = True
    while changed:
        changed = False
        for name in sorted(ok):
            for o in phis[name].operands:
                if o.kind != "value":
                    continue  # a constant or a global: the same for all
                names = names_of(ev.operand(o).expr)
                if not all(UNIFORM.match(n) or n.rsplit(".", 1)[0] in ok for n in names):
                    ok.discard(name)
                    changed = True
                    break
    return frozenset(ok)


def _unordered(fn: Function, at: dict[int, list[_Party]], parts: Partitions,
               loops: set[tuple[int, int]], phases: Phases,
               ev: Evaluator) -> list[_Pair]:  # fmt: skip
    """``unordered`` for each group of warps that run the same blocks (one where the function
    is not partitioned), over the blocks it runs and the barriers that order two of its
    threads; a pair of a group an unproved barrier may be reached by is undecided at best
    (``late``: a common byte is no finding)."""
    if not parts.split:
        everyone = frozenset(range(parts.warps))
        pairs = unordered(fn, at, parts.orders(everyone), loops, phases, ev)
        return [replace(p, late=True) for p in pairs] if parts.loose(everyone) else pairs
    out: list[_Pair] = []
    for g in parts.groups:
        blocks = parts.blocks(g)
        mine = {i: ps for i, ps in at.items() if fn.instructions[i].block in blocks}
        loose = bool(parts.loose(g))
        for p in unordered(fn, mine, parts.orders(g), loops, phases, ev, blocks):
            out.append(replace(p, late=p.late or loose, warps=(g, g)))
    return out


def _across(fn: Function, at: dict[int, list[_Party]], parts: Partitions, ev: Evaluator,
            deadline: float) -> tuple[int, list[_Pair]]:  # fmt: skip
    """The pairs of two threads of different groups (partitions): ordered where the two
    passed different numbers of a whole-CTA barrier's instances on every way there (neither
    in flight), or where no two such threads touch a common byte; the rest are undecided
    (an mbarrier protocol may order them: not followed across partitions), never a finding.
    Returns the pairs asked and those undecided."""
    wanted = set(at)
    seen = {g: counts(fn, parts, g, wanted) for g in parts.groups}
    asked = 0
    undecided: list[_Pair] = []
    for k, g1 in enumerate(parts.groups):
        for g2 in parts.groups[k + 1 :]:
            for i, c1 in sorted(seen[g1].items()):
                for j, c2 in sorted(seen[g2].items()):
                    for a in at[i]:
                        for b in at[j]:
                            p = _Pair(a, b, False, warps=(g1, g2))
                            if not _conflict(p):
                                continue
                            if not (a.group or b.group) and apart(c1, c2):
                                continue  # a whole-CTA barrier between them on every path
                            asked += 1
                            if asked > MAX_PAIRS or time.monotonic() > deadline:
                                undecided.append(p)
                                continue
                            if _overlap(a, b, ev, warps=p.warps)[0] != "unsat":
                                undecided.append(p)
    return asked, undecided


def _judge_proxies(fn: Function, at: dict[int, list[_Party]], loops: set[tuple[int, int]],
                   ev: Evaluator, counters: frozenset[str], report: Report,
                   deadline: float) -> tuple[int, list[_Pair], bool]:  # fmt: skip
    """The pairs of a generic access and a later asynchronous one (a generic write and an
    asynchronous read or write, a generic read and an asynchronous write) that a path joins
    with no proxy fence on it (``proxy.py``): a common byte of any two threads, the
    same one included, is a ``plan.race.proxy`` finding (the first only); a common byte over a
    path not sure to run so, over two loop-carried values or a counter of another iteration,
    or a question not decided, leaves the pair undecided. Returns the pairs asked, those
    undecided, and whether a finding was made."""
    firsts = {i for i, ps in at.items() if any(p.proxy == "generic" for p in ps)}
    seconds = {i for i, ps in at.items() if any(p.proxy == "async" for p in ps)}
    if not firsts or not seconds:
        return 0, [], False
    uniform: dict[int, bool] = {}

    def steady(b: int) -> bool:
        """Block b's branch goes one way for every thread: its condition depends on the
        kernel's arguments and loop counters alone."""
        if b not in uniform:
            term = fn.instructions[fn.blocks[b].instructions[-1]]
            cond = term.operands[0] if term.operands else None
            names = ({v.decl().name() for v in free_vars(ev.operand(cond).expr)}
                     if cond is not None and cond.kind == "value" else {"?"})  # fmt: skip
            uniform[b] = all(UNIFORM.match(n) or n.rsplit(".", 1)[0] in counters
                             for n in names)  # fmt: skip
        return uniform[b]

    reached = unfenced(fn, firsts, seconds, loops, steady)
    pairs: list[tuple[_Pair, bool]] = []
    for start, reaches in sorted(reached.items()):
        for r in sorted(reaches, key=lambda r: (r.second, r.crossed, r.sure)):
            for a in at[start]:
                for c in at[r.second]:
                    conflict = a.role != "read" or c.role == "write"
                    if (a.proxy, c.proxy) == ("generic", "async") and conflict:
                        pairs.append((_Pair(a, c, r.crossed), r.sure))
    copies = [p for ps in at.values() for p in ps if p.group is _CP_ASYNC]
    # A generic write read by a TMA store or a wgmma first: the finding most often wanted.
    pairs.sort(key=lambda ps: ps[0].second.role == "write")
    undecided: list[_Pair] = []
    for p, sure in pairs[:MAX_PAIRS]:
        if time.monotonic() > deadline:
            undecided.append(p)
            continue
        carried = _carried(p, counters)
        verdict, w = _overlap(p.first, p.second, ev, frozenset() if p.crossed else counters,
                              any_thread=True)  # fmt: skip
        if verdict == "unsat":
            continue
        opaque = p.first.access.addr.opaque or p.second.access.addr.opaque
        # Around a back edge with fresh counters z3 may place the second in an earlier
        # iteration than the first: a common byte is then no proof of this order.
        loose = len(carried) > 1 or (p.crossed and bool(carried))
        if verdict == "sat" and sure and not opaque and not loose and not _shadowed(p, copies, ev):
            _proxy_finding(fn, p, w, report)
            return len(pairs), [], True
        undecided.append(p)
    return len(pairs), undecided + [p for p, _ in pairs[MAX_PAIRS:]], False


def _shadowed(p: _Pair, copies: list[_Party], ev: Evaluator) -> bool:
    """A cp.async may write bytes the asynchronous access reads: the generic write may be
    overwritten before it by a copy taken as ordered without a fence (not followed here)."""
    return any(_overlap(c, p.second, ev, any_thread=True)[0] != "unsat" for c in copies)


def _issuers(a: Access, fn: Function, ev: Evaluator, counters: frozenset[str]) -> int:
    """How many threads of the CTA at most make ``a`` each time its instruction runs (in one
    iteration: the loop counters are the same for all): 1 where no two threads meet its
    condition, the number of warps some thread of which may meet it where no two threads of
    one warp do (a TMA load split over warps, each its own box), 0 otherwise."""
    if a.cond is None:
        return 0
    tid = ev.thread_id()
    elect = elected(fn, ev)
    facts = ev.relevant([a.cond, *elect, tid])
    subst = _second_thread([a.cond, *elect, *facts], tid, counters)
    tid2 = next(n for o, n in subst if o.eq(tid))
    s = z3.Solver()
    s.set("timeout", PAIR_TIMEOUT_MS)
    s.add(*facts, *(_renamed(f, subst) for f in facts), a.cond, _renamed(a.cond, subst))
    s.add(tid != tid2)
    warp = z3.BitVecVal(5, tid.size())
    same_warp = z3.LShR(tid, warp) == z3.LShR(tid2, warp)
    for e in elect:
        s.add(z3.Implies(same_warp, z3.Not(z3.And(e, _renamed(e, subst)))))
    if s.check() == z3.unsat:
        return 1
    s.add(same_warp)
    if s.check() != z3.unsat:
        return 0
    # One thread a warp at most: count the warps (of the 32 a CTA may have) it may be in.
    one = z3.Solver()
    one.set("timeout", PAIR_TIMEOUT_MS)
    one.add(*facts, a.cond)
    count = 0
    for w in range(32):
        verdict = one.check(z3.LShR(tid, warp) == w)
        if verdict == z3.unknown:
            return 0
        count += verdict == z3.sat
    return count


def _buffer(a: Access, byte: int) -> str:
    """The buffer of ``a`` that holds ``byte`` (its first, if none is known to)."""
    spans = a.within or []
    return next((label for lo, hi, label in spans if lo <= byte < hi),
                spans[0][2] if spans else "")  # fmt: skip


def _carried(p: _Pair, counters: frozenset[str]) -> set[str]:
    """The loop-carried values either party's bytes depend on."""
    names = names_of(p.first.lo) | names_of(p.first.hi) | names_of(p.second.lo)
    return {n for n in names | names_of(p.second.hi) if n.rsplit(".", 1)[0] in counters}


def _finding(fn: Function, p: _Pair, w: dict[str, int], report: Report) -> None:
    a, b = p.first.access, p.second.access
    t1, t2 = w["tid.x"], w["tid.x'"]
    when = " in different iterations of a loop" if p.crossed else ""
    src = f" (kernel source {a.dbg} and {b.dbg})" if a.dbg or b.dbg else ""
    values = {"byte": w["byte"], "threads": [t1, t2], "lines": [a.line, b.line],
              "sources": [a.dbg, b.dbg], "crossed_loop": p.crossed}  # fmt: skip
    if p.warps:
        values["warps"] = sorted(p.warps[0])
    buf = _buffer(a, w["byte"]) or _buffer(b, w["byte"])
    values["buffer"] = buf
    if p.first.group is _TMA_LOAD:
        text = (f"@{fn.name}: the TMA load ({a.kind}) at LLVM IR line {a.line} writes shared "
                f"byte {w['byte']}{' of ' + buf if buf else ''} and the {b.kind} at line "
                f"{b.line} by thread {t2} touches it{when} before any wait on the mbarrier "
                f"phase the load completes{src}")  # fmt: skip
    else:
        # In a warp-specialized partition: no barrier of the whole CTA nor of its warps.
        which = f"barrier of the partition of {span(p.warps[0])}" if p.warps else "CTA barrier"
        of = f" of {buf}" if buf else ""
        text = (f"@{fn.name}: the {a.kind} at LLVM IR line {a.line} by thread {t1} and the "
                f"{b.kind} at line {b.line} by thread {t2} touch shared byte {w['byte']}"
                f"{of}{when} with no {which} between them{src}")  # fmt: skip
    report.findings.append(Finding("plan.race", text, fn.name, a.line, a.column, a.dbg, values))


def _proxy_finding(fn: Function, p: _Pair, w: dict[str, int], report: Report) -> None:
    a, b = p.first.access, p.second.access
    t1, t2 = w["tid.x"], w["tid.x'"]
    buf = _buffer(a, w["byte"]) or _buffer(b, w["byte"])
    when = " in a later iteration of a loop" if p.crossed else ""
    src = f" (kernel source {a.dbg} and {b.dbg})" if a.dbg or b.dbg else ""
    first = "writes" if p.first.role != "read" else "reads"
    second = "writes" if p.second.role == "write" else "reads"
    text = (f"@{fn.name}: the {a.kind} at LLVM IR line {a.line} by thread {t1} {first} shared "
            f"byte {w['byte']}{' of ' + buf if buf else ''} through the generic proxy and the "
            f"{b.kind} at line {b.line} (thread {t2}) {second} it through the async proxy"
            f"{when} with no proxy fence (fence.proxy.async) between them on some path, as the "
            f"PTX memory model requires{src}")  # fmt: skip
    values = {"byte": w["byte"], "threads": [t1, t2], "lines": [a.line, b.line],
              "sources": [a.dbg, b.dbg], "crossed_loop": p.crossed, "buffer": buf}  # fmt: skip
    report.findings.append(Finding(PROXY_RULE, text, fn.name, a.line, a.column, a.dbg, values))
