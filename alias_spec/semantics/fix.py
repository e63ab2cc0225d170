"""Nearest-fix suggestions: the witness search (``lexmin.nearest``) moves the offset (or the
result's leading dim) as little as possible so that every offset and size rule of the profile
holds. The fix is given in the request's own terms: ``alias_offset_bytes`` for a
tle.memdesc_alias, ``index`` for a ttg.memdesc_index with a constant index, the result's
leading dim for an alias or a ttg.memdesc_reinterpret; a subslice's byte offset is no field
the user writes, so it gets none.

``implied_by`` says which violations add nothing: on the request's sizes, a rule that fails
only at offsets where an earlier rule fails too (``alias.range.physical`` over a dense
source, whose footprint is the ``alias.range.fits`` range) is implied by it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache, lru_cache
from math import prod
from typing import Any

import z3

from alias_spec.model.catalogue import Rule, rule, rules_for
from alias_spec.model.facts import OPS, Facts
from alias_spec.semantics.lexmin import nearest
from alias_spec.semantics.z3expr import fact_vars, fires, holds, pin, term

ALIAS, REINTERPRET, INDEX = (
    OPS["tle.memdesc_alias"],
    OPS["ttg.memdesc_reinterpret"],
    OPS["ttg.memdesc_index"],
)
# Distinct requests remembered (a list of many requests repeats shapes and offsets).
CACHED = 4096

_Key = tuple[tuple[str, int | bool], ...]


@cache
def _symbolic(profile: str) -> tuple[Mapping[str, z3.ExprRef], z3.BoolRef]:
    """The fact variables and "every fixable rule of the profile holds", built once per
    profile: building the terms costs more than solving with them."""
    env = fact_vars()
    return env, z3.And(*[holds(r, env) for r in rules_for(profile) if r.fix])


def _key(facts: Facts) -> _Key:
    return tuple(sorted(facts.items()))


def suggest(
    facts: Facts,
    profile: str,
    rule: Rule,
    res_shape: Sequence[int | None] | None = None,
) -> dict[str, Any] | None:
    """A fix for a violated rule, or None when no offset or size change helps. Every
    fixable rule of the profile holds after it, so it is the same for each of them."""
    if not rule.fix or not facts.get("off_int"):
        return None
    shape = tuple(res_shape) if res_shape is not None else None
    got = _suggest(_key(facts), profile, shape)
    return dict(got) if got is not None else None


@lru_cache(maxsize=CACHED)
def _suggest(
    key: _Key, profile: str, res_shape: tuple[int | None, ...] | None
) -> dict[str, Any] | None:
    facts: Facts = dict(key)
    env, ok = _symbolic(profile)
    op = facts.get("op", ALIAS)
    if op == ALIAS:
        off = nearest(env["off"], int(facts["off"]), [*pin(env, facts, skip=("off",)), ok])
        if off is not None:
            return {"alias_offset_bytes": off}
    elif op == INDEX:
        return _index_fix(facts, env, ok)
    if op not in (ALIAS, REINTERPRET):
        return None
    # No offset works (or the op has none): shrink (or grow) the result's leading dim.
    if not res_shape or any(d is None or d < 0 for d in res_shape):
        return None
    rest = prod(int(d) for d in res_shape[1:])  # type: ignore[arg-type]
    d0 = z3.Int("__d0")
    cons = [*pin(env, facts, skip=("res_elems",)), env["res_elems"] == d0 * rest, d0 >= 1, ok]
    best = nearest(d0, int(res_shape[0]), cons)  # type: ignore[arg-type]
    return None if best is None else {"result.shape[0]": best}


def _index_fix(
    facts: Facts, env: Mapping[str, z3.ExprRef], ok: z3.BoolRef
) -> dict[str, Any] | None:
    """The nearest constant index whose buffer satisfies the rules (buffer k starts k result
    sizes into the source); a runtime index has no value to change."""
    if not facts.get("idx_static"):
        return None
    k = z3.Int("__index")
    cons = [
        *pin(env, facts, skip=("off", "idx")),
        env["idx"] == k,
        env["off"] == k * term("res_bytes", env),
        k >= 0,
        ok,
    ]
    best = nearest(k, int(facts["idx"]), cons)
    return None if best is None else {"index": best}


def implied_by(facts: Facts, profile: str, violated: Sequence[str]) -> dict[str, str]:
    """For each violated rule that adds nothing, the earlier violated rule implying it: on
    these facts with the offset free, every offset at which it fails fails the earlier rule
    too (fixing the earlier one fixes it). Only offset-fixable rules are compared."""
    if not facts.get("off_int"):
        return {}
    ids = tuple(r for r in violated if rule(r).fix)
    if len(ids) < 2:
        return {}
    return dict(_implied(_key(facts), profile, ids))


@lru_cache(maxsize=CACHED)
def _implied(key: _Key, profile: str, ids: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    env, _ = _symbolic(profile)
    s = z3.Solver()
    s.add(*pin(env, dict(key), skip=("off",)))
    out: list[tuple[str, str]] = []
    for i, later in enumerate(ids):
        for earlier in ids[:i]:
            s.push()
            s.add(fires(rule(later), env), holds(rule(earlier), env))
            alone = s.check()
            s.pop()
            if alone == z3.unsat:
                out.append((later, earlier))
                break
    return tuple(out)
