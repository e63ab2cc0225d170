"""Nearest-fix suggestions: z3's Optimize moves the offset (or the result's leading dim)
as little as possible so that every offset and size rule of the profile holds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import prod
from typing import Any

import z3

from alias_spec.model.catalogue import Rule, rules_for
from alias_spec.model.facts import Facts
from alias_spec.semantics.z3expr import fact_vars, holds, pin


def _fixable(profile: str, env: Mapping[str, z3.ExprRef]) -> z3.BoolRef:
    return z3.And(*[holds(r, env) for r in rules_for(profile) if r.fix])


def _nearest(opt_target: z3.ArithRef, start: int, constraints: list[z3.BoolRef]) -> int | None:
    opt = z3.Optimize()
    opt.add(*constraints)
    dist = z3.Int("__dist")
    opt.add(dist >= opt_target - start, dist >= start - opt_target)
    opt.minimize(dist)
    # Prefer the smaller value among equally near ones, for a stable answer.
    opt.minimize(opt_target)
    if opt.check() != z3.sat:
        return None
    return opt.model().eval(opt_target, model_completion=True).as_long()


def suggest(
    facts: Facts,
    profile: str,
    rule: Rule,
    res_shape: Sequence[int | None] | None = None,
) -> dict[str, Any] | None:
    """A fix for a violated rule, or None when no offset or size change helps."""
    if not rule.fix or not facts.get("off_int"):
        return None
    env = fact_vars()
    ok = _fixable(profile, env)
    off = _nearest(env["off"], int(facts["off"]), [*pin(env, facts, skip=("off",)), ok])
    if off is not None:
        return {"alias_offset_bytes": off}
    # No offset works: shrink (or grow) the result's leading dimension instead.
    if not res_shape or any(d is None or d < 0 for d in res_shape):
        return None
    rest = prod(int(d) for d in res_shape[1:])  # type: ignore[arg-type]
    d0 = z3.Int("__d0")
    cons = [*pin(env, facts, skip=("res_elems",)), env["res_elems"] == d0 * rest, d0 >= 1, ok]
    best = _nearest(d0, int(res_shape[0]), cons)  # type: ignore[arg-type]
    return None if best is None else {"result.shape[0]": best}
