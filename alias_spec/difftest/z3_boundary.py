"""Case source: boundary and near-miss cases from z3.

For every rule and every integer comparison in it, the witness search (``lexmin.optimum``,
z3's Optimize on these linear queries) pushes the comparison to its edge (|lhs - rhs| minimal)
on both sides: a request on which the rule alone fires, and the valid request nearest it.
Cases where the comparison decides the rule's verdict are preferred (the MC/DC condition), so
a flipped or deleted comparison changes some case's verdict.

Computing them takes about a minute, so they are kept in the user's cache directory (the C++
engine's, ``cpp_engine.cache_dir``) under a key hashing everything they depend on: the
catalogue, the fact vocabulary, the search's own code and z3's version.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from alias_spec.difftest.outcomes import (
    BOOLS,
    INT64_MIN,
    NAMES,
    Case,
    Facts,
    check_types,
    invariant_trees,
)
from alias_spec.model import catalogue, dsl
from alias_spec.model.catalogue import PROFILES, compiled, rules_for
from alias_spec.model.facts import FACTS, INT32_MAX, INT64_MAX

# Facts that make rule terms non-linear (multiplicands and divisors). Each boundary query pins
# them to one "shape", so what is left is linear and ``lexmin.optimum`` is exact and fast.
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
    trees = [t for r in catalogue.RULES for t in compiled(r.id)] + list(invariant_trees())
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
    for t in invariant_trees():
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

    def __init__(self, profile: str, pinned: Facts) -> None:
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
        from alias_spec.semantics.lexmin import optimum

        z3 = self.z3

        def decided() -> list[Any]:
            return [self.decides(decides, atom)] if decides is not None and atom is not None else []

        def edge() -> list[Any]:
            if atom is None:
                return []
            # Push the comparison to its edge: |lhs - rhs| as small as it can be.
            d = self.to_z3(atom.args[0], self.env) - self.to_z3(atom.args[1], self.env)
            return [z3.If(d >= 0, d, -d)]

        found = optimum(
            [*self.base, *self.side(rule_id, alone)], decided, minimize=edge, timeout_ms=timeout_ms
        )
        if found.result == z3.unknown:
            _TIMEOUTS[0] += 1
        return None if found.model is None else self.facts(found.model)

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

    from alias_spec.semantics.lexmin import solve
    from alias_spec.semantics.witness import small

    q = _Query(profile, {})
    d = q.to_z3(atom.args[0], q.env) - q.to_z3(atom.args[1], q.env)
    for target in (d == 0, z3.Or(d == 1, d == -1)):
        found = solve(
            lambda t=target: [
                *q.base,
                *q.side(rule_id, alone),
                q.decides(owner, atom),
                t,
                small(q.env, 256),
            ],
            timeout_ms=timeout_ms,
        )
        if found.result == z3.unknown:
            _TIMEOUTS[0] += 1
        if found.model is not None:
            return q.facts(found.model)
    return None


def _witness(profile: str, rule_id: str | None, timeout_ms: int) -> Facts | None:
    """A small request on which ``rule_id`` alone fires (None: a valid request)."""
    from alias_spec.semantics.lexmin import search
    from alias_spec.semantics.witness import small
    from alias_spec.semantics.z3expr import fact_vars, fires, holds, invariants

    env = fact_vars()
    return search(
        lambda: [invariants(env), small(env, 256)],
        lambda: [fires(r, env) if r.id == rule_id else holds(r, env) for r in rules_for(profile)],
        env=env,
        timeout_ms=timeout_ms,
    )


def _home_profiles(rule_id: str) -> list[str]:
    """Profiles enforcing the rule, most rules first: a case where the rule fires alone
    under the largest profile fires it alone under the smaller ones it contains too."""
    ps = [p for p in PROFILES if any(r.id == rule_id for r in rules_for(p))]
    return sorted(ps, key=lambda p: -len(rules_for(p)))


@cache
def boundary_cases(timeout_ms: int = 1500) -> tuple[Case, ...]:
    """The boundary cases (``compute_boundary_cases``), read from the cache when it holds
    them for this catalogue and code, else computed and stored there. One process computes
    them at a time: the others (test workers) wait for its file rather than repeat the work."""
    path = cache_path(timeout_ms)
    got = _load(path)
    if got is not None:
        return got
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = open(path.with_name(path.name + ".lock"), "w")  # noqa: SIM115 (held below)
    except OSError:  # no writable cache: compute, unshared
        return _compute_and_store(path, timeout_ms)
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        got = _load(path)  # the process that held the lock may have stored them
        return got if got is not None else _compute_and_store(path, timeout_ms)


def _compute_and_store(path: Path, timeout_ms: int) -> tuple[Case, ...]:
    _TIMEOUTS[0] = 0
    out = compute_boundary_cases(timeout_ms)
    if _TIMEOUTS[0] <= MAX_TIMEOUTS_CACHED:
        _store(path, out)
    return out


# Solver queries of the computation that ran out of time. A query near its time limit
# finishes or not depending on the machine's load, and so does the case it would give: a
# computation where more queries than this timed out is used, but not cached (the next run
# computes the cases again rather than keep a set its load thinned out).
_TIMEOUTS = [0]
MAX_TIMEOUTS_CACHED = 1


# Modules whose code decides which cases the search finds (besides the catalogue's data).
_SEARCH_MODULES = (
    "alias_spec.difftest.z3_boundary",
    "alias_spec.difftest.outcomes",
    "alias_spec.engines.base",
    "alias_spec.model.dsl",
    "alias_spec.semantics.z3expr",
    "alias_spec.semantics.lexmin",
    "alias_spec.semantics.witness",
)


def cache_key(timeout_ms: int) -> str:
    """A hash of everything the boundary cases depend on: the rules (formulas, guards,
    profiles), facts, definitions, invariants and constants, the search's code, z3's version
    and the time limit."""
    import importlib

    import z3

    from alias_spec.model import facts

    h = hashlib.sha256()
    data = {
        "rules": [r.model_dump(mode="json") for r in catalogue.RULES],
        "profiles": {p: [r.id for r in rules_for(p)] for p in PROFILES},
        "facts": [(f.name, f.sort, f.doc) for f in FACTS],
        "definitions": facts.DEFINITIONS,
        "invariants": facts.INVARIANTS,
        "constants": facts.CONSTANTS,
        "z3": z3.get_full_version(),
        "timeout_ms": timeout_ms,
    }
    h.update(json.dumps(data, sort_keys=True, default=str).encode())
    for name in _SEARCH_MODULES:
        source = importlib.import_module(name).__file__
        h.update(Path(source).read_bytes() if source else name.encode())
    return h.hexdigest()[:24]


def cache_path(timeout_ms: int = 1500) -> Path:
    from alias_spec.engines.cpp_engine import cache_dir

    return cache_dir() / f"boundary-cases-{cache_key(timeout_ms)}.json"


def _load(path: Path) -> tuple[Case, ...] | None:
    """The cached cases, or None when there are none or the file is not what _store wrote
    (then they are computed again)."""
    try:
        rows = json.loads(path.read_text())
        out = []
        for facts, profile, note in rows:
            if set(facts) != set(NAMES) or profile not in PROFILES or not isinstance(note, str):
                return None
            check_types(facts)
            out.append(Case(facts, profile, "boundary", note))
        return tuple(out)
    except (OSError, ValueError, TypeError):
        return None


def _store(path: Path, cases: tuple[Case, ...]) -> None:
    """Write the cases beside the target and rename: a reader never sees half a file. A
    cache that cannot be written is no error (the next run computes them again)."""
    rows = [[c.facts, c.profile, c.note] for c in cases]
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.name + ".", dir=path.parent)
        with os.fdopen(fd, "w") as fh:
            json.dump(rows, fh)
        os.replace(tmp, path)
    except OSError:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)


def compute_boundary_cases(timeout_ms: int = 1500) -> tuple[Case, ...]:
    """For every rule and integer comparison in it: the request on which the rule alone fires
    with the comparison pushed to its edge (``lexmin.optimum``, |lhs - rhs| minimal), and the valid
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
