"""Theorems about the rule set, proved by z3 and re-proved by cvc5.

Each theorem is a claim over symbolic facts. A ``valid`` claim holds when its negation is
unsatisfiable (a model of the negation is a counterexample); an ``exists`` claim holds when
it is satisfiable (the model is a witness). Each theorem declares whether it is expected to
hold; an expected failure is a *finding* about the rules and keeps its counterexample.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import z3

from alias_spec.model.catalogue import SAFE, rules_for
from alias_spec.model.facts import Facts
from alias_spec.semantics import cvc5_backend
from alias_spec.semantics.lexmin import Found, solve
from alias_spec.semantics.witness import family, realistic, small, to_request
from alias_spec.semantics.z3expr import (
    Env,
    fact_vars,
    fires,
    holds,
    invariants,
    model_facts,
    term,
    valid,
)

FT = "flagtree"


@dataclass(frozen=True)
class Theorem:
    id: str
    statement: str
    profile: str
    kind: str  # "valid" or "exists"
    expect_holds: bool
    build: Callable[[], tuple[z3.BoolRef, dict[str, Env]]]  # claim, fact envs by role


@dataclass
class Outcome:
    theorem: Theorem
    status: str  # proved | finding | failed
    solvers: dict[str, str]  # solver -> "holds" | "refuted" | "unknown" | error text
    seconds: float
    counterexample: dict[str, Any] | None
    parts: int = 1  # queries asked: one per conjunct of a valid claim, until it is refuted

    def to_json(self) -> dict[str, Any]:
        t = self.theorem
        return {
            "id": t.id,
            "statement": t.statement,
            "profile": t.profile,
            "expected": "holds" if t.expect_holds else "refuted",
            "status": self.status,
            "solvers": self.solvers,
            "seconds": round(self.seconds, 3),
            "counterexample": self.counterexample,
        }


def _one(profile: str) -> tuple[Env, z3.BoolRef]:
    env = fact_vars()
    return env, z3.And(invariants(env), family(env))


def _satisfiable(profile: str) -> Theorem:
    def build() -> tuple[z3.BoolRef, dict[str, Env]]:
        env, ctx = _one(profile)
        return z3.And(ctx, valid(profile, env)), {"request": env}

    return Theorem(
        f"satisfiable.{profile}",
        f"some request is valid under {profile}",
        profile,
        "exists",
        True,
        build,
    )


def _independent(profile: str, rule_id: str) -> Theorem:
    def build() -> tuple[z3.BoolRef, dict[str, Env]]:
        env, ctx = _one(profile)
        others = [holds(r, env) for r in rules_for(profile) if r.id != rule_id]
        target = next(r for r in rules_for(profile) if r.id == rule_id)
        return z3.And(ctx, fires(target, env), *others), {"request": env}

    return Theorem(
        f"independent.{profile}.{rule_id}",
        f"a request violates {rule_id} and no other {profile} rule",
        profile,
        "exists",
        True,
        build,
    )


def _contained_and_aligned(env: Env) -> z3.BoolRef:
    """Every result byte is a byte of the source view's footprint, and every result element
    is aligned to its width for any allocation start the alignment allows."""
    k, m, e = z3.Ints("byte_k alloc_m elem_e")
    res_bytes, run_b = term("res_bytes", env), term("run_b", env)
    p0, p1, p2 = term("p0_b", env), term("p1_b", env), term("p2_b", env)
    off = env["off"]
    # Coordinates of byte off + k within the view: (j0, j1, j2) picks a run, t the byte in it.
    j0, j1, j2 = off / p0, (off % p0) / p1, (off % p0 % p1) / p2
    t = off % p0 % p1 % p2 + k
    in_footprint = z3.And(
        0 <= j0, j0 < env["c0"], 0 <= j1, j1 < env["c1"], 0 <= j2, j2 < env["c2"],
        0 <= t, t < run_b, off + k == j0 * p0 + j1 * p1 + j2 * p2 + t,
    )  # fmt: skip
    eb = term("res_eb", env)
    start = env["align"] * m + term("abs_off", env) + e * eb
    # Quotients that exist whenever the alignment rules hold (a valid request meets their
    # guards); naming them keeps the query linear in products the solver can match.
    qa, qb = z3.Ints("quot_align quot_start")
    divisible = z3.And(env["align"] == eb * qa, term("abs_off", env) == eb * qb)
    aligned = start == eb * (qa * m + qb + e)  # divisibility, with its quotient exhibited
    return z3.Implies(
        divisible,
        z3.And(
            z3.ForAll([k], z3.Implies(z3.And(0 <= k, k < res_bytes), in_footprint)),
            z3.ForAll(
                [m, e],
                z3.Implies(z3.And(m >= 0, 0 <= e, e < term("res_elems", env)), aligned),
            ),
        ),
    )


def _sound(profile: str) -> Theorem:
    def build() -> tuple[z3.BoolRef, dict[str, Env]]:
        env, ctx = _one(profile)
        return z3.Implies(z3.And(ctx, valid(profile, env)), _contained_and_aligned(env)), {
            "request": env
        }

    return Theorem(
        f"sound.{profile}",
        "a valid request addresses only bytes of the source view's footprint, and every "
        "result element is aligned to its width in absolute address terms",
        profile,
        "valid",
        profile == SAFE,
        build,
    )


def _chain() -> tuple[dict[str, Env], z3.BoolRef]:
    """Three requests: root->A at o1 (first), A->B at o2 (second), root->B at o1 + o2
    (direct). Shared facts are shared z3 terms, so the solvers need no equality reasoning
    to see that the direct request reads the root and produces B."""
    r1, r2 = fact_vars("first_"), fact_vars("second_")
    for name in ("src_buffered", "init_given", "scope", "off_int"):
        r2[name] = r1[name]
    # A, the first alias, becomes the second request's source: a fresh dense root.
    r2.update(
        src_space=r1["res_space"],
        src_mutable=r1["res_mutable"],
        src_bits=r1["res_bits"],
        src_static=r1["res_static"],
        src_elems=r1["res_elems"],
        src_start=z3.IntVal(0),
        src_base=term("abs_off", r1),
        align=r1["align"],
        run=r1["res_elems"],
    )
    for i in range(3):
        r2[f"c{i}"] = z3.IntVal(1)
        r2[f"p{i}"] = r1["res_elems"]
    r3 = dict(r1)
    for name in ("res_space", "res_mutable", "res_bits", "res_static", "res_elems", "swz"):
        r3[name] = r2[name]
    r3["off"] = r1["off"] + r2["off"]
    envs = {"first": r1, "second": r2, "direct": r3}
    ctx = z3.And(*[z3.And(invariants(e), family(e)) for e in envs.values()])
    return envs, ctx


def _compose(profile: str, aligned_root: bool) -> Theorem:
    def build() -> tuple[z3.BoolRef, dict[str, Env]]:
        envs, ctx = _chain()
        r1, r2, r3 = envs.values()
        hyp = [ctx, valid(profile, r1), valid(profile, r2)]
        if not aligned_root:
            return z3.Implies(z3.And(*hyp), valid(profile, r3)), envs
        # The root is an allocation: its view starts at the allocation's start.
        hyp += [r1["src_base"] == 0, r1["src_start"] == 0]
        # A chain of lemmas, each proved as its own part from the hypotheses and the lemmas
        # before it; together they spell out the division facts alias.range.physical needs.
        claim = valid(profile, r3)
        for lemma in reversed(_run_lemmas(r1, r2)):
            claim = z3.And(lemma, z3.Implies(lemma, claim))
        return z3.Implies(z3.And(*hyp), claim), envs

    if aligned_root:
        return Theorem(
            f"compose_from_allocation.{profile}",
            "composition holds when the root is an allocation (its view starts at the "
            "allocation's start), the case of every alias chain that begins at an alloc",
            profile,
            "valid",
            profile == SAFE,
            build,
        )
    return Theorem(
        f"compose.{profile}",
        "an alias (second) of a valid alias (first) is a valid alias of the root at the "
        "summed offset (direct); refuted: the offset alignment rule is relative to the "
        "source view, so a root that starts off the second alias's element boundary rejects "
        "the direct request although every address is aligned",
        profile,
        "valid",
        False,
        build,
    )


def _run_lemmas(r1: Env, r2: Env) -> list[z3.BoolRef]:
    """Where the first alias sits in a run of the root, and that the second alias (inside
    the first) decomposes into the same run: the facts composition of
    alias.range.physical needs, each a consequence of the hypotheses."""
    o1, o2 = r1["off"], r2["off"]
    p0, p1, p2 = term("p0_b", r1), term("p1_b", r1), term("p2_b", r1)
    s0, s1, r = o1 % p0, o1 % p0 % p1, o1 % p0 % p1 % p2
    j0, j1, j2 = o1 / p0, s0 / p1, s1 / p2
    nonempty = z3.And(term("res_bytes", r1) > 0, term("res_bytes", r2) > 0)
    x = o1 + o2
    steps = [
        o1 == p0 * j0 + s0,
        s0 == p1 * j1 + s1,
        s1 == p2 * j2 + r,
        r + o2 < term("run_b", r1),
        j1 * p1 <= (r1["c1"] - 1) * p1,
        j2 * p2 <= (r1["c2"] - 1) * p2,
        s1 + o2 < p1,
        s0 + o2 < p0,
        x / p0 == j0,
        x % p0 == s0 + o2,
        x % p0 / p1 == j1,
        x % p0 % p1 == s1 + o2,
        x % p0 % p1 / p2 == j2,
        x % p0 % p1 % p2 == r + o2,
    ]
    return [z3.Implies(nonempty, step) for step in steps]


def _inside(envs: dict[str, Env]) -> z3.BoolRef:
    r1, r2 = envs["first"], envs["second"]
    return z3.And(r2["off"] >= 0, r2["off"] + term("res_bytes", r2) <= term("res_bytes", r1))


def _converse(profile: str) -> Theorem:
    def build() -> tuple[z3.BoolRef, dict[str, Env]]:
        envs, ctx = _chain()
        r1, r2, r3 = envs.values()
        hyp = z3.And(ctx, valid(profile, r1), valid(profile, r3), _inside(envs))
        return z3.Implies(hyp, valid(profile, r2)), envs

    return Theorem(
        f"converse.{profile}",
        "a valid direct alias of the root lying inside a valid first alias is a valid "
        "alias of that first alias at the difference of offsets",
        profile,
        "valid",
        False,
        build,
    )


def _converse_side(profile: str) -> Theorem:
    def build() -> tuple[z3.BoolRef, dict[str, Env]]:
        envs, ctx = _chain()
        r1, r2, r3 = envs.values()
        side = z3.And(
            r2["off"] % term("res_eb", r2) == 0,  # the relative offset is element aligned
            z3.Implies(r2["res_mutable"], r1["res_mutable"]),  # writes need a writable A
        )
        hyp = z3.And(ctx, valid(profile, r1), valid(profile, r3), _inside(envs), side)
        return z3.Implies(hyp, valid(profile, r2)), envs

    return Theorem(
        f"converse_aligned.{profile}",
        "the converse holds once the relative offset is element-aligned and a mutable "
        "second alias has a mutable first alias",
        profile,
        "valid",
        True,
        build,
    )


def _refines() -> Theorem:
    def build() -> tuple[z3.BoolRef, dict[str, Env]]:
        env, ctx = _one(SAFE)
        return z3.Implies(z3.And(ctx, valid(SAFE, env)), valid(FT, env)), {"request": env}

    return Theorem("refines.safe.flagtree", "every safe-valid request is flagtree-valid", SAFE,
                   "valid", True, build)  # fmt: skip


def _guarded(profile: str) -> Theorem:
    def build() -> tuple[z3.BoolRef, dict[str, Env]]:
        from alias_spec.model.catalogue import compiled
        from alias_spec.semantics.z3expr import to_z3

        env, ctx = _one(profile)
        guards = [to_z3(compiled(r.id)[0], env) for r in rules_for(profile)]
        return z3.Implies(z3.And(ctx, valid(profile, env)), z3.And(*guards)), {"request": env}

    return Theorem(
        f"guards_covered.{profile}",
        "a request judged valid had every rule evaluated (no guard hid a violation)",
        profile,
        "valid",
        True,
        build,
    )


ALIAS_PROFILES = (FT, SAFE)


def all_theorems() -> list[Theorem]:
    out: list[Theorem] = []
    for p in ALIAS_PROFILES:
        out.append(_satisfiable(p))
        out += [_independent(p, r.id) for r in rules_for(p)]
        out += [_guarded(p), _sound(p), _compose(p, False), _compose(p, True)]
        out += [_converse(p), _converse_side(p)]
    out.append(_refines())
    return out


def _parts(claim: z3.BoolRef) -> list[z3.BoolRef]:
    """Split ``H => (C1 and ... and Cn)`` into ``H => Ci``: each is proved on its own, which
    keeps every query small enough for both solvers. The conjunction is the theorem."""
    if not z3.is_implies(claim):
        return [claim]
    hyp, body = claim.arg(0), claim.arg(1)
    parts: list[z3.BoolRef] = []
    todo = [(hyp, body)]
    while todo:
        h, c = todo.pop(0)
        if z3.is_and(c):
            todo = [(h, x) for x in c.children()] + todo
        elif z3.is_implies(c):
            todo = [(z3.And(h, c.arg(0)), c.arg(1))] + todo
        else:
            parts.append(z3.Implies(h, c))
    return parts


def _worst(results: list[str]) -> str:
    for r in ("refuted", "unknown"):
        if r in results:
            return r
    return "holds"


def run_theorem(
    t: Theorem, solvers: tuple[str, ...] = ("z3", "cvc5"), timeout_ms: int = 60000
) -> Outcome:
    start = time.perf_counter()
    claim, envs = t.build()
    if t.kind == "exists":
        return _run_query(t, claim, envs, solvers, timeout_ms, start)
    outcomes: list[Outcome] = []
    for part in _parts(claim):
        # Only the first counterexample is kept: once a part has one, a later part's model is
        # only for cvc5 to check, and z3's own (unrestricted) model does for that.
        readable = not any(o.counterexample for o in outcomes)
        outcomes.append(_run_query(t, z3.Not(part), envs, solvers, timeout_ms, start, readable))
        verdicts = {s: _worst([o.solvers[s] for o in outcomes]) for s in outcomes[0].solvers}
        if set(verdicts.values()) == {"refuted"}:
            # Every solver refuted a part, so the claim: refuted is the worst verdict, no later
            # part can change one (compose.safe left a part unknown to both after minutes).
            break
    example = next((o.counterexample for o in outcomes if o.counterexample), None)
    return Outcome(
        t, _status(t, verdicts), verdicts, time.perf_counter() - start, example, len(outcomes)
    )


def _status(t: Theorem, verdicts: dict[str, str]) -> str:
    want = "holds" if t.expect_holds else "refuted"
    if set(verdicts.values()) == {want}:
        return "proved" if t.expect_holds else "finding"
    return "failed"


def _run_query(
    t: Theorem,
    query: z3.BoolRef,
    envs: dict[str, Env],
    solvers: tuple[str, ...],
    timeout_ms: int,
    start: float,
    readable: bool = True,
) -> Outcome:
    verdicts: dict[str, str] = {}
    model = None
    if "z3" in solvers:
        # An existence claim expects a model: the restricted searches first (_bounded_model),
        # which find one in milliseconds where the unrestricted search can take seconds, and
        # the unrestricted query only if they find none. Any other query (a conjunct of a
        # claim, negated) asks the unrestricted query first: unsat, the answer for each
        # conjunct of a claim that holds, needs nothing more. After sat the bounded searches
        # only look for a readable counterexample (none found, the unrestricted model is
        # kept); after unknown a model one of them finds decides the query. Either order gives
        # the same answer: a bounded model is a model, and a bounded search's unsat proves
        # nothing, so the unrestricted query decides whenever no bounded model is found.
        expects_model = t.kind == "exists" and t.expect_holds
        found = _bounded_model(query, envs, timeout_ms) if expects_model else None
        if found is None:
            found = _decide(query, timeout_ms)
            again = found.result == z3.unknown or (found.result == z3.sat and readable)
            if again and not expects_model:
                found = _bounded_model(query, envs, timeout_ms) or found
        r, model = found.result, found.model
        verdicts["z3"] = _meaning(t, r)
    if "cvc5" in solvers:
        s = z3.Solver()
        s.add(query)
        if model is not None:
            # A model is checked, not searched for again: cvc5 must accept z3's values.
            s.add(*[d() == model[d] for d in model.decls() if d.arity() == 0])
        verdicts["cvc5"] = _meaning(t, cvc5_backend.check_smt2(s.to_smt2(), timeout_ms))
    example = None
    if model is not None:
        example = {role: _describe(model_facts(model, env)) for role, env in envs.items()}
    return Outcome(t, _status(t, verdicts), verdicts, time.perf_counter() - start, example)


def _decide(query: z3.BoolRef, timeout_ms: int) -> Found:
    """z3's answer on ``query``, unrestricted, with its model (in the main context). It is
    searched in a context of its own: z3's models depend on the terms created and freed
    before a search, so the restricted searches after this one find the models they would
    find had it not run (for a claim's first conjunct, those they found when they came
    first)."""
    ctx = z3.Context()
    s = z3.Solver(ctx=ctx)
    s.set("timeout", timeout_ms)
    s.add(query.translate(ctx))
    result = s.check()
    return Found(result, s.model().translate(z3.main_ctx()) if result == z3.sat else None, s)


def _bounded_model(query: z3.BoolRef, envs: dict[str, Env], timeout_ms: int) -> Found | None:
    """A model of ``query`` a kernel would have first (real dtypes, power-of-2 shapes), then a
    small one, each with small numbers, then with numbers up to 2^34 (the i32 theorems need
    offsets past 2^31), at most five seconds each: the first found, or None. An unsat answer
    of these searches proves nothing (it rules out models within the bounds only)."""
    for bound in (4096, 2**34):
        for prefer in (realistic, small):
            found = solve(
                [query],
                lambda prefer=prefer, bound=bound: [prefer(e, bound) for e in envs.values()],
                timeout_ms=min(timeout_ms, 5000),
            )
            if found.result == z3.sat:
                return found
    return None


def _meaning(t: Theorem, r: z3.CheckSatResult | str) -> str:
    r = str(r)
    if r not in ("sat", "unsat"):
        return "unknown"
    sat = r == "sat"
    return "holds" if sat == (t.kind == "exists") else "refuted"


def _describe(facts: Facts) -> dict[str, Any]:
    return {"facts": dict(facts), "request": to_request(facts)}


def prove(solvers: tuple[str, ...] = ("z3", "cvc5"), only: str | None = None) -> list[Outcome]:
    return [
        run_theorem(t, solvers) for t in all_theorems() if only is None or t.id.startswith(only)
    ]
