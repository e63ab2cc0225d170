"""The spec's verdict on one ``tle.gpu.alloc(alias=...)`` call, and the fix a rejection offers.

Pure Python (no Triton, no z3). The fix search is bounded whatever the request: candidate
offsets are computed, not enumerated (the lattice the alignment rules leave, clamped into the
footprint runs nearest the requested offset, at most ``MAX_RUNS`` on each side), and the
generated checks alone decide which candidate is valid; a size fix is a binary search.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from math import gcd, prod
from typing import Any

from alias_spec.frontend.tle.args import TLEError, is_int
from alias_spec.frontend.tle.place import (
    LayoutInfo,
    PlaceError,
    SourceView,
    alias_facts,
    pow2_part,
    recipe_facts,
)
from alias_spec.generated import alias_checks, recipes
from alias_spec.model import dsl
from alias_spec.model.describe import describe
from alias_spec.model.facts import INT32_MAX, Facts, expand

MAX_RUNS = 64  # footprint runs tried on each side of the requested offset


@cache
def _definition(name: str) -> dsl.Expr:
    return expand(name)


def _value(name: str, facts: Facts) -> int:
    """A definition of the spec's fact vocabulary (res_bytes, abs_off, ...) evaluated."""
    return int(dsl.evaluate(_definition(name), facts))


def _fixes_offset_rules(facts: Facts, profile: str, c: int, lowering_too: bool) -> bool:
    trial = dict(facts, off=c, gran=pow2_part(c) if c > 0 else 0)
    if any(v.rule in recipes.OFFSET_FIXABLE for v in alias_checks.check(trial, profile)):
        return False
    if not lowering_too:
        return True
    return not recipes.unsupported(trial) and recipes.choose(trial) is not None


def _merge(a: tuple[int, int] | None, b: tuple[int, int]) -> tuple[int, int] | None:
    """x = r1 mod m1 and x = r2 mod m2 as one congruence (None: no such x)."""
    if a is None:
        return None
    (r1, m1), (r2, m2) = a, b
    g = gcd(m1, m2)
    if (r2 - r1) % g:
        return None
    step = m2 // g
    k = ((r2 - r1) // g * pow(m1 // g, -1, step)) % step if step > 1 else 0
    m = m1 // g * m2
    return (r1 + m1 * k) % m, m


def _lattices(facts: Facts, profile: str, lowering_too: bool) -> list[tuple[int, int]]:
    """The residue classes (r, m) the alignment conditions leave for the offset. Candidates
    only: a class finer than needed costs optimality, never validity (the checks decide)."""
    enabled = alias_checks.PROFILES[profile]
    eb = _value("res_eb", facts)
    abs0 = _value("abs_off", dict(facts, off=0))
    conds: list[tuple[int, int]] = []
    if eb >= 1 and "alias.offset.aligned" in enabled:
        conds.append((0, eb))
    if eb >= 1 and "alias.address.aligned" in enabled:
        conds.append((-abs0 % eb, eb))
    swz = int(facts["swz"])
    if swz >= 1 and "alias.base.aligned" in enabled:
        conds.append((-abs0 % swz, swz))
    if lowering_too:  # the recipes' base.align16 support condition
        conds.append((-abs0 % 16, 16))
    lattice: tuple[int, int] | None = (0, 1)
    for cond in conds:
        lattice = _merge(lattice, cond)
    if lattice is None:
        return []
    out = [lattice]
    res_bytes = _value("res_bytes", facts)
    if lowering_too and res_bytes >= 1:  # the index recipe steps whole results
        whole = _merge(lattice, (0, res_bytes))
        if whole is not None:
            out.append(whole)
    return out


def _runs(facts: Facts, profile: str, lo: int, hi: int) -> tuple[list[tuple[int, int]], bool]:
    """Offset intervals the range rules allow near the requested offset, and whether they are
    all of them: the source's runs (alias.range.physical) or the one range [lo, hi]."""
    off = min(max(int(facts["off"]), lo), hi)  # the nearest runs lie around the allowed range
    counts = [int(facts[f"c{i}"]) for i in range(3)]
    strides = [_value(f"p{i}_b", facts) for i in range(3)]
    run_b, res_bytes = _value("run_b", facts), _value("res_bytes", facts)
    physical = "alias.range.physical" in alias_checks.PROFILES[profile]
    if not physical or res_bytes < 1 or run_b < 1 or min(counts) < 1 or min(strides) < 1:
        return [(lo, hi)], True
    if res_bytes > run_b:  # no run holds the result, wherever it starts
        return [], True
    # The run holding (or last before) the offset, as a mixed-radix index over the levels.
    index = 0
    rest = off
    for count, stride in zip(counts, strides, strict=True):
        i = min(rest // stride, count - 1)
        rest -= i * stride
        index = index * count + i
    total = prod(counts)
    first, last = max(0, index - MAX_RUNS), min(total - 1, index + MAX_RUNS)
    out = []
    for n in range(first, last + 1):
        i0, r = divmod(n, counts[1] * counts[2])
        i1, i2 = divmod(r, counts[2])
        s = i0 * strides[0] + i1 * strides[1] + i2 * strides[2]
        s, e = max(s, lo), min(s + run_b - res_bytes, hi)
        if s <= e:
            out.append((s, e))
    return out, first == 0 and last == total - 1


@dataclass(frozen=True)
class OffsetFix:
    offset: int | None  # the nearest valid offset found
    complete: bool  # every offset was considered: None means that no offset works


def nearest_offset(facts: Facts, profile: str, lowering_too: bool = False) -> OffsetFix:
    """The valid offset nearest the requested one (the smaller on ties). With ``lowering_too``
    (``facts`` include the recipe facts) the installed Triton must also lower it."""
    if not facts["off_int"] or _value("res_eb", facts) < 1:
        return OffsetFix(None, True)
    off = int(facts["off"])
    enabled = alias_checks.PROFILES[profile]
    # Offsets beyond i32 are never lowered, whatever the profile says.
    lo, hi = 0, INT32_MAX
    res_bytes = _value("res_bytes", facts)
    if "alias.range.fits" in enabled:
        hi = min(hi, _value("src_bytes", facts) - res_bytes)
    if "alias.address.i32" in enabled:
        hi = min(hi, INT32_MAX - _value("abs_off", dict(facts, off=0)) - res_bytes)
    runs, complete = _runs(facts, profile, lo, hi) if lo <= hi else ([], True)
    found: set[int] = {0, min(max(off, lo), max(hi, lo))}
    for r, m in _lattices(facts, profile, lowering_too):
        for s, e in runs:
            t = min(max(off, s), e)
            below = t - (t - r) % m
            if below >= s:
                found.add(below)
            above = below if below == t else below + m
            if above <= e:
                found.add(above)
    for c in sorted(found, key=lambda c: (abs(c - off), c)):
        if _fixes_offset_rules(facts, profile, c, lowering_too):
            return OffsetFix(c, complete)
    return OffsetFix(None, complete)


def nearest_d0(facts: Facts, profile: str, res_shape: Sequence[object]) -> int | None:
    """The largest leading dim below the requested one that the offset rules accept at the
    requested offset. Those rules only bound the result's size from above, so the accepted
    dims are 1..k and a binary search finds k; the checks judge every probe."""
    if not res_shape or not all(is_int(d) and d >= 1 for d in res_shape):  # type: ignore[operator]
        return None
    rest = prod(res_shape[1:])  # type: ignore[arg-type]
    d = int(res_shape[0])  # type: ignore[call-overload]

    def fits(d0: int) -> bool:
        trial = dict(facts, res_elems=d0 * rest)
        return not any(v.rule in recipes.OFFSET_FIXABLE for v in alias_checks.check(trial, profile))

    if d <= 1 or not fits(1):
        return None
    lo, hi = 1, d - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def _values(values: dict[str, Any]) -> str:
    """A violation's values in the words of the call (offset, result bytes, ...), not the
    spec's fact names."""
    return f" ({describe(values)})" if values else ""


def reject(
    facts: Facts,
    profile: str,
    violations: Iterable[alias_checks.Violation],
    res_shape: Sequence[object],
    notes: Sequence[str],
    rextra: Facts | None = None,
) -> TLEError:
    """The error for a call the spec rejects: every rule, its values and a fix."""
    violations = list(violations)
    lines = [f"tle.gpu.alloc(alias=...) violates the alias spec (profile {profile!r}):"]
    fix = OffsetFix(None, True)
    fix_d0 = None
    if any(v.rule in recipes.OFFSET_FIXABLE for v in violations):
        if rextra is not None:  # prefer an offset the installed Triton can also lower
            fix = nearest_offset(dict(facts, **rextra), profile, lowering_too=True)
        if fix.offset is None:
            fix = nearest_offset(facts, profile)
        if fix.offset is None:
            fix_d0 = nearest_d0(facts, profile, res_shape)
    for v in violations:
        if v.rule not in recipes.OFFSET_FIXABLE:
            # The catalogue's advice for the rule (generated beside the recipes).
            text = recipes.HINTS.get(v.rule, "see docs/guides/gluon-frontend.md")
        elif fix.offset is not None:
            text = f"alias_offset_bytes={fix.offset}"
        elif fix_d0 is not None:
            text = f"shape[0]={fix_d0}"
        elif fix.complete:
            text = (
                "no alias_offset_bytes in this source works; alias a larger or better-aligned "
                "source"
            )
        else:
            text = (
                "no alias_offset_bytes near the requested one works; alias a larger or "
                "better-aligned source"
            )
        lines.append(f"  [{v.rule}] {v.message}{_values(dict(v.values))}; fix: {text}")
    lines += [f"  note: {n}" for n in notes]
    return TLEError(lines, [v.rule for v in violations])


def unsupported(
    reasons: Sequence[tuple[str, str, str, dict]],
    version: str,
    rfacts: Facts | None = None,
    profile: str = "safe",
) -> TLEError:
    """The error for a call the spec accepts but the installed Triton cannot lower."""
    lines = [f"tle.gpu.alloc(alias=...) cannot be lowered on Triton {version}:"]
    for check, reason, fix, values in reasons:
        if check == "base.align16" and rfacts is not None:
            best = nearest_offset(rfacts, profile, lowering_too=True).offset
            fix = f"alias_offset_bytes={best}" if best is not None else fix
        lines.append(f"  [lowering.unsupported] {check}: {reason}{_values(values)}; fix: {fix}")
    return TLEError(lines, ["lowering.unsupported"] * len(reasons))


def judge(
    src: SourceView,
    scope: int,
    init_given: bool,
    shape: list[int],
    res_bits: int,
    res_layout: LayoutInfo,
    off: object,
    profile: str,
    tv: int,
    version: str,
) -> Facts:
    """The spec's verdict on one alias call: its facts plus the recipe facts when the spec
    accepts it, else a TLEError naming every violated rule with a fix."""

    def unmodelled(exc: PlaceError) -> TLEError:
        return unsupported([("source.model", str(exc), "alias a simpler view", {})], version)

    try:
        facts = alias_facts(src, scope, init_given, shape, res_bits, res_layout, off)  # type: ignore[arg-type]
    except PlaceError as exc:
        raise unmodelled(exc) from None
    violations = alias_checks.check(facts, profile)
    lowerable = src.buffered and src.place is not None and is_int(off)
    rextra = None
    if lowerable and all(is_int(d) and d >= 0 for d in shape):
        try:
            rextra = recipe_facts(src, shape, res_layout, int(off), tv)  # type: ignore[call-overload]
        except PlaceError as exc:
            if not violations:
                raise unmodelled(exc) from None
    if violations:
        notes = src.place.notes if src.place is not None else ()
        raise reject(facts, profile, violations, shape, notes, rextra)
    if rextra is None:  # the alias profiles reject such a call; never lower it unjudged
        reason = "the source's position is unknown or a size is not static"
        raise unsupported([("source.place", reason, "alias a tle.gpu.alloc buffer", {})], version)
    return dict(facts, **rextra)
