"""Differential fuzzing: every engine judges the same cases; any disagreement is a bug.

Engines (each returns the rule ids that fire, in catalogue order):

- ``interp``: the reference interpreter (``alias_spec.model.interp.violated`` per rule). Results are
  memoised per rule on the facts that rule reads (its guard's and formula's free variables);
  ``dsl.evaluate`` reads nothing else, so the memo is exact.
- ``python``: the generated module ``alias_spec.generated.alias_checks``.
- ``cpp``: the generated header through the compiled harness, batched (``cpp_engine``).
- ``z3``: the solver's terms (``alias_spec.semantics.z3expr.fires``) evaluated by z3 on the
  concrete facts:
  every rule's term is packed into one integer-valued term, substituted and simplified. Where
  z3 cannot reduce it (a zero divisor), the real solver engine
  (``alias_spec.semantics.check``) decides.
  ``z3-solver`` is that solver engine on every case (slow; used on boundary cases).

Domains. An engine is only compared where it is defined: ``cpp`` on int64 facts (its
``Facts`` struct); ``z3`` on facts that satisfy the spec's invariants (every fact tuple a
request can produce); where the interpreter divides by zero (outside the invariants) the spec
has no verdict, the Python engines must raise the same error and ``cpp``/``z3`` are skipped.

Case sources: z3-generated boundary and near-miss cases (each rule's comparisons pushed to
their edge by Optimize, on both sides, preferring cases where the comparison decides the
rule's verdict), valid-by-construction facts, raw random facts (int64 extremes, values
outside the invariants and outside int64), random JSON requests through the request parser,
and an exhaustive small-scope sweep. ``suite`` is a fixed sample of them, boundary cases
first (what ``mutate`` scores).

``main`` is ``alias-spec fuzz``: a campaign with a progress bar, cases per second per
engine, and every divergence shrunk to a minimal repro (saved under ``tests/regressions``
when run from a checkout).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache
from math import gcd, prod
from pathlib import Path
from typing import Any

from alias_spec.model import catalogue, dsl
from alias_spec.model.catalogue import DEFAULT_PROFILE, PROFILES, compiled, rules_for
from alias_spec.model.errors import RequestError
from alias_spec.model.facts import FACTS, INT32_MAX, INT64_MAX, INVARIANTS, expand
from alias_spec.model.interp import violated
from alias_spec.model.physical import EMPTY, footprint
from alias_spec.model.request import parse_request

ROOT = Path(__file__).resolve().parents[2]
REGRESSIONS = ROOT / "tests" / "regressions"
INT64_MIN = -(2**63)
ENGINES = ("interp", "python", "cpp", "z3")
NAMES = tuple(f.name for f in FACTS)
BOOLS = frozenset(f.name for f in FACTS if f.sort == dsl.BOOL)
ZERO_DIVISION = "raises ZeroDivisionError"

Facts = dict[str, int | bool]
# The fired rule ids, or "raises <Error>"; None where the engine's domain excludes the case.
Outcome = tuple[str, ...] | str | None


@dataclass(frozen=True)
class Case:
    facts: Facts
    profile: str
    source: str  # boundary, valid, random, request, sweep, regression, ...
    note: str = ""
    expect: tuple[str, ...] | None = None  # known verdict (valid-by-construction: ())
    request: Any = None  # the JSON request the facts were parsed from, if any


def check_types(facts: Mapping[str, int | bool]) -> None:
    """Facts respect their sorts: bools are bools, ints are ints (not bools)."""
    for name in NAMES:
        v = facts[name]
        if (name in BOOLS) != isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"fact {name} = {v!r} has the wrong sort")


# --- engines --------------------------------------------------------------------------------


def _enabled() -> dict[str, frozenset[str]]:
    return {p: frozenset(r.id for r in rules_for(p)) for p in PROFILES}


class InterpEngine:
    """The interpreter, rule by rule, memoised on each rule's free variables."""

    MEMO_LIMIT = 200_000

    def __init__(self) -> None:
        self._enabled = _enabled()
        self._rules = []
        for r in catalogue.RULES:
            guard, formula = compiled(r.id)
            names = tuple(sorted(dsl.free_vars(guard) | dsl.free_vars(formula)))
            self._rules.append((r, names, {}))

    def __call__(self, facts: Mapping[str, int | bool], profile: str) -> Outcome:
        enabled = self._enabled[profile]
        out = []
        for r, names, memo in self._rules:
            if r.id not in enabled:
                continue
            key = tuple(facts[n] for n in names)
            hit = memo.get(key)
            if hit is None:
                if len(memo) > self.MEMO_LIMIT:
                    memo.clear()
                try:
                    hit = violated(r, facts)
                except ZeroDivisionError:
                    hit = ZERO_DIVISION
                memo[key] = hit
            if hit == ZERO_DIVISION:
                return ZERO_DIVISION
            if hit:
                out.append(r.id)
        return tuple(out)


def python_engine(module: Any = None) -> Callable[[Mapping[str, int | bool], str], Outcome]:
    """The generated Python checks (or another module generated the same way)."""
    if module is None:
        from alias_spec.generated import alias_checks as module

    check = module.check

    def run(facts: Mapping[str, int | bool], profile: str) -> Outcome:
        try:
            return tuple(v.rule for v in check(facts, profile))
        except Exception as exc:  # noqa: BLE001 - any error is an outcome to compare
            return f"raises {type(exc).__name__}"

    return run


def in_int64(facts: Mapping[str, int | bool]) -> bool:
    return all(INT64_MIN <= facts[n] <= INT64_MAX for n in NAMES)


def cpp_batch(cases: Sequence[Case], sanitize: bool = False) -> list[Outcome]:
    """The compiled header on every int64 case, one harness run per profile."""
    from alias_spec.engines import cpp_engine

    out: list[Outcome] = [None] * len(cases)
    groups: dict[str, list[int]] = {}
    for i, c in enumerate(cases):
        if in_int64(c.facts):
            groups.setdefault(c.profile, []).append(i)
    for profile, idx in groups.items():
        got = cpp_engine.check_batch([cases[i].facts for i in idx], profile, sanitize=sanitize)
        for i, ids in zip(idx, got, strict=True):
            out[i] = tuple(ids)
    return out


@cache
def _invariant_trees() -> tuple[dsl.Expr, ...]:
    return tuple(expand(t) for t in INVARIANTS)


def satisfies_invariants(facts: Mapping[str, int | bool]) -> bool:
    return all(dsl.evaluate(t, facts) for t in _invariant_trees())


class Z3Engine:
    """z3's reading of the rules, evaluated on concrete facts.

    ``alias_spec.semantics.check`` asks, per rule, whether ``fires(rule)`` is satisfiable with
    every fact
    pinned. With every fact pinned the term is ground, so z3's simplifier decides it; one
    substitution of a term packing all rules as bits does the whole catalogue at once."""

    def __init__(self) -> None:
        import z3

        from alias_spec.semantics.z3expr import fact_vars, fires

        self._z3 = z3
        self._env = fact_vars()
        self._rules = list(catalogue.RULES)
        bits = [
            z3.If(fires(r, self._env), z3.IntVal(1 << i), z3.IntVal(0))
            for i, r in enumerate(self._rules)
        ]
        self._packed = z3.Sum(*bits)
        self._enabled = _enabled()
        self.fallbacks = 0

    def __call__(self, facts: Mapping[str, int | bool], profile: str) -> Outcome:
        z3 = self._z3
        subs = [
            (v, z3.BoolVal(bool(facts[n])) if n in BOOLS else z3.IntVal(int(facts[n])))
            for n, v in self._env.items()
        ]
        value = z3.simplify(z3.substitute(self._packed, *subs))
        if not z3.is_int_value(value):
            self.fallbacks += 1
            return z3_solver(facts, profile)
        mask = value.as_long()
        enabled = self._enabled[profile]
        return tuple(r.id for i, r in enumerate(self._rules) if mask >> i & 1 and r.id in enabled)


def z3_solver(facts: Mapping[str, int | bool], profile: str) -> Outcome:
    """The z3 engine itself (``alias-spec check --engine z3``), without fix suggestions."""
    from alias_spec.semantics.check import check_facts

    return tuple(check_facts(facts, profile, with_fixes=False).rule_ids())


# --- comparing ------------------------------------------------------------------------------


@dataclass
class Divergence:
    case: Case
    outcomes: dict[str, Outcome]

    def to_json(self) -> dict[str, Any]:
        return {
            "profile": self.case.profile,
            "source": self.case.source,
            "note": self.case.note,
            "facts": self.case.facts,
            "outcomes": {e: _jsonable(o) for e, o in self.outcomes.items()},
        }


def _jsonable(o: Outcome) -> Any:
    return list(o) if isinstance(o, tuple) else o


def disagree(outcomes: Mapping[str, Outcome], expect: tuple[str, ...] | None = None) -> bool:
    seen = {o for o in outcomes.values() if o is not None}
    if expect is not None:
        seen.add(expect)
    return len(seen) > 1


def _restrict(outcomes: dict[str, Outcome]) -> dict[str, Outcome]:
    """Where the spec has no verdict (zero divisor), only the Python engines are compared."""
    if any(o == ZERO_DIVISION for o in outcomes.values()):
        for e in outcomes:
            if e not in ("interp", "python"):
                outcomes[e] = None
    return outcomes


class Engines:
    """The engines of one campaign, and a judge of single cases (for shrinking/replay)."""

    def __init__(self, names: Sequence[str], sanitize: bool = False) -> None:
        unknown = [n for n in names if n not in ENGINES + ("z3-solver",)]
        if unknown:
            raise ValueError(f"unknown engines {unknown}; choose from {', '.join(ENGINES)}")
        self.names = list(names)
        self.sanitize = sanitize
        self.interp = InterpEngine() if "interp" in names else None
        self.python = python_engine() if "python" in names else None
        self.z3 = Z3Engine() if "z3" in names else None

    def outcomes(self, case: Case) -> dict[str, Outcome]:
        out: dict[str, Outcome] = {}
        for name in self.names:
            out[name] = self._one(name, case)
        return _restrict(out)

    def _one(self, name: str, case: Case) -> Outcome:
        f, p = case.facts, case.profile
        if name == "interp":
            assert self.interp is not None
            return self.interp(f, p)
        if name == "python":
            assert self.python is not None
            return self.python(f, p)
        if name == "cpp":
            return cpp_batch([case], self.sanitize)[0]
        if not satisfies_invariants(f):
            return None
        if name == "z3":
            assert self.z3 is not None
            return self.z3(f, p)
        return z3_solver(f, p)

    def diverges(self, case: Case) -> bool:
        return disagree(self.outcomes(case), case.expect)


# --- shrinking and saving ---------------------------------------------------------------------

# A small valid request: 64 i8 elements, a 16-byte alias at offset 0. Its facts (whatever the
# vocabulary holds) fill every fact a generator does not set, and shrinking moves facts towards
# them, so a repro differs from a familiar request in as few facts as possible.
BASE_REQUEST = {
    "source": {"shape": [64], "dtype": "i8"},
    "result": {"shape": [16], "dtype": "i8"},
    "alias_offset_bytes": 0,
}


@cache
def _base() -> tuple[tuple[str, int | bool], ...]:
    return tuple(parse_request(BASE_REQUEST).facts.items())


def base_facts() -> Facts:
    return dict(_base())


def _towards(v: int, target: int) -> list[int]:
    """Candidate values from target towards v (exclusive): target, then ever larger steps."""
    d = abs(v - target)
    sign = 1 if v > target else -1
    halves = {d >> k for k in range(d.bit_length() + 1)}
    steps = sorted(halves | {d - h for h in halves})
    return [target + sign * s for s in steps if s < d]


def shrink(case: Case, diverges: Callable[[Case], bool], budget: int = 2000) -> Case:
    """Greedy: move facts one at a time towards the base request's while the case still diverges."""
    facts, tries, base = dict(case.facts), 0, base_facts()
    changed = True
    while changed and tries < budget:
        changed = False
        for name in NAMES:
            v, target = facts[name], base[name]
            if v == target:
                continue
            cands = [target] if name in BOOLS else _towards(int(v), int(target))
            for c in cands:
                tries += 1
                trial = Case({**facts, name: c}, case.profile, case.source, case.note)
                if diverges(trial):
                    facts[name] = c
                    changed = True
                    break
    return Case(facts, case.profile, case.source, case.note, case.expect)


def repro_text(d: Divergence) -> str:
    base = base_facts()
    diff = {k: v for k, v in d.case.facts.items() if base.get(k) != v}
    lines = [
        f"DIVERGENCE ({d.case.source}, profile {d.case.profile}) {d.case.note}".rstrip(),
        f"  facts differing from the base request: {json.dumps(diff)}",
        f"  all facts: {json.dumps(d.case.facts)}",
    ]
    if d.case.request is not None:
        lines.append(f"  parsed from the request: {json.dumps(d.case.request)}")
    if d.case.expect is not None:
        lines.append(f"  expected by construction: {list(d.case.expect)}")
    for e, o in d.outcomes.items():
        lines.append(f"  {e:>9}: {_jsonable(o) if o is not None else '(not judged)'}")
    return "\n".join(lines)


def save_regression(d: Divergence, directory: Path, found_by: str) -> Path:
    """One JSON file per divergence, named by its content (re-finding it overwrites it)."""
    body = d.to_json()
    key = json.dumps({"p": body["profile"], "f": body["facts"]}, sort_keys=True)
    name = f"{d.case.source}-{hashlib.sha256(key.encode()).hexdigest()[:10]}.json"
    body["found_by"] = found_by
    body["cause"] = "unexplained: investigate, fix the engine or the spec, then explain here"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(json.dumps(body, indent=1, sort_keys=True) + "\n")
    return path


# --- case source: boundary and near-miss cases from z3 -----------------------------------------

# Facts that make rule terms non-linear (multiplicands and divisors). Each boundary query pins
# them to one "shape", so what is left is linear and z3's Optimize is exact and fast.
PREFERRED_SHAPE = ("src_bits", "res_bits", "swz", "c0", "c1", "c2", "p0", "p1", "p2")

# Shapes at the int64 and i32 scales, tried on comparisons with such a constant (the small
# shapes come from z3 witnesses).
LARGE_SHAPES: tuple[dict[str, int], ...] = (
    # A dense source of up to INT64_MAX one-byte elements.
    {"src_bits": 8, "res_bits": 8, "swz": 0, "c0": 1, "c1": 1, "c2": 1,
     "p0": INT64_MAX, "p1": INT64_MAX, "p2": INT64_MAX},
    # Two-byte source elements: the byte size can pass INT64_MAX.
    {"src_bits": 16, "res_bits": 8, "swz": 1024, "c0": 1, "c1": 1, "c2": 1,
     "p0": 2**62, "p1": 2**62, "p2": 2**62},
    # Strided rows, 4-byte source, 2-byte result, past the i32 range.
    {"src_bits": 32, "res_bits": 16, "swz": 256, "c0": 3, "c1": 2, "c2": 2,
     "p0": 2**36, "p1": 2**34, "p2": 2**32},
    # Sub-byte source (1 byte each) and a result of 7-byte elements (odd widths).
    {"src_bits": 4, "res_bits": 56, "swz": 512, "c0": 2, "c1": 1, "c2": 1,
     "p0": 2**31, "p1": 2**31, "p2": 2**31},
)  # fmt: skip

_CMP = ("<", "<=", ">", ">=", "==", "!=")


def nodes(e: dsl.Expr) -> Iterator[dsl.Expr]:
    yield e
    for a in e.args:
        yield from nodes(a)


@cache
def shape_facts() -> frozenset[str]:
    """PREFERRED_SHAPE plus whatever else keeps a product or divisor non-constant: a
    divisor's facts, and of a product's two sides the one whose facts the rules mention
    least (so the facts most rules turn on stay free to move)."""
    pinned = set(PREFERRED_SHAPE) & set(NAMES)
    trees = [t for r in catalogue.RULES for t in compiled(r.id)] + list(_invariant_trees())
    uses = Counter(n.value for t in trees for n in nodes(t) if n.op == "var")
    changed = True
    while changed:
        changed = False
        for node in (n for t in trees for n in nodes(t)):
            if node.op in ("//", "%"):
                extra = dsl.free_vars(node.args[1]) - pinned
            elif node.op == "*":
                left, right = (dsl.free_vars(a) - pinned for a in node.args)
                if not (left and right):
                    continue
                extra = min(left, right, key=lambda vs: (sum(uses[v] for v in vs), len(vs)))
            else:
                continue
            if extra:
                pinned |= extra
                changed = True
    return frozenset(pinned)


def int_atoms(rule_id: str) -> list[dsl.Expr]:
    """Integer comparisons in a rule's guard and formula (definitions inlined), deduplicated."""
    sorts = {f.name: f.sort for f in FACTS}
    out: dict[str, dsl.Expr] = {}
    for tree in compiled(rule_id):
        for e in nodes(tree):
            if e.op in _CMP and dsl.sort_of(e.args[0], sorts) == dsl.INT:
                out.setdefault(dsl.to_text(e), e)
    return list(out.values())


def _big_constant(atom: dsl.Expr) -> bool:
    return any(n.op == "const" and abs(int(n.value)) >= INT32_MAX for n in nodes(atom))  # type: ignore[arg-type]


@cache
def _neighbours(name: str) -> frozenset[str]:
    """Facts tied to ``name`` by an invariant (moving one may force moving the others)."""
    out = {name}
    for t in _invariant_trees():
        vs = dsl.free_vars(t)
        if name in vs:
            out |= vs
    return frozenset(out)


def _movable(atom: dsl.Expr) -> set[str]:
    """The facts of a comparison with their invariant neighbours, shape facts excluded
    unless the comparison reads nothing else (then its shape facts move, the rest stays)."""
    shape = shape_facts()
    own = dsl.free_vars(atom) & set(NAMES)
    out: set[str] = set()
    for n in own:
        out |= _neighbours(n)
    return (out - shape) or own


@cache
def _symbolic(profile: str) -> tuple[dict[str, Any], Any, dict[str, Any], dict[str, Any]]:
    """z3 facts, the invariants and each rule's holds/fires terms for a profile (built once;
    queries substitute their pinned facts into them)."""
    from alias_spec.semantics.z3expr import fact_vars, fires, holds, invariants

    env = dict(fact_vars())
    rules = rules_for(profile)
    return (
        env,
        invariants(env),
        {r.id: holds(r, env) for r in rules},
        {r.id: fires(r, env) for r in rules},
    )


class _Query:
    """One profile's rules over z3 facts, with some facts pinned as constants."""

    def __init__(self, profile: str, pinned: Mapping[str, int | bool]) -> None:
        import z3

        from alias_spec.semantics.z3expr import to_z3

        self.z3, self.to_z3 = z3, to_z3
        env0, inv, holds, fires = _symbolic(profile)
        consts = {
            n: z3.BoolVal(bool(v)) if n in BOOLS else z3.IntVal(int(v)) for n, v in pinned.items()
        }
        # z3.substitute re-checks every pair's sorts in Python on each call; the C API call
        # it wraps takes the arrays once built (the sorts match by construction).
        n = len(consts)
        src, dst = (z3.Ast * n)(), (z3.Ast * n)()
        for i, (name, c) in enumerate(consts.items()):
            src[i], dst[i] = env0[name].as_ast(), c.as_ast()

        def sub(t: Any) -> Any:
            if not n:
                return t
            return z3.BoolRef(z3.Z3_substitute(t.ctx_ref(), t.as_ast(), n, src, dst), t.ctx)

        self.env = {**env0, **consts}
        free = [n for n in NAMES if n not in pinned and n not in BOOLS]
        self.base = [sub(inv)]
        self.base += [z3.And(env0[n] >= INT64_MIN, env0[n] <= INT64_MAX) for n in free]
        self.holds = {r: sub(t) for r, t in holds.items()}
        self.fires = {r: sub(t) for r, t in fires.items()}

    def side(self, rule_id: str | None, alone: bool = True) -> list[Any]:
        """``rule_id`` fires and (``alone``) every other rule holds; None: every rule holds."""
        if not alone:
            return [self.fires[rule_id]]
        return [self.fires[r] if r == rule_id else h for r, h in self.holds.items()]

    def decides(self, rule_id: str, atom: dsl.Expr) -> Any:
        """The comparison decides whether the rule fires: with it forced true the rule's
        verdict differs from with it forced false (the MC/DC condition). Flipping the
        comparison then flips the verdict, so a case at its edge tells the flip apart."""
        z3 = self.z3
        guard, formula = compiled(rule_id)
        fired = []
        for value in (True, False):
            g, f = (_replace(t, atom, dsl.const(value)) for t in (guard, formula))
            fired.append(z3.And(self.to_z3(g, self.env), z3.Not(self.to_z3(f, self.env))))
        return z3.Xor(*fired)

    def solve(
        self,
        rule_id: str | None,
        atom: dsl.Expr | None,
        timeout_ms: int,
        alone: bool = True,
        decides: str | None = None,
    ) -> Facts | None:
        z3 = self.z3
        opt = z3.Optimize()
        opt.set("timeout", timeout_ms)
        opt.add(*self.base, *self.side(rule_id, alone))
        if decides is not None and atom is not None:
            opt.add(self.decides(decides, atom))
        if atom is not None:
            # Push the comparison to its edge: |lhs - rhs| as small as it can be.
            d = self.to_z3(atom.args[0], self.env) - self.to_z3(atom.args[1], self.env)
            opt.minimize(z3.If(d >= 0, d, -d))
        if opt.check() != z3.sat:
            return None
        return self.facts(opt.model())

    def facts(self, model: Any) -> Facts:
        z3 = self.z3
        out: Facts = {}
        for n in NAMES:
            val = z3.simplify(model.eval(self.env[n], model_completion=True))
            out[n] = z3.is_true(val) if n in BOOLS else val.as_long()
        return out


def _replace(e: dsl.Expr, old: dsl.Expr, new: dsl.Expr) -> dsl.Expr:
    if e == old:
        return new
    if not e.args:
        return e
    return dsl.Expr(e.op, tuple(_replace(a, old, new) for a in e.args), e.value)


def _decided(rule_id: str, atom: dsl.Expr, facts: Facts) -> bool:
    """On these facts, forcing the comparison true or false changes whether the rule fires."""
    out = []
    try:
        for value in (True, False):
            g, f = (_replace(t, atom, dsl.const(value)) for t in compiled(rule_id))
            out.append(bool(dsl.evaluate(g, facts)) and not dsl.evaluate(f, facts))
    except ZeroDivisionError:
        return False
    return out[0] != out[1]


def _gap(atom: dsl.Expr, facts: Facts) -> int:
    """|lhs - rhs| of a comparison on concrete facts (unbounded where it divides by 0)."""
    try:
        lhs, rhs = (int(dsl.evaluate(a, facts)) for a in atom.args)
    except ZeroDivisionError:
        return 2**200
    return abs(lhs - rhs)


def _edge(
    profile: str,
    rule_id: str | None,
    atom: dsl.Expr | None,
    near: Facts,
    timeout_ms: int,
    alone: bool = True,
    owner: str | None = None,
) -> Facts | None:
    """The case nearest ``near`` on the given side of the edge: first only the comparison's
    own facts move (the rest pinned to ``near``); unless that reaches the edge (|lhs - rhs|
    <= 1), every non-shape fact may move too, and the closer result wins. Cases where the
    comparison decides the verdict of its rule ``owner`` are preferred: if the pinned shape
    allows none, a small one is searched for (every fact free, non-linear, bounded)."""
    shape = shape_facts()
    for decides in [owner, None] if owner is not None else [None]:
        found = None
        if atom is not None:
            movable = _movable(atom)
            pinned = {n: v for n, v in near.items() if n not in movable}
            found = _Query(profile, pinned).solve(rule_id, atom, timeout_ms, alone, decides)
            if found is not None and _gap(atom, found) <= 1:
                return found
        pinned = {n: v for n, v in near.items() if n in shape}
        wide = _Query(profile, pinned).solve(rule_id, atom, timeout_ms, alone, decides)
        if atom is not None and wide is not None and found is not None:
            found = wide if _gap(atom, wide) < _gap(atom, found) else found
        else:
            found = found or wide
        if found is not None and (decides is None or atom is None or _gap(atom, found) <= 1):
            return found
        if decides is not None and atom is not None:
            small = _decisive_witness(profile, rule_id, atom, decides, timeout_ms, alone)
            if small is not None:
                return dict(small)
            if found is not None:
                return found
    return None


@cache
def _decisive_witness(
    profile: str, rule_id: str | None, atom: dsl.Expr, owner: str, timeout_ms: int, alone: bool
) -> Facts | None:
    """A small case (every fact free, within +-256) on the given side where the comparison
    sits at its edge (|lhs - rhs| <= 1, 0 first) and decides ``owner``'s verdict."""
    import z3

    from alias_spec.semantics.witness import small

    q = _Query(profile, {})
    d = q.to_z3(atom.args[0], q.env) - q.to_z3(atom.args[1], q.env)
    for target in (d == 0, z3.Or(d == 1, d == -1)):
        s = z3.Solver()
        s.set("timeout", timeout_ms)
        s.add(*q.base, *q.side(rule_id, alone), q.decides(owner, atom), target, small(q.env, 256))
        if s.check() == z3.sat:
            return q.facts(s.model())
    return None


def _witness(profile: str, rule_id: str | None, timeout_ms: int) -> Facts | None:
    """A small request on which ``rule_id`` alone fires (None: a valid request)."""
    import z3

    from alias_spec.semantics.witness import small
    from alias_spec.semantics.z3expr import fact_vars, fires, holds, invariants, model_facts

    env = fact_vars()
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.add(invariants(env), small(env, 256))
    s.add(*[fires(r, env) if r.id == rule_id else holds(r, env) for r in rules_for(profile)])
    if s.check() != z3.sat:
        return None
    return model_facts(s.model(), env)


def _home_profiles(rule_id: str) -> list[str]:
    """Profiles enforcing the rule, most rules first: a case where the rule fires alone
    under the largest profile fires it alone under the smaller ones it contains too."""
    ps = [p for p in PROFILES if any(r.id == rule_id for r in rules_for(p))]
    return sorted(ps, key=lambda p: -len(rules_for(p)))


@cache
def boundary_cases(timeout_ms: int = 1500) -> tuple[Case, ...]:
    """For every rule and integer comparison in it: the request on which the rule alone fires
    with the comparison pushed to its edge (z3 Optimize, |lhs - rhs| minimal), and the valid
    request on the other side of that edge, nearest to it (only the comparison's own facts
    moved). Each is judged under every profile that enforces the rule. Rules without integer
    comparisons get a violated-alone witness and a valid request."""
    out: list[Case] = []
    seen: set[tuple[str, str, str]] = set()

    def add(facts: Facts | None, rule_id: str, note: str) -> None:
        if facts is None:
            return
        for p in _home_profiles(rule_id):
            key = (p, rule_id, json.dumps(facts, sort_keys=True))
            if key not in seen:
                seen.add(key)
                out.append(Case(facts, p, "boundary", note))

    valid = {p: _witness(p, None, timeout_ms * 4) for p in PROFILES}
    for r in catalogue.RULES:
        homes = _home_profiles(r.id)
        if not homes:
            continue
        for profile in homes:  # the largest profile where the rule can fire alone
            wit = _witness(profile, r.id, timeout_ms * 4)
            if wit is not None:
                break
        atoms: list[dsl.Expr | None] = list(int_atoms(r.id)) or [None]
        starts = [w for w in (wit, valid[profile]) if w is not None]
        for atom in atoms:
            label = f"{r.id} at {dsl.to_text(atom)}" if atom is not None else f"{r.id} (flags)"
            bases = list(starts)
            if atom is not None and _big_constant(atom) and starts:
                bases += [{**starts[-1], **shape} for shape in LARGE_SHAPES]
            for base in bases:
                bad = _edge(profile, r.id, atom, base, timeout_ms, owner=r.id)
                # The valid side under each enforcing profile: a smaller profile may allow
                # an edge that a larger one rules out.
                goods = [_edge(p, None, atom, bad or base, timeout_ms, owner=r.id) for p in homes]
                good = next((g for g in goods if g is not None), None)
                if bad is None and good is not None:
                    bad = _edge(profile, r.id, atom, good, timeout_ms, owner=r.id)
                add(bad, r.id, f"{label}: violated alone")
                if atom is not None and (
                    bad is None or _gap(atom, bad) > 1 or not _decided(r.id, atom, bad)
                ):
                    # The rule cannot fire alone where this comparison decides it (another
                    # rule fires with it there): take that edge with company.
                    crowd = _edge(profile, r.id, atom, base, timeout_ms, False, r.id)
                    add(crowd, r.id, f"{label}: violated with others")
                for g in goods:
                    add(g, r.id, f"{label}: valid, nearest")
    return tuple(out)


# --- case source: valid by construction ------------------------------------------------------


def _bits_for(rng: random.Random, eb: int) -> int:
    """A bit width whose byte width ceil(bits / 8) is eb."""
    return rng.choice([8 * eb, 8 * eb - rng.randint(0, 7)]) if eb > 0 else 0


def small_geometry(rng: random.Random, max_dim: int = 16) -> tuple[int, dict[str, int]]:
    """(element count, footprint facts) of a random static view inside a real allocation."""
    while True:
        rank = rng.randint(1, 4)
        alloc = [rng.choice([1, 2, 3, 4, 8, max_dim]) for _ in range(rank)]
        view_rank = rng.randint(1, rank)
        shape = [rng.randint(0, d) if rng.random() < 0.3 else rng.randint(1, d)
                 for d in alloc[rank - view_rank:]]  # fmt: skip
        padded = [1] * (rank - view_rank) + shape
        offsets = [rng.randint(0, a - s) for a, s in zip(alloc, padded, strict=True)]
        try:
            return prod(shape), footprint(shape, alloc, offsets).facts()
        except RequestError:  # more strided levels than modelled
            continue


def big_geometry(rng: random.Random) -> tuple[int, dict[str, int]]:
    """Nested runs with strides and counts up to int64 scale, in the footprint's normal form
    (real levels innermost, each leaving a gap after its runs; padding levels outermost)."""
    while True:
        run = rng.choice([1, 7, 2**20, 2**40, 2**61])
        levels = rng.randint(0, 3)
        c, p = [1, 1, 1], [0, 0, 0]
        extent = run
        for lvl in (2, 1, 0)[:levels]:
            c[lvl] = rng.choice([2, 3, 32])
            p[lvl] = extent + rng.choice([1, 5, 2**30, 2**33])
            extent += (c[lvl] - 1) * p[lvl]
        for lvl in range(3 - levels):
            p[lvl] = extent
        elems = c[0] * c[1] * c[2] * run
        start = rng.choice([0, 3, 2**40])
        geo = {"src_start": start, "run": run, "p0": p[0], "c0": c[0], "p1": p[1],
               "c1": c[1], "p2": p[2], "c2": c[2]}  # fmt: skip
        if max(elems, extent, start) <= INT64_MAX:
            return elems, geo


def valid_facts(rng: random.Random) -> Facts:
    """Facts of a request that every rule of every profile accepts, by construction."""
    while True:
        src_eb = rng.choice([1, 1, 2, 2, 4, 8, 3])
        res_eb = rng.choice([1, 1, 2, 4, 4, 8, 16, 7])
        elems, geo = big_geometry(rng) if rng.random() < 0.15 else small_geometry(rng)
        run_b = geo["run"] * src_eb
        if run_b == 0 or elems * src_eb > INT64_MAX:
            continue  # nothing to alias, or alias.size.static
        cap = run_b // res_eb
        res_elems = (
            0
            if rng.random() < 0.1
            else rng.choice(
                [cap, rng.randint(min(1, cap), cap), rng.randint(min(1, cap), max(1, cap // 4))]
            )
        )
        res_elems = min(res_elems, cap)
        res_bytes = res_elems * res_eb
        p = [geo[f"p{i}"] * src_eb for i in range(3)]
        c = [geo[f"c{i}"] for i in range(3)]
        run_start = sum(rng.randrange(ci) * pi for ci, pi in zip(c, p, strict=True))
        slack = run_b - res_bytes
        # The offset inside the run must keep off a multiple of the result element width.
        first = (-run_start) % res_eb
        if first > slack:
            run_start, first = 0, 0
        t = first + res_eb * rng.randint(0, (slack - first) // res_eb)
        t = rng.choice([t, t, first, first + res_eb * ((slack - first) // res_eb)])
        if run_start + t + res_bytes > elems * src_eb:
            # Past the logical size (a strided view): alias.range.fits judges the dense
            # size, so fall back to the first run.
            run_start, t = 0, t - first
        off = run_start + t
        swz = rng.choice([0, 0, 256, 512, 1024, 2 ** rng.randint(0, 12)])
        step = res_eb * (swz or 1) // gcd(res_eb, swz or 1)
        start_b = geo["src_start"] * src_eb
        src_base = (-(start_b + off)) % step + step * rng.choice([0, 0, 1, rng.randint(0, 99)])
        align = step * rng.choice([1, 2, 4, 1024 // step if step < 1024 else 1])
        if src_base + start_b + off + res_bytes > INT32_MAX:
            continue  # alias.address.i32: the whole result must be 32-bit addressable
        src_mutable = rng.random() < 0.8
        facts = base_facts()
        facts.update(
            src_mutable=src_mutable, res_mutable=src_mutable and rng.random() < 0.8, off=off,
            src_bits=_bits_for(rng, src_eb), res_bits=_bits_for(rng, res_eb),
            src_elems=elems, res_elems=res_elems, src_base=src_base, align=align, swz=swz,
            **geo,
        )  # fmt: skip
        return facts


# Profiles cases cycle through; valid-by-construction cases are judged by the alias profiles.
PROFILES_LIST = list(PROFILES)
ALIAS_PROFILES = [p for p in ("flagtree", "safe") if p in PROFILES]


def valid_cases(rng: random.Random, n: int) -> Iterator[Case]:
    for i in range(n):
        profile = ALIAS_PROFILES[i % len(ALIAS_PROFILES)]
        yield Case(valid_facts(rng), profile, "valid", expect=())


def _profile(i: int) -> str:
    return PROFILES_LIST[i % len(PROFILES_LIST)]


# --- case source: raw random facts ---------------------------------------------------------------

EDGES = (0, 1, -1, 2, 7, 8, 9, 15, 16, 255, 256, 1024, INT32_MAX, INT32_MAX + 1, -(2**31),
         2**32, 2**62, INT64_MAX, INT64_MAX - 1, INT64_MIN, INT64_MIN + 1)  # fmt: skip


def _raw_int(rng: random.Random) -> int:
    r = rng.random()
    if r < 0.35:
        return rng.choice(EDGES)
    if r < 0.7:
        return rng.randint(-20, 300)
    if r < 0.97:
        return rng.randint(INT64_MIN, INT64_MAX)
    return rng.choice([INT64_MAX + 1, INT64_MIN - 1, 2**100, -(2**80)])  # beyond int64


def raw_facts(rng: random.Random) -> Facts:
    """Any typed facts: invariants or not, int64 extremes, a few beyond int64."""
    return {n: (rng.random() < 0.7) if n in BOOLS else _raw_int(rng) for n in NAMES}


def perturbed_facts(rng: random.Random) -> Facts:
    """A valid request with one to three facts moved: near misses of every kind."""
    f = valid_facts(rng)
    for name in rng.sample(NAMES, rng.randint(1, 3)):
        if name in BOOLS:
            f[name] = not f[name]
        else:
            v = int(f[name])
            f[name] = rng.choice([v + 1, v - 1, 0, -v, v * 2, v // 2, _raw_int(rng),
                                  rng.randint(-4, 4)])  # fmt: skip
    return f


def random_cases(rng: random.Random, n: int) -> Iterator[Case]:
    for i in range(n):
        if rng.random() < 0.5:
            yield Case(raw_facts(rng), _profile(i), "random")
        else:
            yield Case(perturbed_facts(rng), _profile(i), "perturbed")


def facts_strategy() -> Any:
    """Hypothesis strategy: raw typed facts, or a valid request with some facts replaced."""
    from hypothesis import strategies as st

    ints = st.one_of(
        st.sampled_from(EDGES),
        st.integers(-20, 300),
        st.integers(INT64_MIN, INT64_MAX),
        st.integers(-(2**70), 2**70),
    )
    raw = st.fixed_dictionaries({n: st.booleans() if n in BOOLS else ints for n in NAMES})

    @st.composite
    def near_valid(draw: Any) -> Facts:
        f = valid_facts(draw(st.randoms(use_true_random=False)))
        names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3, unique=True))
        for n in names:
            f[n] = draw(st.booleans() if n in BOOLS else ints)
        return f

    return st.one_of(raw, near_valid())


# --- case source: JSON requests through the parser -------------------------------------------

_DTYPES = ("i1", "i8", "fp8e4nv", "fp16", "bf16", "f32", "fp32", "i64", "f64", {"bits": 4},
           {"bits": 0}, {"bits": 24}, {"bits": 56}, {"bits": 2**31})  # fmt: skip
_LAYOUTS = (
    None,
    None,
    {"kind": "nvmma", "swizzle_bytes": 128},
    {"kind": "nvmma", "swizzle_bytes": 32},
    {"kind": "nvmma", "swizzle_bytes": 0},
    {"kind": "swizzled"},
    "#ttg.nvmma_shared<{swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16}>",
    "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>",
    "#shared",
)
_OFFSETS = (0, 0, 1, 2, 4, 8, 16, 64, 128, 1024, 4096, -1, INT32_MAX, INT32_MAX + 1,
            INT64_MAX, INT64_MAX + 1, 2**100, True, False, 4.0, "4", None)  # fmt: skip


def _side_dims(rng: random.Random, alloc: list[int]) -> tuple[list[Any], list[int]]:
    rank = len(alloc)
    view_rank = rng.randint(1, rank)
    shape = [rng.randint(0, d) if rng.random() < 0.2 else rng.randint(1, d)
             for d in alloc[rank - view_rank:]]  # fmt: skip
    padded = [1] * (rank - view_rank) + shape
    return shape, [rng.randint(0, a - s) for a, s in zip(alloc, padded, strict=True)]


def random_request(rng: random.Random) -> dict[str, Any]:
    """A JSON request, mostly well-formed, sometimes not (the parser must then reject it)."""
    rank = rng.randint(1, 3)
    alloc = [rng.choice([1, 2, 4, 8, 16, 32, 64, 128, 3]) for _ in range(rank)]
    shape, offsets = _side_dims(rng, alloc)
    src: dict[str, Any] = {"shape": shape, "dtype": rng.choice(_DTYPES)}
    if rng.random() < 0.5:
        src["alloc_shape"] = alloc
        src["view_offsets"] = offsets
    if rng.random() < 0.1:
        src["shape"] = [rng.choice([None, "?", -1, 2**62, 2**63])] + shape[1:]
    for key, choices in (
        ("space", ("smem", "smem", "smem", "tmem", "global")),
        ("mutable", (True, True, False)),
        ("layout", _LAYOUTS),
        ("base_offset_bytes", (0, 0, 2, 16, 128, INT32_MAX - 64)),
        ("alloc_alignment", (16, 1, 2, 1024, 128)),
        ("kind", ("buffered_tensor", "buffered_tensor", "tensor")),
    ):
        if rng.random() < 0.4:
            src[key] = rng.choice(choices)
    res: dict[str, Any] = {
        "shape": [
            rng.choice([0, 1, 2, 4, 8, 16, 64, 128, 2**61]) for _ in range(rng.randint(1, 2))
        ],
        "dtype": rng.choice(_DTYPES),
    }
    for key, choices in (("space", ("smem", "smem", "tmem")), ("mutable", (True, False)),
                         ("layout", _LAYOUTS)):  # fmt: skip
        if rng.random() < 0.4:
            res[key] = rng.choice(choices)
    req: dict[str, Any] = {"source": src, "result": res}
    if rng.random() < 0.9:
        req["alias_offset_bytes"] = rng.choice(_OFFSETS) if rng.random() < 0.5 else \
            rng.randrange(0, 4096, rng.choice([1, 2, 4, 16, 128]))  # fmt: skip
    if rng.random() < 0.1:
        req["scope"] = rng.choice(["smem", "tmem"])
    if rng.random() < 0.05:
        req["init_value"] = rng.choice([0, 1.5, None, False])
    if rng.random() < 0.2:
        req["source"] = _memdesc_text(src, rng)
    return req


def _memdesc_text(src: dict[str, Any], rng: random.Random) -> Any:
    dtype = src["dtype"]
    shape = src["shape"]
    if not isinstance(dtype, str) or not all(isinstance(d, int) and d >= 0 for d in shape):
        return src
    dims = "x".join(str(d) for d in shape)
    space = {"smem": "#ttg.shared_memory", "tmem": "#ttng.tensor_memory",
             "global": "#global"}[src.get("space", "smem")]  # fmt: skip
    layout = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>"
    parts = [f"{dims}x{dtype}", layout, space]
    if src.get("mutable", True):
        parts.append("mutable")
    if "alloc_shape" in src and rng.random() < 0.5:
        parts.append("x".join(str(d) for d in src["alloc_shape"]))
    return "!ttg.memdesc<" + ", ".join(parts) + ">"


def seed_requests() -> list[tuple[str, Any]]:
    """Hand-made requests from the repository: fixed boundary requests and the example and
    verdict-case files (reused as inputs only; their own tests check their verdicts)."""
    out: list[tuple[str, Any]] = []
    try:
        from alias_spec.semantics.boundary import fixed_edges

        out += [(f"fixed edge: {name}", req) for name, req in fixed_edges()]
    except ImportError:  # the fixed edges are optional inputs
        pass
    for path in sorted((ROOT / "tests" / "cases").glob("*.json")):
        try:
            out.append((path.name, json.loads(path.read_text())["request"]))
        except (OSError, ValueError, KeyError):
            continue
    return out


def request_cases(rng: random.Random, n: int, stats: Counter | None = None) -> Iterator[Case]:
    """Requests through ``parse_request``: the repository's seeds first, then random ones.
    Rejected requests (RequestError) are counted in ``stats`` and not judged."""
    seeds = seed_requests()
    produced = 0
    for i in itertools.count():
        if produced >= n:
            return
        if i < len(seeds):
            note, req = seeds[i]
        else:
            note, req = "random request", random_request(rng)
        try:
            facts = parse_request(req).facts
        except RequestError:
            if stats is not None:
                stats["request rejected"] += 1
            continue
        check_types(facts)
        produced += 1
        yield Case(facts, _profile(i), "request", note, request=req)


# --- case source: the exhaustive small-scope sweep ------------------------------------------------


@cache
def sweep_geometries(max_elems: int = 8) -> tuple[tuple[int, tuple[tuple[str, int], ...]], ...]:
    """Every distinct footprint of a static view inside an allocation of rank <= 3, dims 1-4
    and at most ``max_elems`` elements (with the view's element count)."""
    seen: dict[tuple[int, tuple[tuple[str, int], ...]], None] = {}
    for rank in (1, 2, 3):
        for alloc in itertools.product(range(1, 5), repeat=rank):
            if prod(alloc) > max_elems:
                continue
            for view_rank in range(1, rank + 1):
                for shape in itertools.product(*[range(d + 1) for d in alloc[rank - view_rank :]]):
                    padded = [1] * (rank - view_rank) + list(shape)
                    ranges = [range(a - s + 1) for a, s in zip(alloc, padded, strict=True)]
                    for offs in itertools.product(*ranges):
                        try:
                            fp = footprint(list(shape), list(alloc), list(offs))
                        except RequestError:
                            continue
                        seen[(prod(shape), tuple(sorted(fp.facts().items())))] = None
    return tuple(seen)


# (src_base, align, swz) placements: element- and swizzle-aligned and misaligned starts.
_PLACEMENTS = ((0, 8, 0), (1, 8, 0), (2, 8, 0), (3, 1, 0), (0, 2, 0), (0, 8, 4), (2, 8, 4),
               (4, 8, 4), (0, 2, 4), (6, 8, 8), (0, 16, 8), (8, 4, 8))  # fmt: skip
_CONTROL_BOOLS = ("src_buffered", "init_given", "src_mutable", "res_mutable", "off_int",
                  "src_static", "res_static")  # fmt: skip


class Sweep:
    """Every fact tuple of a small scope, addressable by index (campaigns sample it).

    Part A, the arithmetic: every small footprint x source bits {0, 8, 16, 24} x result
    bits {0, 8, 16, 32} x result elements 0-3 x offset -1..16 x 12 placements, with the
    control facts valid. Part B, the control facts: every combination of the seven booleans,
    scope and both memory spaces x 16 arithmetic tuples (adjusted to the invariants: a
    non-integer offset is 0, a dynamic side has no elements)."""

    SRC_BITS = (0, 8, 16, 24)
    RES_BITS = (0, 8, 16, 32)
    RES_ELEMS = (0, 1, 2, 3)
    OFFSETS = tuple(range(-1, 17))

    def __init__(self) -> None:
        self.geos = sweep_geometries()
        self.axes: list[Sequence[Any]] = [self.geos, self.SRC_BITS, self.RES_BITS,
                                          self.RES_ELEMS, self.OFFSETS, _PLACEMENTS]  # fmt: skip
        self.size_a = prod(len(a) for a in self.axes)
        self.controls = list(itertools.product((False, True), repeat=len(_CONTROL_BOOLS)))
        self.control_axes = [self.controls, (0, 1), (0, 1, 2), (0, 1, 2)]
        # 16 fixed arithmetic tuples, spread over part A, for part B.
        self.control_arith = [random.Random(k).randrange(self.size_a) for k in range(16)]
        self.size_b = prod(len(a) for a in self.control_axes) * 16

    def __len__(self) -> int:
        return self.size_a + self.size_b

    def __getitem__(self, i: int) -> Facts:
        if i < self.size_a:
            return self._arith(i)
        j = i - self.size_a
        k, j = j % 16, j // 16
        picks = []
        for axis in self.control_axes:
            picks.append(axis[j % len(axis)])
            j //= len(axis)
        bools, scope, src_space, res_space = picks
        f = self._arith(self.control_arith[k])
        f.update(dict(zip(_CONTROL_BOOLS, bools, strict=True)))
        f.update(scope=scope, src_space=src_space, res_space=res_space)
        if not f["off_int"]:
            f["off"] = 0
        if not f["src_static"]:
            f.update(src_elems=0, **EMPTY.facts())
        if not f["res_static"]:
            f["res_elems"] = 0
        return f

    def _arith(self, i: int) -> Facts:
        picks = []
        for axis in self.axes:
            picks.append(axis[i % len(axis)])
            i //= len(axis)
        (elems, geo), src_bits, res_bits, res_elems, off, (base, align, swz) = picks
        f = base_facts()
        f.update(geo)
        f.update(src_elems=elems, src_bits=src_bits, res_bits=res_bits, res_elems=res_elems,
                 off=off, src_base=base, align=align, swz=swz)  # fmt: skip
        return f

    def cases(self, indices: Iterable[int]) -> Iterator[Case]:
        """Judged under the default profile (it holds every alias rule), every fourth tuple
        under each other profile in turn."""
        others = [p for p in PROFILES_LIST if p != DEFAULT_PROFILE]
        for i in indices:
            q, r = divmod(i, 4)
            profile = others[q % len(others)] if r == 3 and others else DEFAULT_PROFILE
            yield Case(self[i], profile, "sweep", f"sweep[{i}]")


# --- the fixed suite and saved regressions -------------------------------------------------------


def regression_case(path: Path) -> Case:
    """A saved divergence as a case. Facts added to the vocabulary after it was saved take
    the base request's values."""
    body = json.loads(path.read_text())
    facts = {**base_facts(), **body["facts"]}
    check_types(facts)
    return Case(facts, body["profile"], "regression", path.name)


def regression_cases(directory: Path = REGRESSIONS) -> list[Case]:
    """Every saved divergence (replayed by tests/test_differential.py)."""
    return [regression_case(p) for p in sorted(directory.glob("*.json"))]


def suite(seed: int = 0, n: int = 4000) -> list[Case]:
    """The differential suite in a fixed order, sharpest cases first: the z3 boundary cases,
    the saved regressions, then ``n`` each of valid-by-construction, random and sweep cases
    and ``n // 4`` parsed requests (what the mutation check runs)."""
    rng = random.Random(seed)
    sweep = Sweep()
    out = list(boundary_cases()) + regression_cases()
    out += valid_cases(rng, n)
    out += random_cases(rng, n)
    out += request_cases(rng, n // 4)
    out += sweep.cases(rng.randrange(len(sweep)) for _ in range(n))
    return out


# --- campaigns ---------------------------------------------------------------------------------


@dataclass
class Report:
    cases: int = 0
    compared: Counter = field(default_factory=Counter)  # engine -> cases it judged
    seconds: Counter = field(default_factory=Counter)  # engine -> time spent judging
    sources: Counter = field(default_factory=Counter)
    divergences: list[Divergence] = field(default_factory=list)
    wall: float = 0.0

    def rates(self) -> dict[str, float]:
        return {e: self.compared[e] / self.seconds[e] for e in self.compared if self.seconds[e]}

    def summary(self) -> str:
        lines = [f"{self.cases} cases in {self.wall:.1f} s ({dict(self.sources)})"]
        for e, n in self.compared.items():
            rate = self.rates().get(e, 0.0)
            lines.append(f"  {e:>9}: {n} cases judged, {rate:,.0f} cases/s")
        lines.append(f"  divergences: {len(self.divergences)}")
        return "\n".join(lines)


class Progress:
    """A plain-text progress bar on stderr (redrawn in place on a terminal)."""

    def __init__(self, total: int, stream: Any = None, width: int = 30) -> None:
        self.total, self.width = max(total, 1), width
        self.stream = stream if stream is not None else sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.start = time.perf_counter()
        self.last = -1.0

    def update(self, done: int, divergences: int, final: bool = False) -> None:
        now = time.perf_counter()
        if not final and now - self.last < (0.2 if self.tty else 5.0):
            return
        self.last = now
        frac = min(done / self.total, 1.0)
        bar = "#" * int(frac * self.width) + "-" * (self.width - int(frac * self.width))
        rate = done / max(now - self.start, 1e-9)
        text = (f"[{bar}] {frac:6.1%} {done}/{self.total} cases, {rate:,.0f}/s, "
                f"{divergences} divergences")  # fmt: skip
        self.stream.write(("\r" + text + ("\n" if final else "")) if self.tty else text + "\n")
        self.stream.flush()


def run(
    cases: Iterable[Case],
    engines: Sequence[str],
    *,
    sanitize: bool = False,
    z3_pick: Callable[[int, Case], bool] | None = None,
    chunk: int = 20_000,
    progress: Progress | None = None,
    report: Report | None = None,
    max_divergences: int = 50,
) -> Report:
    """Judge every case with every engine and record disagreements.

    The C++ engine runs on one chunk in a worker thread (its harness is a separate process)
    while this thread runs the Python engines on the same chunk. ``z3_pick`` chooses the
    cases z3 judges (default: all)."""
    eng = Engines(engines, sanitize)
    rep = report if report is not None else Report()
    start = time.perf_counter()
    pool = ThreadPoolExecutor(1) if "cpp" in engines else None

    def timed_cpp(batch: list[Case]) -> tuple[list[Outcome], float]:
        t = time.perf_counter()
        return cpp_batch(batch, sanitize), time.perf_counter() - t

    it = iter(cases)
    try:
        while True:
            batch = list(itertools.islice(it, chunk))
            if not batch:
                break
            fut: Future | None = pool.submit(timed_cpp, batch) if pool else None
            columns: dict[str, list[Outcome]] = {}
            for name, fn in (("interp", eng.interp), ("python", eng.python)):
                if fn is not None:
                    t = time.perf_counter()
                    columns[name] = [fn(c.facts, c.profile) for c in batch]
                    rep.seconds[name] += time.perf_counter() - t
                    rep.compared[name] += len(batch)
            for name in ("z3", "z3-solver"):
                if name in engines:
                    col: list[Outcome] = []
                    t = time.perf_counter()
                    for k, c in enumerate(batch):
                        pick = z3_pick is None or z3_pick(rep.cases + k, c)
                        if pick and satisfies_invariants(c.facts):
                            col.append(eng._one(name, c))
                            rep.compared[name] += 1
                        else:
                            col.append(None)
                    rep.seconds[name] += time.perf_counter() - t
                    columns[name] = col
            if fut is not None:
                col, secs = fut.result()
                columns["cpp"] = col
                rep.seconds["cpp"] += secs
                rep.compared["cpp"] += sum(1 for o in col if o is not None)
            for k, c in enumerate(batch):
                outs = _restrict({e: columns[e][k] for e in engines})
                if disagree(outs, c.expect) and len(rep.divergences) < max_divergences:
                    if c.expect is not None:
                        outs["construction"] = c.expect
                    rep.divergences.append(Divergence(c, outs))
                rep.sources[c.source] += 1
            rep.cases += len(batch)
            if progress is not None:
                progress.update(rep.cases, len(rep.divergences))
    finally:
        if pool is not None:
            pool.shutdown()
    rep.wall += time.perf_counter() - start
    if progress is not None:
        progress.update(rep.cases, len(rep.divergences), final=True)
    return rep


def campaign_cases(n: int, seed: int, with_boundary: bool = True) -> Iterator[Case]:
    """A seeded mix: boundary cases first, then valid-by-construction (30%), raw and
    perturbed random (35%), parsed requests (10%) and a sample of the sweep (25%)."""
    rng = random.Random(seed)
    produced = 0
    if with_boundary:
        for c in boundary_cases()[:n]:
            produced += 1
            yield c
    rest = n - produced
    sweep = Sweep()
    k_valid, k_random, k_req = int(rest * 0.30), int(rest * 0.35), int(rest * 0.10)
    k_sweep = rest - k_valid - k_random - k_req
    sources = [
        valid_cases(rng, k_valid),
        random_cases(rng, k_random),
        request_cases(rng, k_req),
        sweep.cases(rng.randrange(len(sweep)) for _ in range(k_sweep)),
    ]
    # Interleave in chunks so a short run still sees every source.
    live = [iter(s) for s in sources]
    while live:
        for s in list(live):
            got = list(itertools.islice(s, 997))
            if not got:
                live.remove(s)
            yield from got


def main(cases: int, seed: int, engines: list[str], save_dir: Path | None = None) -> int:
    """``alias-spec fuzz``: run a campaign, print rates and shrunk divergences; 1 if any.

    z3 judges every boundary case and, beyond 20,000 cases, a seeded sample of 20,000 of the
    others (about a millisecond per case). Divergences are saved to ``save_dir`` (default:
    ``tests/regressions`` of the checkout, when it exists)."""
    if save_dir is None and REGRESSIONS.parent.is_dir():
        save_dir = REGRESSIONS
    pick_rng = random.Random(seed ^ 0x5EED)
    rate = min(1.0, 20_000 / max(cases, 1))

    def z3_pick(_: int, c: Case) -> bool:
        return c.source == "boundary" or pick_rng.random() < rate

    with_boundary = "z3" in engines or cases >= 5_000
    if with_boundary:
        t0 = time.perf_counter()
        n = len(boundary_cases())
        print(f"{n} boundary cases from z3 in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    source = campaign_cases(cases, seed, with_boundary)
    rep = run(source, engines, z3_pick=z3_pick, progress=Progress(cases))
    print(rep.summary())
    if not rep.divergences:
        return 0
    eng = Engines(engines)
    for d in rep.divergences[:10]:
        small = shrink(d.case, eng.diverges)
        outs = eng.outcomes(small)
        if small.expect is not None:
            outs["construction"] = small.expect
        div = Divergence(small, outs)
        print(repro_text(div))
        if save_dir is not None:
            path = save_regression(div, save_dir, f"alias-spec fuzz --cases {cases} --seed "
                                   f"{seed} --engines {','.join(engines)}")  # fmt: skip
            print(f"  saved to {path}")
    return 1


def replay(path: Path, engines: Sequence[str] = ENGINES, sanitize: bool = False) -> Divergence:
    """Judge a saved regression case with every engine (what the regression test checks)."""
    case = regression_case(path)
    return Divergence(case, Engines(list(engines), sanitize).outcomes(case))
