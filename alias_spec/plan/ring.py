"""Loop-carried values as closed forms of the iteration, for rings of mbarriers (``mbarrier.py``,
``races.py``).

A pipelined loop keeps its ring's slot and phase in phis of its header: Triton's pipeliner
carries ``slot = slot + 1 == N ? 0 : slot + 1`` and ``phase ^= (the slot wrapped)``, Gluon
kernels compute them from the counter (``i % N``, ``(i / N) & 1``). Each phi of the header
whose start is a constant and whose next value is a function of the header's phis is run
forward from its start (its first ``SAMPLES`` values) and matched against three families of
the iteration number n: a counter ``s + n * step``, a slot ``(n + c) mod N`` and a phase
``((n + c) / N + p) & 1`` (each but its first value: a phi starting at -1 takes its first
slot on the way in). A match is a guess; it is used only once z3 proves, over a symbolic n,
that the phi's next value is the form at n + 1 whenever every matched phi is its form at n
(an induction over the iterations, all the matched phis at once; a phi whose step does not
prove is dropped, and the others proved again without it). Assumed, and said in the guide: a
loop runs fewer than ``ITERATIONS`` iterations (the forms are proved for n below it, where
``n + c`` does not wrap).
"""

from __future__ import annotations

import re

import z3

from alias_spec.ir.llir import Function
from alias_spec.plan.evaluator import Evaluator, free_vars
from alias_spec.plan.terms import WIDTH, as_bool, fit

ITERATIONS = 1 << 30  # assumed: a loop runs fewer iterations than this
MAX_SLOTS = 64  # the largest ring (slot count) guessed
SAMPLES = 2 * MAX_SLOTS + 4  # values a phi is run forward to (two rounds of the largest ring)
PROOF_TIMEOUT_MS = 10_000  # one proof over the iteration number (few a function)
NAME = "iteration"  # the iteration number's z3 name (shared by both threads of a pair)
TRIPS = 4_096  # iterations searched for a loop's last (a trip count that is a constant)

Subst = list[tuple[z3.ExprRef, z3.ExprRef]]


def iteration() -> z3.BitVecRef:
    """The iteration number n of a loop (0 on entry), below ``ITERATIONS``."""
    return z3.BitVec(NAME, WIDTH)


def within(n: z3.BitVecRef, more: int = 0) -> z3.BoolRef:
    """n and the ``more`` iterations after it are iterations of a loop (no wrap)."""
    return z3.ULT(n, ITERATIONS - more)


def proved(claim: z3.BoolRef, *facts: z3.BoolRef) -> bool:
    s = z3.Solver()
    s.set("timeout", PROOF_TIMEOUT_MS)
    s.add(*facts, z3.Not(claim))
    return s.check() == z3.unsat


def constant(e: z3.ExprRef) -> int | None:
    v = z3.simplify(e)
    return v.as_long() if z3.is_bv_value(v) else None  # type: ignore[attr-defined]


def at(forms: Subst, k: int | z3.BitVecRef) -> Subst:
    """The forms in iteration n + k (k a number or a term)."""
    n = iteration()
    shift = n + k if isinstance(k, int) else k
    return [(v, z3.substitute(f, (n, shift))) for v, f in forms]


def _guesses(seq: list[int], w: int) -> list[z3.BitVecRef]:
    """Closed forms of n that give ``seq[1:]`` (and ``seq[0]`` at n = 0): a counter first,
    then the smallest slot, then the smallest phase."""
    n, mask = iteration(), (1 << w) - 1
    narrow = (lambda e: fit(e, w)) if w != WIDTH else (lambda e: e)  # noqa: E731
    step = (seq[1] - seq[0]) & mask
    if all(seq[m] == (seq[0] + m * step) & mask for m in range(len(seq))):
        return [narrow(z3.BitVecVal(seq[0], WIDTH) + n * step)]
    out = []
    for size in range(2, MAX_SLOTS + 1):
        for c in range(size):
            slot = [(m + c) % size for m in range(len(seq))]
            phase = {p: [((m + c) // size + p) & 1 for m in range(len(seq))] for p in (0, 1)}
            form: z3.BitVecRef | None = None
            if seq[1:] == slot[1:]:
                form = z3.URem(n + c, size)
            for p, values in phase.items():
                if form is None and seq[1:] == values[1:]:
                    form = (z3.UDiv(n + c, size) + p) & 1
            if form is not None:
                first = slot[0] if form.decl().kind() == z3.Z3_OP_BUREM else None
                if first != seq[0] and not (first is None and seq[0] == _phase0(form)):
                    form = z3.If(n == 0, z3.BitVecVal(seq[0], WIDTH), form)
                out.append(narrow(form))
                return out
    return out


def _phase0(form: z3.BitVecRef) -> int | None:
    return constant(z3.substitute(form, (iteration(), z3.BitVecVal(0, WIDTH))))


def closed_forms(fn: Function, ev: Evaluator, header: int, latch: int) -> Subst:
    """The header's phis proved equal to closed forms of the iteration number (above), each
    as (its term, its form)."""
    phis: list[tuple[z3.BitVecRef, int, z3.BitVecRef]] = []
    for i in fn.blocks[header].instructions:
        ins = fn.instructions[i]
        if ins.opcode != "phi":
            break
        if len(ins.incoming) != 2 or latch not in ins.incoming:
            continue
        var = ev.value(i, WIDTH).expr
        if not isinstance(var, z3.BitVecRef):
            continue
        vals = [ev.operand(o, var.size()).expr for o in ins.operands]
        k = ins.incoming.index(latch)
        start, nxt = vals[1 - k], vals[k]
        c0 = constant(start) if isinstance(start, z3.BitVecRef) else None
        if c0 is not None and isinstance(nxt, z3.BitVecRef) and nxt.size() == var.size():
            phis.append((var, c0, nxt))
    seqs: dict[int, list[int]] = {k: [c0] for k, (_, c0, _) in enumerate(phis)}
    names = {v.get_id() for v, _, _ in phis}
    # Run forward only the phis whose next value depends on the header's phis alone.
    live = {k for k, (_, _, nxt) in enumerate(phis)
            if all(x.get_id() in names for x in free_vars(nxt))}  # fmt: skip
    for _ in range(SAMPLES - 1):
        now = [(phis[k][0], z3.BitVecVal(seqs[k][-1], phis[k][0].size())) for k in live]
        for k in sorted(live):
            v = constant(z3.substitute(phis[k][2], *now)) if now else constant(phis[k][2])
            if v is None:
                live.discard(k)
            else:
                seqs[k].append(v)
    guessed = {}
    for k in live:
        g = _guesses(seqs[k], phis[k][0].size())
        if g:
            guessed[k] = g[0]
    n = iteration()
    while guessed:
        now = [(phis[k][0], f) for k, f in guessed.items()]
        nxt_forms = at(now, 1)
        bad = [k for k, f in guessed.items()
               if not proved(z3.substitute(phis[k][2], *now) == dict(
                   (v.get_id(), g) for v, g in nxt_forms)[phis[k][0].get_id()],
                   within(n, 1))]  # fmt: skip
        if not bad:
            return now
        for k in bad:
            del guessed[k]
    return []


# Values the same for every thread of the CTA: the kernel's arguments and constants the
# evaluator does not fold (the evaluator's names for them).
UNIFORM = re.compile(r"^(?:arg|const)\d+$")


def elected(fn: Function, ev: Evaluator) -> list[z3.BoolRef]:
    """The predicates ``elect.sync`` gives: true in at most one lane of a warp."""
    calls = {ins.index for ins in fn.instructions if ins.callee is not None
             and ins.callee.name.startswith("llvm.nvvm.elect.sync")}  # fmt: skip
    return [as_bool(ev.value(ins.index, 1).expr) for ins in fn.instructions
            if ins.opcode == "extractvalue" and ins.indices == [1] and ins.operands
            and ins.operands[0].kind == "value" and ins.operands[0].ref in calls]  # fmt: skip


def some_thread(ev: Evaluator, hyp: list[z3.BoolRef], cond: z3.BoolRef,
                lanes: list[z3.BoolRef]) -> bool:  # fmt: skip
    """Whenever ``hyp`` holds, some thread meets ``cond``: a condition over the thread id, the
    ``elect.sync`` predicates (``lanes``: one lane of each warp gets true), the kernel's own
    values and the iteration number (shared with ``hyp``). False where it depends on
    anything else (loaded data) or is not proved."""
    tid = ev.thread_id()
    mine = {tid.get_id(), *(e.get_id() for e in lanes)}
    own = [v for v in free_vars(cond) if v.get_id() in mine]
    if any(v.get_id() not in mine and not UNIFORM.match(v.decl().name())
           and v.decl().name() != NAME for v in free_vars(cond)):  # fmt: skip
        return False
    if not own:
        return proved(cond, *hyp)
    facts = [f for f in ev.relevant([tid]) if all(v.get_id() == tid.get_id()
                                                  for v in free_vars(f))]  # fmt: skip
    s = z3.Solver()
    s.set("timeout", PROOF_TIMEOUT_MS)
    s.add(*hyp, z3.ForAll(own, z3.Implies(z3.And(*facts), z3.Not(cond))))
    return s.check() == z3.unsat


def last_iteration(alive: z3.BoolRef) -> int | None:
    """The last iteration a loop may run, where its exit depends on the iteration number alone
    (``alive``: iteration n reaches its back edge): the first n below ``TRIPS`` where it does
    not; None where not known."""
    if any(v.decl().name() != NAME for v in free_vars(alive)):
        return None
    n = iteration()
    return next((k for k in range(TRIPS)
                 if z3.is_false(z3.simplify(z3.substitute(alive, (n, z3.BitVecVal(k, WIDTH))))))
                , None)  # fmt: skip


def runs(last: int | None, upto: z3.BitVecRef) -> z3.BoolRef:
    """Iteration ``upto`` of a loop runs: it is not past the loop's ``last`` iteration."""
    return z3.ULE(upto, last) if last is not None else z3.BoolVal(True)
